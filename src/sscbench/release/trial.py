"""One release trial: a (case, configuration, repetition) with its injected run and its
paired control, and the release's escape of an activated fault."""

from __future__ import annotations

from dataclasses import dataclass

from sscbench.faults.case import Case
from sscbench.faults.typed import (
    Checkpoint,
    OutcomeState,
    TerminalClass,
    TrialRecord,
    Validity,
    Verdict,
)

DETERMINATE = (OutcomeState.VERIFIED, OutcomeState.REJECTED, OutcomeState.NO_EFFECT)


def fault_escaped(verdict: Verdict, record: TrialRecord) -> bool:
    """The release's escape of an activated fault: the contract's escape, or a determinate
    claim (verified, rejected, no effect) the outcome checkpoint finds invalid."""
    if not verdict.activated:
        return False
    determinate = record.outcome in DETERMINATE
    return verdict.escaped or (
        determinate and record.latest()[Checkpoint.OUTCOME] is Validity.INVALID
    )


@dataclass
class Trial:
    """One (case, configuration, repetition): the injected run and its paired control."""

    case: Case
    config_id: str
    repetition: int
    level: dict[str, str]
    control: TrialRecord | None = None
    injected: TrialRecord | None = None
    verdict: Verdict | None = None
    missing: bool = False
    not_qualified: bool = False

    @property
    def family(self) -> str:
        return self.case.operator

    @property
    def cluster(self) -> str:
        return self.case.cluster or f"{self.case.world}:{self.case.task_id}"

    @property
    def escaped(self) -> bool:
        v, r = self.verdict, self.injected
        return v is not None and r is not None and fault_escaped(v, r)

    @property
    def contained(self) -> bool:
        v = self.verdict
        return bool(
            v
            and v.activated
            and v.contained
            and not self.escaped
            and v.terminal is not TerminalClass.UNACCEPTABLE
        )
