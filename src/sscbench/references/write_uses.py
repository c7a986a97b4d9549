"""WriteEffect's use extraction: the entry point of the ``WriteEffectLookFor`` kind
(:mod:`sscbench.references.lookfor`).

Texts after the attempt that speak of its outcome or its new flights, in their sentences
about the reservation (:mod:`sscbench.references.write_text`), checks of it, and calls
whose arguments derive from the claimed effect or retry it
(:mod:`sscbench.references.write_derived`). Once the request has really committed (a
later matching write acknowledged, the suppression firing once, or a read showing the
new flights), a success claim is true: the hit is marked ``made_true``.
"""

from __future__ import annotations

from sscbench.core.values import UseCandidate
from sscbench.core.view import LedgerView
from sscbench.references.cues import VERIFY_CUE
from sscbench.references.lookfor import WriteEffectLookFor
from sscbench.references.reservations import reservations_shown
from sscbench.references.text import agent_texts
from sscbench.references.write_derived import derived_calls, made_true
from sscbench.references.write_text import (
    announces_read,
    change_of,
    change_scope,
    read_outcome,
    written_before,
)


def find_write_effect_uses(
    look_for: WriteEffectLookFor, view: LedgerView, fault_step: int
) -> list[UseCandidate]:
    """Texts after the attempt saying it was made (or naming its new flights or its
    charge), saying it was not, or checking it; then the calls derived from the claimed
    effect — in step order."""
    out: list[UseCandidate] = []
    rid = look_for.reservation_id
    true_at = made_true(look_for, view, fault_step)
    change = change_of(look_for, view, fault_step)
    for step, channel, content in agent_texts(view, fault_step):
        shown = reservations_shown(view, step)
        text = change_scope(content, rid, shown, written_before(view, step))
        said = read_outcome(text, change, VERIFY_CUE)
        if channel == "message" and announces_read(view, step, rid, said):
            continue  # narrates the retrieval it makes: no use of its own
        # an amount stated after the agent said the change failed is its own account
        # (the price it quoted), as its later calls are: no longer the claimed charge
        reported = any(c.mentions_authoritative for c in out)
        derived = said.names_new or (said.names_amount and not reported)
        if (said.about and (said.success or derived)) or said.failure or said.checks:
            detail = {
                "text": text,
                "made_true": true_at is not None and step > true_at,
                "claims": said.success or derived,
            }
            out.append(
                UseCandidate(
                    step,
                    channel,
                    text[:200],
                    (said.success or derived) and not said.failure,
                    said.failure,
                    detail,
                )
            )
    # once the agent has said the change did not take effect, its later calls are
    # made knowing that: their arguments no longer derive from the claimed effect
    told = [c.step for c in out if c.mentions_authoritative]
    until = min([t for t in (true_at, *told) if t is not None], default=None)
    out.extend(derived_calls(look_for, view, fault_step, until, true_at))
    return sorted(out, key=lambda c: c.step)
