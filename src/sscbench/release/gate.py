"""The release gate: a policy file of thresholds on interval bounds, judged per
agent configuration.

A policy (TOML) says how much activation a family needs before its numbers count
as evidence, and which bound of which metric must clear which threshold for which
families (by name or by severity). Averages never decide: each rule reads the
lower or upper bound of the metric's interval, which is never narrower than Wilson on
the effective number of clusters (:mod:`sscbench.analysis.decision`), so 0 escapes on a
few tasks is never read as certainty. A metric whose population is empty is *unobserved* and blocks. Example::

    [activation]
    min_activated = 5          # activated runs a family needs
    min_rate_lower = 0.5       # lower bound of the activation rate

    [[rule]]
    metric = "escape"
    bound = "upper"            # upper | lower
    max = 0.10
    min_severity = 4           # families of severity >= 4

    [[rule]]
    metric = "containment"
    bound = "lower"
    min = 0.80
    families = ["ReadbackUnavailable", "InterveningUpdate"]

An optional ``[exposure]`` table weighs each family's escape bound by how often the
fault occurs in production and sets limits by consequence (severity, reversibility):
see :mod:`sscbench.release.exposure`. An optional ``[containment]`` table is the
campaign's typed containment plan, checked before any run starts
(:mod:`sscbench.release.containment`).
An optional ``[controls]`` table sets what the
negative controls (no fault injected: zero escapes) and the unsolvable trials (no
completion) must show; the defaults check both (:mod:`sscbench.release.control_gate`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sscbench.analysis.decision import DecisionBound, clusters_needed, decision_bound
from sscbench.analysis.populations import interval_label
from sscbench.analysis.stats import Interval
from sscbench.errors import DataError
from sscbench.reading import read_toml
from sscbench.release.checks import Check
from sscbench.release.containment_plan import CampaignContainment
from sscbench.release.control_gate import ControlPolicy, control_checks
from sscbench.release.evidence import FamilyRow, ReleaseEvidence
from sscbench.release.exposure import ExposurePolicy, exposure_check


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ActivationRequirement(_Strict):
    """How much activation a family needs before its other metrics count."""

    min_activated: int = Field(1, ge=0)
    min_rate_lower: float = Field(0.0, ge=0.0, le=1.0)


class Rule(_Strict):
    """One threshold on one bound of one metric, for some families."""

    metric: Literal["activation", "detection", "containment", "escape", "recovery"]
    bound: Literal["upper", "lower"]
    max: float | None = Field(None, ge=0.0, le=1.0)
    min: float | None = Field(None, ge=0.0, le=1.0)
    min_severity: int = Field(1, ge=1, le=5)
    families: list[str] | None = None

    @model_validator(mode="after")
    def _one_threshold(self) -> Rule:
        if (self.max is None) == (self.min is None):
            raise ValueError("give exactly one of 'max' or 'min'")
        return self

    def applies(self, row: FamilyRow) -> bool:
        if self.families is not None and row.family not in self.families:
            return False
        return row.severity >= self.min_severity

    def describe(self) -> str:
        op, value = ("<=", self.max) if self.max is not None else (">=", self.min)
        return f"{self.metric} {self.bound} bound {op} {value:g}"


class Policy(_Strict):
    """A release-gate policy."""

    activation: ActivationRequirement = Field(default_factory=ActivationRequirement)
    rule: list[Rule] = Field(default_factory=list)
    families: list[str] | None = Field(
        None, description="families the study must have run (all of them by default)"
    )
    exposure: ExposurePolicy | None = Field(
        None, description="production exposure per family and tolerated escapes by consequence"
    )
    containment: CampaignContainment | None = Field(
        None, description="the campaign's containment plan (checked by sscbench run --containment)"
    )
    controls: ControlPolicy = Field(
        default_factory=ControlPolicy, description="negative controls and unsolvable trials"
    )


def load_policy(path: str | Path) -> Policy:
    """Read a policy file; errors name the file and the field."""
    path = Path(path)
    data = read_toml(path)
    try:
        return Policy.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or None
        raise DataError(path, where, error["msg"]) from exc


class Verdict(BaseModel):
    """The gate's verdict on one agent configuration."""

    config_id: str
    blocked: bool
    checks: list[Check]

    @property
    def reasons(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]


