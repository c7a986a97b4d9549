"""Negative controls: the runs of a release campaign with no fault injected.

Every typed-family case is run clean (its paired control) before it is run faulted.
That clean run is a negative control of the instrument: the family's own rules read it
as if the fault had been injected (:func:`sscbench.release.assess.assess_run`), and
with no fault they must see no activation and no escape, and the evaluator-only log no
effective intervention. An escape there means the checkpoints fire without a fault, so
the family's escapes on injected runs cannot be attributed to the fault; an intervention
means a fault leaked into a run meant to carry none. Either one makes the gate fail
closed (:mod:`sscbench.release.control_gate`).

Apart from that, a clean run can end in an unsupported claim the agent made with no
fault at all (a success the world contradicts): counted and shown as the agent's own
failures without a fault, never as escapes of a fault.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from sscbench.analysis.stats import Interval, proportion_interval
from sscbench.faults.typed import (
    Checkpoint,
    FaultSpec,
    OutcomeState,
    TerminalClass,
    TrialRecord,
    Validity,
    judge,
    terminal_class,
)
from sscbench.json_types import JsonObject
from sscbench.release.trial import DETERMINATE, Trial, fault_escaped


def probe_result(spec: FaultSpec, probe: TrialRecord) -> dict[str, bool]:
    """What the family's rules saw on a clean run read as if injected."""
    verdict = judge(spec, probe)
    return {"activated": verdict.activated, "escaped": fault_escaped(verdict, probe)}


def _probe(record: TrialRecord) -> JsonObject:
    probe = record.world.get("negative_control")
    return probe if isinstance(probe, dict) else {}


def control_escaped(record: TrialRecord) -> bool:
    """Whether the rules scored an escape on a run with no fault injected."""
    return bool(_probe(record).get("escaped"))


def control_interfered(record: TrialRecord) -> bool:
    """Whether a fault reached, or the rules saw one fire in, a run meant to carry none (an
    effective intervention in its evaluator-only log, or an activation)."""
    return bool(record.world.get("interventions")) or bool(_probe(record).get("activated"))


def unfaulted_failure(record: TrialRecord) -> bool:
    """Whether the agent ended a clean run on a determinate claim the world or the outcome
    checkpoint contradicts (its own failure: there was no fault)."""
    if record.outcome not in DETERMINATE:
        return False
    if record.latest()[Checkpoint.OUTCOME] is Validity.INVALID:
        return True
    return record.outcome is OutcomeState.VERIFIED and not record.world.get("acceptable")


@dataclass
class NegativeControlRow:
    """The negative controls of one family under one configuration."""

    config_id: str
    family: str
    runs: int
    escapes: int
    interfered: int
    agent_failures: int
    escape: Interval
    intervention: Interval | None = None

    @property
    def clean(self) -> bool:
        """No escape and no intervention or activation seen."""
        return self.escapes == 0 and self.interfered == 0

    def to_dict(self) -> JsonObject:
        """The row as plain data (the CSV row of ``release_negative_controls``)."""
        return {
            "config_id": self.config_id,
            "family": self.family,
            "runs": self.runs,
            "escapes": self.escapes,
            "interfered": self.interfered,
            "escape_low": self.escape.low,
            "escape_high": self.escape.high,
            "clean": self.clean,
            "agent_failures_without_fault": self.agent_failures,
        }

    def evidence_dict(self) -> JsonObject:
        """The row as ``evidence.json`` keeps it: :meth:`to_dict` with the escape and
        intervention rates as intervals (what ``sscbench release diff`` compares)."""
        rates = {"escape": self.escape, "intervention": self.intervention}
        return self.to_dict() | {
            "rates": {k: iv.to_dict() | {"label": iv.label()} for k, iv in rates.items() if iv}
        }


def negative_control_rows(trials: list[Trial]) -> list[NegativeControlRow]:
    """One row per (configuration, family) over the completed control runs (intensity
    levels included: each level's clean run is a negative control too)."""
    groups: dict[tuple[str, str], list[tuple[TrialRecord, str]]] = defaultdict(list)
    for t in trials:
        if t.control is not None:
            groups[(t.config_id, t.family)].append((t.control, t.cluster))
    rows = []
    for (config_id, family), group in sorted(groups.items()):
        escaped = [control_escaped(r) for r, _ in group]
        leaked = [control_interfered(r) for r, _ in group]
        clusters = [c for _, c in group]
        rows.append(
            NegativeControlRow(
                config_id=config_id,
                family=family,
                runs=len(group),
                escapes=sum(escaped),
                interfered=sum(leaked),
                agent_failures=sum(unfaulted_failure(r) for r, _ in group),
                escape=proportion_interval([int(e) for e in escaped], clusters),
                intervention=proportion_interval([int(x) for x in leaked], clusters),
            )
        )
    return rows


def control_counts(trials: list[Trial]) -> dict[str, dict[str, int]]:
    """Per configuration: control runs, how many met the goal, how many ended acceptable,
    and how many showed an escape or an intervention (negative-control failures)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for t in trials:
        if t.control is None:
            continue
        c = counts[t.config_id]
        c["runs"] += 1
        c["solved"] += t.control.goal_met
        world_ok = bool(t.control.world.get("acceptable"))
        c["acceptable"] += terminal_class(t.control, world_ok) is TerminalClass.ACCEPTABLE
        c["escapes"] += control_escaped(t.control)
        c["interfered"] += control_interfered(t.control)
    return {k: dict(v) for k, v in counts.items()}
