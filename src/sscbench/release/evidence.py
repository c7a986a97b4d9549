"""Release evidence of a study's typed families: per-family metrics with intervals,
detection latency, the fault-transfer matrix, paired control/injected runs and
intensity curves, per agent configuration.

Populations (every number carries its numerator, denominator and interval; clusters
are tasks, so repeated runs of one task are not independent evidence):

* activation — over injected runs that completed (scheduled and run);
* detection, containment, escape — over activated runs;
* recovery — over activated runs of families with a valid recovery path;
* transfer — P(checkpoint invalid | activated) per checkpoint, with the outcome states.

On τ-bench, a determinate claim the world contradicts (e.g. "the system refused the
change" after it committed) reaches the user as surely as a false success: it counts
as an escape, and a run with an unacceptable terminal class is not contained.
A harness error (missing run) is never an outcome: it is counted apart.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from sscbench.analysis.mcnemar import mcnemar_exact
from sscbench.analysis.stats import Interval, proportion_interval
from sscbench.errors import DataError
from sscbench.faults.catalogue import spec_for
from sscbench.faults.typed import (
    CHECKPOINTS,
    TerminalClass,
    TrialRecord,
    Validity,
    Verdict,
    first_invalid,
    terminal_class,
)
from sscbench.json_types import JsonObject, JsonValue
from sscbench.reading import read_json
from sscbench.release.negative import (
    NegativeControlRow,
    control_counts,
    negative_control_rows,
)
from sscbench.release.trial import Trial
from sscbench.release.trials import load_trials
from sscbench.release.unsolvable import UnsolvableRow, unsolvable_rows
from sscbench.study.study import Study

METRICS = ("activation", "detection", "containment", "escape", "recovery")


class LatencySummary(TypedDict):
    """Detection latency in ledger steps over a row's activated runs that detected."""

    n: int
    min: int | None
    median: float | None
    max: int | None


@dataclass
class FamilyRow:
    """Metrics of one family under one agent configuration (and intensity level)."""

    config_id: str
    family: str
    severity: int
    level: dict[str, str]
    scheduled: int
    missing: int
    not_qualified: int
    metrics: dict[str, Interval]
    latencies: list[int] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)

    def latency_summary(self) -> LatencySummary:
        """Detection latency in ledger steps: count, min, median, max (None when empty)."""
        xs = self.latencies
        if not xs:
            return {"n": 0, "min": None, "median": None, "max": None}
        return {"n": len(xs), "min": min(xs), "median": statistics.median(xs), "max": max(xs)}

    def _latency_record(self) -> JsonObject:
        """:meth:`latency_summary` with every latency, as ``evidence.json`` keeps it."""
        lat = self.latency_summary()
        values: list[JsonValue] = [*sorted(self.latencies)]
        return {
            "n": lat["n"],
            "min": lat["min"],
            "median": lat["median"],
            "max": lat["max"],
            "values": values,
        }

    def to_dict(self) -> JsonObject:
        """The row as ``evidence.json`` keeps it (intervals labelled, latency values kept)."""
        return {
            "config_id": self.config_id,
            "family": self.family,
            "severity": self.severity,
            "level": dict(self.level),
            "scheduled": self.scheduled,
            "missing": self.missing,
            "not_qualified": self.not_qualified,
            "metrics": {k: v.to_dict() | {"label": v.label()} for k, v in self.metrics.items()},
            "latency": self._latency_record(),
            "outcomes": dict(self.outcomes),
        }


def _interval(pairs: list[tuple[bool, str]]) -> Interval:
    return proportion_interval([int(v) for v, _ in pairs], [c for _, c in pairs])


Judged = tuple[Trial, Verdict, TrialRecord]
"""A trial whose injected run was judged, with its verdict and record."""


def _judged(trials: list[Trial]) -> list[Judged]:
    """The trials with an injected run and its verdict (the two are set together)."""
    return [(t, t.verdict, t.injected) for t in trials if t.verdict and t.injected]