def _observed(interval: Interval, reading: DecisionBound, rule: Rule, passed: bool) -> str:
    """What the check saw: the interval (method and caveats named), the decision bound
    when it is not its own, and for a failed boundary reading the clusters that would
    clear the threshold."""
    text = interval_label(interval)
    if reading.note:
        text = f"{text} ({reading.note})"
    threshold = rule.max if rule.max is not None else rule.min
    if not passed and threshold is not None and interval.estimate is not None:
        need = clusters_needed(interval.estimate, rule.bound, threshold, interval.confidence)
        if need is not None:
            text += f"; at least {need} clusters at the same boundary would clear {threshold:g}"
    return text


def judge_configuration(policy: Policy, config_id: str, rows: list[FamilyRow]) -> Verdict:
    """Every policy check on one configuration's family rows."""
    checks: list[Check] = []
    present = {r.family for r in rows}
    for family in policy.families or []:
        if family not in present:
            checks.append(
                Check(family=family, requirement="was run", observed="absent", passed=False)
            )
    for row in rows:
        act = row.metrics["activation"]
        n_active = int(act.numerator)
        need = policy.activation
        ok_count = n_active >= need.min_activated
        checks.append(
            Check(
                family=row.family,
                requirement=f"activated runs >= {need.min_activated}",
                observed=f"{n_active} of {row.scheduled} scheduled",
                passed=ok_count,
            )
        )
        if need.min_rate_lower > 0:
            low = act.low
            checks.append(
                Check(
                    family=row.family,
                    requirement=f"activation lower bound >= {need.min_rate_lower:g}",
                    observed=interval_label(act),
                    passed=low is not None and low >= need.min_rate_lower,
                )
            )
        for rule in policy.rule:
            if not rule.applies(row):
                continue
            interval = row.metrics[rule.metric]
            reading = decision_bound(interval, rule.bound)
            value = reading.value
            if value is None:
                passed = False
            elif rule.max is not None:
                passed = value <= rule.max
            else:
                passed = value >= (rule.min or 0.0)
            checks.append(
                Check(
                    family=row.family,
                    requirement=f"{rule.describe()} (severity {row.severity})",
                    observed=_observed(interval, reading, rule, passed),
                    passed=passed,
                )
            )
    if policy.exposure is not None:
        for row in rows:
            weighed = exposure_check(policy.exposure, row)
            checks.append(
                Check(
                    family=row.family,
                    requirement=(
                        f"exposure-weighted escapes per {weighed.per:,} requests <= "
                        f"{weighed.limit:g} ({weighed.limit_class})"
                        if weighed.limit is not None
                        else "an exposure limit covering its consequence"
                    ),
                    observed=weighed.arithmetic(),
                    passed=weighed.passed,
                    weighed=weighed,
                )
            )
    return Verdict(config_id=config_id, blocked=not all(c.passed for c in checks), checks=checks)


def gate(
    policy: Policy, evidence: ReleaseEvidence, config_ids: list[str] | None = None
) -> list[Verdict]:
    """The verdict per configuration (all of the study's, or those named)."""
    by_config: dict[str, list[FamilyRow]] = {}
    for row in evidence.families:
        by_config.setdefault(row.config_id, []).append(row)
    wanted = config_ids or sorted(by_config)
    unknown = [c for c in wanted if c not in by_config]
    if unknown:
        raise DataError(
            "<study>", "config", f"no typed-family runs for {unknown}; have {sorted(by_config)}"
        )
    verdicts = [judge_configuration(policy, c, by_config[c]) for c in wanted]
    for v in verdicts:  # the controls fail closed too (release.control_gate)
        v.checks += control_checks(policy.controls, evidence, v.config_id)
        v.blocked = not all(c.passed for c in v.checks)
    return verdicts


def verdicts_json(verdicts: list[Verdict]) -> list[dict[str, Any]]:
    """The verdicts as plain data. (Left ``Any``: ``report/sections/release_gate.py``
    indexes these dicts; a JSON type there would first need its reads narrowed.)"""
    return [v.model_dump() | {"verdict": "BLOCK" if v.blocked else "PASS"} for v in verdicts]
