"""PaySource's use extraction: which agent texts and calls say a payment method's category.

The entry point of the ``PaymentLookFor`` kind (:mod:`sscbench.references.lookfor`). A
text says the method's category however it names the method — id, last digits, id
suffix, brand, balance, a definite category ("your only gift card") or a role ("the
original payment method") — when the phrase identifies it among the methods the ledger
showed before the step (:mod:`sscbench.references.payments`); a list of the user's
methods with their categories says each one's, and so does a heading the method is filed
under or a count of categories over the profile (:mod:`sscbench.references.payment_filing`).
A phrase that fits this method and others and says a category is a hit on several
candidates, never a guess. A payment call carries the category when the category chose
the method (:mod:`sscbench.references.payment_choice`).
"""

from __future__ import annotations

import re

from sscbench.core.values import UseCandidate
from sscbench.core.view import LedgerView
from sscbench.json_types import JsonValue
from sscbench.references.lookfor import PaymentLookFor
from sscbench.references.payment_choice import choosing_categories, other_methods_categories
from sscbench.references.payment_filing import (
    count_references,
    filed_under_headings,
    profile_ids,
)
from sscbench.references.payments import (
    Method,
    Reference,
    payment_methods,
    payment_references,
    payment_roles,
    position,
)
from sscbench.references.text import HANDOFF, agent_texts, clauses
from sscbench.references.values import args_contain


def find_payment_uses(
    look_for: PaymentLookFor, view: LedgerView, fault_step: int
) -> list[UseCandidate]:
    """Texts after the fault saying what category the method has, and payment calls whose
    choice of the method followed from its category, in step order.

    A payment call is a hit only when the category decided it: the turn's own text, the
    user's request (this turn or the one before) or the agent's listing the user accepted
    names the category, and no other method the turn pays with answers it; a call that
    would be the same under either category does not depend on it.
    """
    pid = look_for.method_id
    injected, true = look_for.injected, look_for.authoritative
    texts = _text_uses(look_for, view, fault_step)
    out = list(texts)
    # the turn's own message speaks beside its call (a handoff summary is a text of its own)
    by_step = {c.step: c for c in sorted(out, key=lambda c: c.channel == "message")}
    for call in view.calls:
        if call.call_step <= fault_step or call.name in (look_for.read_tool, HANDOFF):
            continue
        if not args_contain(call.arguments, pid):
            continue
        said = by_step.get(call.call_step)
        if said is not None and said.detail.get("position"):
            # a hedge beside the call does not cancel it (Def. 3.3)
            relied = said.detail["position"] in ("injected", "both")
            chosen = [said.detail["position"]]
        else:
            asked = choosing_categories(view, call.call_step, texts, look_for)
            # a category the turn's other methods already answer did not choose this one
            turn = [c.arguments for c in view.calls if c.call_step == call.call_step]
            others = other_methods_categories(look_for, view, call.call_step, turn)
            chosen = sorted((asked - others) & {injected, true})
            if not chosen:
                continue
            relied = chosen == [injected]
        out.append(
            UseCandidate(
                call.call_step,
                "tool_call",
                call.name,
                relied,
                not relied,
                {"tool": call.name, "requested": chosen},
            )
        )
    return sorted(out, key=lambda c: c.step)


def payment_terms(view: LedgerView) -> set[str]:
    """Words naming payment methods as the profile showed them (each method's category
    in words, brand, last four digits, id suffix, balance) and ``payment``."""
    terms = {"payment"}
    for call in view.calls:
        data = call.data if call.observation_step is not None else None
        methods = data.get("payment_methods") if isinstance(data, dict) else None
        if not isinstance(methods, dict):
            continue
        for method in methods.values():
            if isinstance(method, dict):
                digits = str(method.get("id", "")).rpartition("_")[2]
                terms.update({digits[-3:], digits[-4:]} if digits.isdigit() else set())
                terms.add(str(method.get("source", "")).replace("_", " "))
                terms.update(str(method.get(k) or "") for k in ("brand", "last_four"))
                terms.add(_amount(method.get("balance", method.get("amount"))))
    return {t for t in terms if t}


def _amount(value: JsonValue) -> str:
    """A balance as a text writes it ("500" for 500.0, "274.5"), or ""."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:g}" if float(value).is_integer() else f"{value:.2f}"
    return ""


def _about(text: str, refs: list[Reference]) -> str:
    """The clauses naming the method, each with the clause after it when that one speaks
    of what was just said ("Is that correct?", "This seems odd.")."""
    parts = clauses(text)
    kept: list[str] = []
    for ref in refs:
        index = max(i for i, (start, _) in enumerate(parts) if start <= ref.start)
        for i in (index, index + 1):
            if i == index + 1 and (i >= len(parts) or not _FOLLOW_UP.search(parts[i][1])):
                continue
            if parts[i][1] not in kept:
                kept.append(parts[i][1])
    return " ".join(kept)


_FOLLOW_UP = re.compile(r"\b(that|this|it)\b", re.IGNORECASE)


def _text_uses(look_for: PaymentLookFor, view: LedgerView, fault_step: int) -> list[UseCandidate]:
    """The text hits, in order: what each agent text (a message, and a handoff summary of
    the same turn apart) says of the method's category (a phrase fitting it and other
    methods makes the text's hit one on several candidates). A method filed under a
    category heading, or bound by a count of categories over the profile, is said to have
    that category (:mod:`sscbench.references.payment_filing`)."""
    pid = look_for.method_id
    injected, true = look_for.injected, look_for.authoritative
    out: list[UseCandidate] = []
    for step, channel, text in agent_texts(view, fault_step):
        methods = payment_methods(view, step, look_for.ids_state_category)
        methods.setdefault(pid, Method(pid, frozenset()))
        refs = payment_references(text, methods, payment_roles(view, step))
        refs = filed_under_headings(text, refs)
        refs += count_references(text, pid, profile_ids(view, step), methods)
        mine = [r for r in refs if r.entity == pid and r.mentions]
        settled = position(mine, injected, true)
        if settled is not None:
            spans = [r.span for r in mine]
            detail = {"text": _about(text, mine), "position": settled, "value_spans": spans}
            out.append(
                UseCandidate(
                    step,
                    channel,
                    mine[0].span,
                    settled in ("injected", "both"),
                    settled in ("authoritative", "both"),
                    detail,
                )
            )
            continue
        unsure = [r for r in refs if not r.resolved and pid in r.candidates and r.mentions]
        if position(unsure, injected, true) is not None:
            detail = {"text": _about(text, unsure), "candidates": sorted(unsure[0].candidates)}
            out.append(UseCandidate(step, channel, unsure[0].span, False, False, detail))
    return out
