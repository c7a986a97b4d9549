"""Which category chose the payment method a call pays with (PaySource, Def. 3.2).

A payment call depends on the method's category when the category decided which method
it pays with: the agent's own words in the call's turn, the user's request (this turn or
the one before, declined categories left out), what the agent said of the method since
(a listing or confirmation the user accepted), or a choice the agent offered among the
methods of a category ("Which gift card would you like to use?", "I'll use the smaller
gift card") that the user answered. The call is then the first dependent use even when
no text has named the method yet.
"""

from __future__ import annotations

import json
import re

from sscbench.core.values import UseCandidate
from sscbench.core.view import LedgerView
from sscbench.references.lookfor import PaymentLookFor
from sscbench.references.payment_mentions import category_hits
from sscbench.references.payments import BRAND_PATTERNS, Method, payment_methods
from sscbench.references.text import agent_texts, clauses


def choosing_categories(
    view: LedgerView,
    before: int,
    texts: list[UseCandidate],
    look_for: PaymentLookFor,
) -> set[str]:
    """Categories that chose the method a payment call at ``before`` pays with.

    The first that speaks of a category: the agent's own text in the call's turn, the
    user's latest message or the one before it (asking to pay with a category, then
    confirming), then what the agent said of this method since the user's message
    before last (a listing or confirmation the user accepted), then a choice the agent
    offered since then among the methods of a category.
    """
    injected, true = look_for.injected, look_for.authoritative
    pid = look_for.method_id
    methods = payment_methods(view, before, look_for.ids_state_category)
    own = [m for m in view.assistant_messages() if m.step == before]
    users = [m for m in view.messages if m.role == "user" and m.step < before]
    for message in own + users[::-1][:2]:
        found = _asked(message.content)
        if found:
            return found
    since = users[-2].step if len(users) >= 2 else -1
    earlier = [c for c in texts if since < c.step < before]
    for c in reversed(earlier):
        position = c.detail.get("position")
        if position in ("injected", "authoritative"):
            return {injected if position == "injected" else true}
    # the agent offered a choice among the methods of a category ("Which gift card …?",
    # "I'll use the smaller gift card"; in a message or a recorded thought), and the
    # user's answer picked this one — not by
    # naming the method itself ("your Visa", its digits), which is a choice by identity
    if users and _names_by_identity(users[-1].content, methods.get(pid)):
        return set()
    offers = [(step, text) for step, _, text in agent_texts(view, since) if since < step < before]
    for _, text in reversed(offers):
        found = _offered(text)
        if found:
            return found
    return set()


def _names_by_identity(text: str, method: Method | None) -> bool:
    """The text names the method by its id, id digits, last four digits or brand."""
    if method is None:
        return False
    digits = method.pid.rsplit("_", 1)[-1]
    marks = [method.pid, digits, method.last_four or ""]
    if any(mark and re.search(rf"(?<!\d){re.escape(mark)}(?!\d)", text) for mark in marks):
        return True
    pattern = BRAND_PATTERNS.get(method.brand or "")
    return bool(pattern and re.search(rf"\b(?:{pattern})\b", text, re.IGNORECASE))


def other_methods_categories(
    look_for: PaymentLookFor, view: LedgerView, step: int, arguments: object
) -> set[str]:
    """Categories the ledger showed for the other payment methods calls pay with."""
    pid = look_for.method_id
    methods = payment_methods(view, step, look_for.ids_state_category)
    named = set(_PAYMENT_ID.findall(json.dumps(arguments))) - {pid}
    return {c for other in named if other in methods for c in methods[other].categories}


_PAYMENT_ID = re.compile(r"\b(?:credit_card|gift_card|certificate)_\d+\b")
_DECLINE = re.compile(r"\b(?:not|no|never|don'?t|won'?t|rather not|instead of|except)\b", re.I)


def _asked(text: str) -> set[str]:
    """Categories a message asks to pay with: each category word not declined before it in
    its clause ("not my credit card", "instead of the gift card")."""
    out = set()
    for _, clause in clauses(text):
        for at, _, category in category_hits(clause):
            if not _DECLINE.search(clause[:at]):
                out.add(category)
    return out


_CHOICE = re.compile(
    r"\b(?:which|whichever|either|one of|the (?:smaller|smallest|larger|largest|lower|lowest|"
    r"higher|highest|bigger|biggest|other|remaining|first|second))\s+(?:(?:of|your|the|these|"
    r"those|two|both)\s+){0,3}(?:\w+\s+)?$",
    re.IGNORECASE,
)


def _offered(text: str) -> set[str]:
    """Categories an agent's text picks or offers a method from by the category itself
    ("which gift card", "one of your certificates", "the smaller gift card")."""
    return {category for at, _, category in category_hits(text) if _CHOICE.search(text[:at])}
