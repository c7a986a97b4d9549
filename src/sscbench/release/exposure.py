"""The release decision weighed by exposure: how often each fault occurs in production,
how often it would escape, and what an escape costs — kept as separate numbers.

A policy may give, per family, its **exposure**: the probability that the fault occurs
on one production request (from incident data, provider SLOs, …). The gate then reads
the study's **escape** upper bound for the family (the same decision bound the other
rules read, never the average; a 0/n interval over repeated runs counts each cluster
once, so no escape on a few tasks is never read as zero expected escapes) and computes the **frequency** of escapes in
production::

    expected escapes per N requests = exposure × escape upper bound × N

The **consequence** is a second number beside it, never blended into the first: the
family's severity (1–5) and whether its effect is reversible (the fault's typed
description says whether a valid recovery path exists). Limits are set per consequence
class — the first ``[[exposure.limit]]`` that applies to the family's severity and
reversibility gives the tolerated escapes per N requests. Example::

    [exposure]
    per = 1000000                      # show the arithmetic per million requests
    [exposure.rate]                    # P(fault occurs on a production request)
    TimeoutAfterCommit = 0.001
    IdentityRebind = 0.00001
    [[exposure.limit]]                 # irreversible and severe: almost never
    min_severity = 5
    reversible = false
    max_escapes = 0.1
    [[exposure.limit]]                 # anything else
    max_escapes = 100

Fail closed: a family the study ran without an exposure rate, with no limit covering
its consequence, or with an unobserved escape bound blocks.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sscbench.analysis.decision import clusters_needed, decision_bound
from sscbench.analysis.stats import Interval
from sscbench.faults.catalogue import spec_for
from sscbench.release.evidence import FamilyRow


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExposureLimit(_Strict):
    """Tolerated escapes per ``per`` production requests for one consequence class."""

    min_severity: int = Field(1, ge=1, le=5)
    reversible: bool | None = Field(None, description="true / false; absent: either")
    max_escapes: float = Field(ge=0.0)

    def applies(self, severity: int, reversible: bool) -> bool:
        """Whether a family of this severity and reversibility falls in the class."""
        if self.reversible is not None and self.reversible != reversible:
            return False
        return severity >= self.min_severity

    def describe(self) -> str:
        """The class in words, e.g. ``severity >= 5, irreversible``."""
        kind = {None: "", True: ", reversible", False: ", irreversible"}[self.reversible]
        return f"severity >= {self.min_severity}{kind}"


class ExposurePolicy(_Strict):
    """Per-family exposure and the tolerated production escape frequency by consequence."""

    per: int = Field(1_000_000, ge=1, description="production requests the arithmetic is per")
    rate: dict[str, float] = Field(
        default_factory=dict, description="family -> P(the fault occurs on a request)"
    )
    limit: list[ExposureLimit] = Field(default_factory=list)

    @field_validator("rate")
    @classmethod
    def _probabilities(cls, value: dict[str, float]) -> dict[str, float]:
        for family, rate in value.items():
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"exposure rate of {family} must be in [0, 1], got {rate}")
        return value


class ExposureCheck(BaseModel):
    """One family's exposure-weighted check: frequency and consequence side by side."""

    family: str
    exposure: float | None  # P(fault occurs on a production request)
    escape_upper: float | None  # the study's escape upper bound
    expected_escapes: float | None  # exposure × escape_upper × per
    per: int
    severity: int
    reversible: bool
    limit: float | None
    limit_class: str | None
    passed: bool
    caveat: str = ""  # the escape interval's caveats, or why the bound read is not its own
    clusters_needed: int | None = None  # clusters without an escape that would pass

    @property
    def consequence(self) -> str:
        """The consequence in words (a second number, not blended into the frequency)."""
        return f"severity {self.severity}, {'reversible' if self.reversible else 'irreversible'}"

    def arithmetic(self) -> str:
        """The computation behind the verdict, in one line."""
        if self.exposure is None:
            return f"no exposure rate given for {self.family}; consequence {self.consequence}"
        if self.escape_upper is None:
            return (
                f"exposure {self.exposure:g}/request × escape upper bound unobserved "
                f"(no activated run); consequence {self.consequence}"
            )
        freq = (
            f"exposure {self.exposure:g}/request × escape upper bound {self.escape_upper:.3g} "
            f"× {self.per:,} requests = {self.expected_escapes:.3g} escapes per {self.per:,}"
        )
        if self.caveat:
            freq += f" (⚠ escape bound: {self.caveat})"
        if self.limit is None:
            return f"{freq}; consequence {self.consequence}: no limit covers it"
        op = "<=" if self.passed else ">"
        text = (
            f"{freq} {op} limit {self.limit:g} ({self.limit_class}); consequence {self.consequence}"
        )
        if self.clusters_needed is not None:
            text += f"; at least {self.clusters_needed:,} clusters without an escape would pass"
        return text


def exposure_check(policy: ExposurePolicy, row: FamilyRow) -> ExposureCheck:
    """The exposure-weighted check of one family row (fails closed on anything missing)."""
    spec = spec_for(row.family)
    reversible = spec.recoverable
    exposure = policy.rate.get(row.family)
    interval = row.metrics["escape"]
    reading = decision_bound(interval, "upper")
    escape = reading.value
    limit = next((lim for lim in policy.limit if lim.applies(row.severity, reversible)), None)
    expected = (
        exposure * escape * policy.per if exposure is not None and escape is not None else None
    )
    passed = expected is not None and limit is not None and expected <= limit.max_escapes
    return ExposureCheck(
        family=row.family,
        exposure=exposure,
        escape_upper=escape,
        expected_escapes=None if expected is None else round(expected, 12),
        per=policy.per,
        severity=row.severity,
        reversible=reversible,
        limit=limit.max_escapes if limit is not None else None,
        limit_class=limit.describe() if limit is not None else None,
        passed=passed,
        caveat=reading.note or ", ".join(interval.caveats),
        clusters_needed=_clusters_needed(interval, exposure, limit, policy.per, passed),
    )


def _clusters_needed(
    interval: Interval,
    exposure: float | None,
    limit: ExposureLimit | None,
    per: int,
    passed: bool,
) -> int | None:
    """For a blocked family with no escape: how many clusters without one would pass."""
    if passed or exposure is None or not exposure or limit is None or interval.estimate != 0.0:
        return None
    return clusters_needed(0.0, "upper", limit.max_escapes / (exposure * per), interval.confidence)


__all__ = ["ExposureCheck", "ExposureLimit", "ExposurePolicy", "exposure_check"]
