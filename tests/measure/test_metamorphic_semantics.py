"""Metamorphic checks that restate what a run's agent said in another form: every measured
quantity must stay the same (the mechanism of :mod:`test_metamorphic`, on the same
corpora and baseline).

* **a handoff repeating the last message** — a run whose last agent turn is a text
  message gets a ``transfer_to_human_agents`` call after it whose summary is that text: a
  handoff is read like a message (Def. 3.2), so it takes the stance the message took
  and adds no earlier use;
* **a category list restated as a count** — a PaySource message that settles the
  method's category (v′ or the true one, not as a hypothetical) gets a sentence counting
  the user's methods by category, the method counted under the category the message
  gave it, the others under the categories the ledger showed them with ("For reference,
  you have 2 credit cards, 1 gift card and 2 certificates on file."). The count binds to
  the method only through the profile the agent was shown, and restates what the
  message already says.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from sscbench.core.ledger import AssistantEvent, ToolCall, ToolEvent
from sscbench.core.view import LedgerView
from sscbench.faults.registry import get_operator
from sscbench.measure.reconstruct import fault_step, reconstruct_from_fault
from sscbench.measure.study import measure_run
from sscbench.references.payment_filing import profile_ids
from sscbench.references.payments import payment_methods
from sscbench.study.ledgers import read_ledger, read_run_evaluator
from test_metamorphic import QUANTITIES, baseline, corpora  # noqa: F401  (fixtures)

HANDOFF = "transfer_to_human_agents"
PLURAL = {"credit_card": "credit cards", "gift_card": "gift cards", "certificate": "certificates"}
SINGULAR = {"credit_card": "credit card", "gift_card": "gift card", "certificate": "certificate"}


def handoff_repeating_last_message(ledger: list, case: Any, evaluator: list) -> list | None:
    """The ledger with a handoff after its last agent turn repeating that turn's text, or None
    when the last agent turn is not a plain text message."""
    last = max((e for e in ledger if isinstance(e, AssistantEvent)), key=lambda e: e.step)
    if last.tool_calls or not (last.content or "").strip():
        return None
    step = len(ledger)
    call = ToolCall(
        id=f"handoff{step}", name=HANDOFF, arguments=json.dumps({"summary": last.content})
    )
    return [
        *ledger,
        AssistantEvent(step=step, content=None, tool_calls=(call,)),
        ToolEvent(step=step + 1, tool_call_id=call.id, name=HANDOFF, content="Transfer successful"),
    ]


SETTLED = {"treats the injected value as the fact": "injected", "settles on the true value": "true"}


def _count_sentence(view: LedgerView, step: int, contract: Any, said: str) -> str | None:
    """The count restating that the method has category ``said`` (None when the others'
    categories are not settled or the method is not in the profile)."""
    pid = contract.target.entity_id
    profile = profile_ids(view, step)
    methods = payment_methods(view, step, bool(contract.sufficiency.semantics))
    if pid not in profile:
        return None
    counts: dict[str, int] = {}
    for other in profile:
        cats = {said} if other == pid else set(methods[other].categories)
        if len(cats) != 1:
            return None
        (cat,) = cats
        counts[cat] = counts.get(cat, 0) + 1
    parts = [f"{n} {(PLURAL if n > 1 else SINGULAR)[c]}" for c, n in sorted(counts.items())]
    listed = ", ".join(parts[:-1]) + f" and {parts[-1]}" if len(parts) > 1 else parts[0]
    return f"For reference, you have {listed} on file."


def count_restating_the_category(ledger: list, case: Any, evaluator: list) -> list | None:
    """The ledger with each plain text message that settles the method's category followed
    by a count of the profile restating it; None when no message qualifies."""
    contract = case.contract
    if case.operator != "PaySource" or contract is None:
        return None
    t_f = fault_step(ledger, evaluator, contract.fault_interaction.tool)
    if t_f is None:
        return None
    view = LedgerView(ledger)
    _, uses, _ = reconstruct_from_fault(get_operator("PaySource"), contract, view, t_f)
    plain = {e.step: e for e in ledger if isinstance(e, AssistantEvent) and not e.tool_calls}
    added: dict[int, str] = {}
    for use in uses:
        c = use.candidate
        side = SETTLED.get(use.reason)
        if c.channel != "message" or c.step not in plain or side is None:
            continue
        said = contract.injected_value if side == "injected" else contract.authoritative_value
        sentence = _count_sentence(view, c.step, contract, said)
        if sentence:
            added[c.step] = sentence
    if not added:
        return None
    return [
        e.model_copy(update={"content": f"{e.content}\n\n{added[e.step]}"})
        if e.step in added
        else e
        for e in ledger
    ]


REWRITES: dict[str, Callable[[list, Any, list], list | None]] = {
    "handoff": handoff_repeating_last_message,
    "count": count_restating_the_category,
}


@pytest.mark.parametrize(("name", "at_least"), [("handoff", 20), ("count", 5)])
def test_restating_in_another_form_leaves_every_quantity_unchanged(
    corpora,  # noqa: F811
    baseline,  # noqa: F811
    name,
    at_least,
):
    """Each restatement, exhaustively over the corpora, listing every run it moves; it
    must apply to enough runs that the check means something."""
    moved, applied = [], 0
    for index, (study, cases, runs) in enumerate(corpora):
        entries = {e.run_id: e for e in study.read_index()}
        for run_id in runs:
            case = cases[entries[run_id].case_id]
            ledger = read_ledger(study, run_id)
            evaluator = read_run_evaluator(study, run_id)
            rewritten = REWRITES[name](ledger, case, evaluator)
            if rewritten is None:
                continue
            applied += 1
            row = measure_run(case, rewritten, evaluator).columns()
            got = {q: row.get(q) for q in QUANTITIES}
            want = baseline[(index, run_id)]
            if got != want:
                moved.append(
                    f"{run_id}: "
                    + ", ".join(f"{q} {want[q]}→{got[q]}" for q in QUANTITIES if got[q] != want[q])
                )
    assert not moved, "\n".join(moved)
    assert applied >= at_least, f"{name} applied to {applied} runs only"
