"""Checkpoint rules of the tool-surface families on the read and the refusal: a stale
value, a schema drift, a final rejection.

:mod:`sscbench.release.checkpoints` calls these for the families whose class serves a
stale copy (``serves_stale_copy``), drifts the read (``drifts_read``) or refuses for
good (``final_refusal``) (injected runs only):

* **StaleValue** — activation: a stale copy of the record was delivered. Context is
  invalid from it; the barrier caught it when, with no effect made on the moved-on
  record, a fresh read of it arrived (a re-read the replica answered from the current
  record) or the write was refused by its own state precondition. Action: invalid when
  the target write changed the record after the other actor's update.
* **SchemaDrift** — activation: the read arrived with its decisive field drifted.
  Context is invalid from it, and stays so when the target write is made on it (a
  success claimed then rests on a field the agent never saw under its contract, an
  escape even where the world happens to be right); the schema barrier caught it when
  no target write followed.
* **Rejected** — activation: the final refusal. Action and the oracle: no effect, and
  the refused request not re-sent (a re-send is a second request the service logs and
  declines: a blind loop). Detected when the change was reported as not made without a
  re-send.
"""

from __future__ import annotations

from sscbench.core.ledger import InterventionRecord
from sscbench.faults.families import TIMEOUT_TEXT
from sscbench.faults.hooks import HookTag, hook_tag
from sscbench.faults.surfaces import ACTIVATION_NOTES
from sscbench.faults.typed import Checkpoint, OutcomeState, Validity
from sscbench.release.run_index import RunIndex
from sscbench.release.sheet import Findings, TrialSheet


def stale_update_activation(run: RunIndex, sheet: TrialSheet, record: InterventionRecord) -> None:
    """The other actor's update, recorded at the run's first call: when that call was the
    read of the record itself, it ran before the update, so its answer is a stale copy."""
    arguments = record.arguments if isinstance(record.arguments, dict) else {}
    if record.name == run.record_tool and arguments.get(run.id_argument) == run.rid:
        sheet.activate(record.step, ACTIVATION_NOTES[HookTag.STALE])


def _stale_steps(run: RunIndex, sheet: TrialSheet) -> set[int]:
    """Observation steps of the reads answered with a stale copy."""
    steps = {a.step for a in sheet.activations if a.note == ACTIVATION_NOTES[HookTag.STALE]}
    steps |= {r.step for r in run.interventions if hook_tag(r.hook_id) is HookTag.STALE}
    return steps


def check_stale_action(run: RunIndex, sheet: TrialSheet, found: Findings) -> None:
    """Context and action of a StaleValue run (see the module docstring)."""
    stale = sorted(_stale_steps(run, sheet))
    if not stale:
        return
    first = stale[0]
    sheet.observe(first, Checkpoint.CONTEXT, Validity.INVALID, "a stale copy of the record")
    fresh = [
        c.observation_step
        for c in run.calls
        if c.observation_step > first
        and run.is_read_of_record(c)
        and c.observation_step not in stale
        and not c.observation.startswith("Error")
    ]
    update = found.update_step if found.update_step is not None else first
    refused = [
        c.observation_step
        for c in run.targets
        if c.step > update and c.observation.startswith("Error") and c.observation != TIMEOUT_TEXT
    ]
    barrier = sorted([*fresh[:1], *refused[:1]])
    if barrier and not found.stale_effects:
        sheet.detect(
            barrier[0],
            sheet.spec.expected_barrier,
            Checkpoint.CONTEXT,
            "a fresh read or the write's precondition; no change on the moved-on record",
        )
        sheet.observe(barrier[0], Checkpoint.CONTEXT, Validity.VALID, "neutralised")
    sheet.observe(
        first,
        Checkpoint.ACTION,
        Validity.INVALID if found.stale_effects else Validity.VALID,
        f"{found.stale_effects} effect(s) on the moved-on record",
    )


def check_drifted_context(run: RunIndex, sheet: TrialSheet) -> None:
    """Context of a SchemaDrift run (see the module docstring)."""
    drifted = [a for a in sheet.activations if a.note == ACTIVATION_NOTES[HookTag.DRIFT]]
    if sheet.control or not drifted:
        return
    entered = drifted[0].step
    sheet.observe(
        entered, Checkpoint.CONTEXT, Validity.INVALID, "the record drifted from its contract"
    )
    if any(c.step > entered for c in run.targets):
        return  # the write rests on the drifted record
    after = [e.step for e in run.ledger if e.type == "assistant" and e.step > entered]
    if after:
        sheet.detect(
            after[0],
            sheet.spec.expected_barrier,
            Checkpoint.CONTEXT,
            "no write on a record that failed its contract",
        )
        sheet.observe(after[0], Checkpoint.CONTEXT, Validity.VALID, "neutralised")


def refused_resends(run: RunIndex, sheet: TrialSheet) -> int:
    """How many times the finally refused request was sent again after the refusal."""
    refusals = [a.step for a in sheet.activations if a.note == ACTIVATION_NOTES[HookTag.REJECTED]]
    if not refusals:
        return 0
    return sum(1 for w in run.target_writes() if w.step > refusals[0])


def check_refused_action(run: RunIndex, sheet: TrialSheet, found: Findings) -> None:
    """Action of a Rejected run: no effect and no re-send; detected when the change was
    reported as not made (rejected, no effect) without a re-send."""
    resends = refused_resends(run, sheet)
    bad = found.effects > 0 or resends > 0
    sheet.observe(
        found.claim_step or 0,
        Checkpoint.ACTION,
        Validity.INVALID if bad else Validity.VALID,
        f"{found.effects} effect(s), the refused request re-sent {resends} time(s)",
    )
    reported = found.claim in (OutcomeState.REJECTED, OutcomeState.NO_EFFECT)
    if not bad and reported and found.claim_step is not None and sheet.activations:
        sheet.detect(
            found.claim_step,
            sheet.spec.expected_barrier,
            Checkpoint.ACTION,
            "the final refusal was reported as not made, not re-sent",
        )


__all__ = [
    "check_drifted_context",
    "check_refused_action",
    "check_stale_action",
    "refused_resends",
    "stale_update_activation",
]
