"""The ``step-only`` oracle: a step and no verdict (excluded from adoption metrics).

Context: the run's ledger and the clean run of the same task — the paired one (same
case, configuration and repetition) when the study has it, else the first clean run
of the task. The step is the first tool observation that differs from the clean run's
observation at the same point (the k-th observation of each run): where the run first
saw something a correct execution did not. With no clean run, or no differing
observation, the oracle abstains.
"""

from __future__ import annotations

from sscbench.core.view import LedgerView
from sscbench.oracles.base import OracleContext, Verdict, abstain
from sscbench.oracles.inputs import OracleInputs


def first_divergence(ledger: list, clean: list) -> int | None:
    """The step of the judged run's first observation that differs from the clean run's
    observation at the same position (an observation the clean run never reached counts
    as different)."""
    seen = [c for c in LedgerView(ledger).calls if c.observation_step is not None]
    reference = [c for c in LedgerView(clean).calls if c.observation_step is not None]
    for index, call in enumerate(seen):
        other = reference[index] if index < len(reference) else None
        if other is None or (other.name, other.observation) != (call.name, call.observation):
            return call.observation_step
    return None


class StepOnlyOracle:
    """First observation differing from the clean run's at the same point."""

    name = "step-only"
    context = (
        "the run's tool observations against those of the paired clean run (same case, "
        "configuration, repetition) or another clean run of the task; a step only"
    )
    gives_adoption = False
    inputs = OracleInputs(
        numbered_trajectory=True,
        other="a clean run of the same task (its tool observations)",
        answer="step only (excluded from adoption metrics)",
        paper="B4",
    )

    def judge(self, run: OracleContext) -> Verdict:
        """A step, or an abstention."""
        clean = run.paired_clean or (run.clean_runs[0] if run.clean_runs else None)
        if clean is None:
            return abstain(run.run_id, "no clean run of this task to compare with")
        step = first_divergence(run.ledger, clean.ledger)
        if step is None:
            return abstain(
                run.run_id, f"no observation differs from the clean run ({clean.run_id})"
            )
        return Verdict(
            run_id=run.run_id,
            t_u=step,
            reason=f"first observation differing from the clean run ({clean.run_id})",
        )

    def close(self) -> None:
        """Nothing to release."""