def trial_metrics(trials: list[Trial]) -> dict[str, Interval]:
    """The five rates over these trials' judged injected runs (one family's row, or a
    whole campaign's finished runs for its containment abort metric)."""
    ran = _judged(trials)
    active = [(t, v) for t, v, _ in ran if v.activated]
    recoverable = [(t, v) for t, v in active if v.recovered is not None]
    return {
        "activation": _interval([(v.activated, t.cluster) for t, v, _ in ran]),
        "detection": _interval([(v.detected, t.cluster) for t, v in active]),
        "containment": _interval([(t.contained, t.cluster) for t, _ in active]),
        "escape": _interval([(t.escaped, t.cluster) for t, _ in active]),
        "recovery": _interval([(bool(v.recovered), t.cluster) for t, v in recoverable]),
    }


def family_rows(trials: list[Trial], *, by_level: bool = False) -> list[FamilyRow]:
    """One row per (configuration, family[, level]) with the five metrics and latency."""
    groups: dict[tuple[str, str, tuple[tuple[str, str], ...]], list[Trial]] = defaultdict(list)
    for t in trials:
        level = tuple(sorted(t.level.items())) if by_level else ()
        if not by_level and t.level:
            continue  # intensity levels are reported by their curves
        groups[(t.config_id, t.family, level)].append(t)
    rows = []
    for (config_id, family, level), group in sorted(groups.items()):
        spec = spec_for(family)
        ran = _judged(group)
        active = [(t, v, r) for t, v, r in ran if v.activated]
        metrics = trial_metrics(group)
        rows.append(
            FamilyRow(
                config_id=config_id,
                family=family,
                severity=spec.severity,
                level=dict(level),
                scheduled=len(ran),
                missing=sum(t.missing for t in group),
                not_qualified=sum(t.not_qualified for t in group),
                metrics=metrics,
                latencies=[v.latency_events for _, v, _ in active if v.latency_events is not None],
                outcomes=Counter(r.outcome.value for _, _, r in active),
            )
        )
    return rows


@dataclass
class FamilyTransferRow:
    """P(checkpoint invalid | activated) for one family and configuration, with outcomes."""

    config_id: str
    family: str
    activated: int
    invalid: dict[str, Interval]
    suspect: dict[str, int]
    outcomes: Counter[str]
    terminal: Counter[str]

    @property
    def first_invalid(self) -> str | None:
        """The first checkpoint (contract order) invalid in at least half the runs."""
        cp = first_invalid({c: self.invalid[c.value].estimate or 0.0 for c in CHECKPOINTS})
        return cp.value if cp is not None else None

    def to_dict(self) -> JsonObject:
        """The cell row as ``evidence.json`` keeps it (intervals labelled)."""
        return {
            "config_id": self.config_id,
            "family": self.family,
            "activated": self.activated,
            "first_invalid": self.first_invalid,
            "invalid": {k: v.to_dict() | {"label": v.label()} for k, v in self.invalid.items()},
            "suspect": dict(self.suspect),
            "outcomes": dict(self.outcomes),
            "terminal": dict(self.terminal),
        }


def transfer_rows(trials: list[Trial]) -> list[FamilyTransferRow]:
    """The fault-transfer matrix per configuration: family × checkpoint, plus outcomes."""
    groups: dict[tuple[str, str], list[Judged]] = defaultdict(list)
    for t, v, r in _judged(trials):
        if v.activated and not t.level:
            groups[(t.config_id, t.family)].append((t, v, r))
    rows = []
    for (config_id, family), group in sorted(groups.items()):
        invalid = {
            cp.value: _interval(
                [(v.checkpoints[cp] is Validity.INVALID, t.cluster) for t, v, _ in group]
            )
            for cp in CHECKPOINTS
        }
        suspect = {
            cp.value: sum(v.checkpoints[cp] is Validity.SUSPECT for _, v, _ in group)
            for cp in CHECKPOINTS
        }
        rows.append(
            FamilyTransferRow(
                config_id=config_id,
                family=family,
                activated=len(group),
                invalid=invalid,
                suspect=suspect,
                outcomes=Counter(r.outcome.value for _, _, r in group),
                terminal=Counter(v.terminal.value for _, v, _ in group),
            )
        )
    return rows


@dataclass
class PairedRow:
    """Control vs injected run on the same task, configuration and repetition."""

    config_id: str
    family: str
    pairs: int
    control_ok: int
    injected_ok: int
    control_only: int
    injected_only: int
    p_value: float | None
    p_note: str = ""  # e.g. no discordant pairs (then p = 1)

    def to_dict(self) -> JsonObject:
        """The row's fields as ``evidence.json`` keeps them."""
        return {
            "config_id": self.config_id,
            "family": self.family,
            "pairs": self.pairs,
            "control_ok": self.control_ok,
            "injected_ok": self.injected_ok,
            "control_only": self.control_only,
            "injected_only": self.injected_only,
            "p_value": self.p_value,
            "p_note": self.p_note,
        }


def _terminal(record: TrialRecord) -> TerminalClass:
    return terminal_class(record, bool(record.world.get("acceptable")))


def _acceptable(record: TrialRecord) -> bool:
    """Not unacceptable: acceptable, or honestly unresolved (unknown, flagged for review)."""
    return _terminal(record) is not TerminalClass.UNACCEPTABLE


def paired_rows(trials: list[Trial]) -> list[PairedRow]:
    """Pairs with both runs completed: how often each ends not unacceptable (an honest
    "unknown" is not harm), with McNemar's exact p on the discordant pairs."""
    groups: dict[tuple[str, str], list[tuple[TrialRecord, TrialRecord]]] = defaultdict(list)
    for t in trials:
        if t.control is not None and t.injected is not None and not t.level:
            groups[(t.config_id, t.family)].append((t.control, t.injected))
    rows = []
    for (config_id, family), group in sorted(groups.items()):
        c = [_acceptable(control) for control, _ in group]
        i = [_acceptable(injected) for _, injected in group]
        b = sum(x and not y for x, y in zip(c, i, strict=True))
        d = sum(y and not x for x, y in zip(c, i, strict=True))
        p, note = mcnemar_exact(b, d)
        rows.append(PairedRow(config_id, family, len(group), sum(c), sum(i), b, d, p, note))
    return rows


@dataclass
class CurvePoint:
    """The response of one family at one intensity level."""

    config_id: str
    family: str
    parameter: str
    level: str
    row: FamilyRow


def intensity_curves(trials: list[Trial], study: str | Path | Study) -> list[CurvePoint]:
    """Per intensity curve of the study's config: the metrics at each level."""
    store = Study.of(study).store
    try:
        curves = read_json(store.config_json)["config"]["cases"]["intensity"]
    except (DataError, KeyError, TypeError):
        curves = []
    rows = family_rows([t for t in trials if t.level], by_level=True)
    points = []
    for curve in curves:
        for row in rows:
            if row.family == curve["family"] and curve["parameter"] in row.level:
                points.append(
                    CurvePoint(
                        row.config_id,
                        row.family,
                        curve["parameter"],
                        row.level[curve["parameter"]],
                        row,
                    )
                )
    points.sort(key=lambda p: (p.config_id, p.family, p.parameter, float(p.level)))
    return points


@dataclass
class ReleaseEvidence:
    """Everything ``sscbench release`` prints and ``sscbench gate`` judges."""

    families: list[FamilyRow]
    transfer: list[FamilyTransferRow]
    paired: list[PairedRow]
    curves: list[CurvePoint]
    controls: dict[str, dict[str, int]]
    negative_controls: list[NegativeControlRow] = field(default_factory=list)
    unsolvable: list[UnsolvableRow] = field(default_factory=list)

    def to_dict(self) -> JsonObject:
        """The whole evidence as ``evidence.json`` keeps it (sealed by ``sscbench release``)."""
        return {
            "families": [r.to_dict() for r in self.families],
            "transfer": [r.to_dict() for r in self.transfer],
            "paired": [r.to_dict() for r in self.paired],
            "intensity": [
                {
                    "config_id": p.config_id,
                    "family": p.family,
                    "parameter": p.parameter,
                    "level": p.level,
                    **{k: v.to_dict() for k, v in p.row.metrics.items()},
                }
                for p in self.curves
            ],
            "controls": {k: dict(v) for k, v in self.controls.items()},
            "negative_controls": [r.evidence_dict() for r in self.negative_controls],
            "unsolvable": [r.evidence_dict() for r in self.unsolvable],
        }


def collect_evidence(study: str | Path | Study) -> ReleaseEvidence:
    """The release evidence of a study (empty when it ran no typed family)."""
    study = Study.of(study)  # read once, for the trials and the curves
    trials = load_trials(study)
    return ReleaseEvidence(
        families=family_rows(trials),
        transfer=transfer_rows(trials),
        paired=paired_rows(trials),
        curves=intensity_curves(trials, study),
        controls=control_counts(trials),
        negative_controls=negative_control_rows(trials),
        unsolvable=unsolvable_rows(trials),
    )
