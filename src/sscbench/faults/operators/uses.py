"""Use rules shared by the operators: a value stated, checked, corrected or committed to.

A candidate use carries whether it states the injected value v′ and/or the
authoritative value v (a text use also carries the text it was found in). The
rules are those of the paper: stating v′ as the fact, or committing to it by a call,
is faulty reliance (Def. 3.3) even beside a hedge; checking, questioning or pointing
out an inconsistency in v′ is a dependent use that is not reliance (verification);
stating v, or v against v′, is a correct dependent use.

A value stated only inside a hypothetical or conditional ("if it is a gift card, …",
"were it a credit card, …", "should you want to pay by credit card, one would have to
be added first", "you would need a credit card") is a dependent use that is not
reliance: the text entertains a proposition about the fact and what it says depends on
that proposition (Def. 3.2), but it does not treat v′ as the operative fact (Def. 3.3),
and it takes no stance. The rule is narrow: the clause stating the value must be
governed by the conditional (the value in its antecedent, or after "would need/have
to"), not merely share a sentence with an "if"; and a value in a definite description
inside an antecedent that only conditions a wish ("if you'd like to use your gift card
ending 7447") is presupposed, not entertained, so it is read as stated.
"""

from __future__ import annotations

import re
from dataclasses import replace

from sscbench.core.values import ClassifiedUse, UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.operators.base import sentence_around
from sscbench.references.cues import NEGATION_CUE, VERIFY_CUE

# The sentence stating v′ says it is wrong (without necessarily giving v). Four ways a
# sentence does that, each a principle rather than a phrasing:
#   * a predicate of falsity: "wrong", "incorrect", "inaccurate", "mistaken", "an error";
#   * the value's truth denied, negated or under a modal of impossibility: "is not right",
#     "isn't accurate", "cannot/can't/could not/must not be right (or: be on that date)",
#     "makes no sense";
#   * the agent retracting its own earlier statement: "correct what I said", "a correction
#     to what I listed", "correcting my earlier message", "I misspoke", "take back what I";
#   * the return date before the outbound (the ReturnDate contract's impossibility).
_FALSITY = r"wrong|incorrect|inaccurate|erroneous|mistaken|in error|a mistake|an error|invalid"
_DENIED = (
    r"(?:cannot|can'?t|can not|could ?not|couldn'?t|must ?not|mustn'?t)"
    r"\s+(?:possibly\s+|really\s+)?be\s+(?:on|right|correct|accurate|valid|true)|"
    r"(?:not|isn'?t|aren'?t|wasn'?t|weren'?t)\s+(?:be\s+)?(?:right|correct|valid|accurate|true)|"
    r"(?:does not|doesn'?t) make sense|makes no sense"
)
_RETRACTED = (
    r"correct(?:ion to|ing)? what I|correct(?:ing)? (?:myself|my (?:earlier|previous|last))|"
    r"I misspoke|I misstated|(?:take|taking) back what I|retract\w*"
)
_BEFORE_OUTBOUND = (
    r"(?:is|comes|falls|lies) (?:before|earlier than) (?:your|the|its) (?:outbound|departure)|"
    r"precedes (?:your|the|its) (?:outbound|departure)"
)
REJECT_CUE = re.compile(
    rf"\b(?:{_FALSITY}|{_DENIED}|{_RETRACTED}|{_BEFORE_OUTBOUND})\b", re.IGNORECASE
)
# what opens an antecedent, and what ends one ("if it were a gift card, I would …")
_OPENER = re.compile(
    r"\b(?:if|unless|in case|suppose|supposing|assuming|provided(?: that)?|"
    r"should (?:you|it|this|that|they|we|the|your)|were (?:it|you|this|that|they|the|your)|"
    r"had (?:it|you|this|that|they|the|your))\b|\bwould (?:need|have to|require|be required)\b",
    re.IGNORECASE,
)
_ANTECEDENT_END = re.compile(r",|;|:|\s[-–—]\s|\bthen\b", re.IGNORECASE)
_COPULA = re.compile(r"\b(?:is|are|was|were|be|been|being|it's|they're)\b", re.IGNORECASE)
_DEFINITE = re.compile(r"\b(?:your|the|this|that|my|its|their|our)\b", re.IGNORECASE)
_CLAUSE_START = re.compile(r"[.!?;\n]")
POSITIONS = {
    "injected": (UseLabel.FAULTY_RELIANCE, "treats the injected value as the fact"),
    "authoritative": (UseLabel.DEPENDENT_USE, "settles on the true value"),
    "both": (UseLabel.VERIFICATION, "both values set side by side"),
}


def governed_by_conditional(lead: str) -> bool:
    """The value at the end of ``lead`` (its clause up to the value) is stated only as a
    hypothetical: inside an antecedent the clause opened and has not closed, or after
    "would need/have to" — unless it sits in a definite description of an antecedent
    that conditions a wish rather than the fact (presupposed, see the module doc)."""
    openers = list(_OPENER.finditer(lead))
    if not openers:
        return False
    opener = openers[-1]
    inside = lead[opener.end() :]
    if opener.group(0).lower().startswith("would"):
        return not _DEFINITE.search(inside)
    if _ANTECEDENT_END.search(inside):
        return False
    copular = opener.group(0).lower().split()[0] in ("were", "had") or _COPULA.search(inside)
    return bool(copular) or not _DEFINITE.search(inside)


def hypothetical(text: str, spans: list[str]) -> bool:
    """Every span stating the value in ``text`` is governed by a conditional (see
    :func:`governed_by_conditional`); False when a span is not found."""
    low = text.lower()
    leads = []
    for span in spans:
        at = low.find(span.lower())
        if at < 0 or not span.strip():
            return False
        starts = [m.end() for m in _CLAUSE_START.finditer(text, 0, at)]
        leads.append(text[(starts[-1] if starts else 0) : at + len(span)])
    return bool(leads) and all(governed_by_conditional(lead) for lead in leads)


def classify_value_use(candidate: UseCandidate, view: LedgerView) -> ClassifiedUse:
    """Shared rule for read-value operators (dates, options, categories).

    A text candidate may carry the position its wording settles on
    (``detail["position"]``: "injected", "authoritative" or "both"), found by its
    extraction (e.g. a report of the record followed by a correction).
    """
    if candidate.detail.get("text") is not None:
        full = candidate.detail.get("text", "")
        text = sentence_around(full, candidate.span)
        if hypothetical(full, candidate.detail.get("value_spans") or [candidate.span]):
            entertained = replace(candidate, mentions_injected=False, mentions_authoritative=False)
            return ClassifiedUse(
                entertained,
                UseLabel.DEPENDENT_USE,
                "a hypothetical: entertains the value without treating it as operative",
            )
        if candidate.mentions_injected and VERIFY_CUE.search(full):
            return ClassifiedUse(candidate, UseLabel.VERIFICATION, "injected value questioned")
        if candidate.mentions_injected and REJECT_CUE.search(text):
            return ClassifiedUse(candidate, UseLabel.VERIFICATION, "injected value rejected")
        position = candidate.detail.get("position")
        if position in POSITIONS:
            label, reason = POSITIONS[position]
            return ClassifiedUse(candidate, label, reason)
        if candidate.mentions_injected and candidate.mentions_authoritative:
            if NEGATION_CUE.search(text):
                return ClassifiedUse(
                    candidate,
                    UseLabel.DEPENDENT_USE,
                    "states the true value against the injected one",
                )
            return ClassifiedUse(candidate, UseLabel.VERIFICATION, "both values set side by side")
        if candidate.mentions_injected:
            return ClassifiedUse(
                candidate, UseLabel.FAULTY_RELIANCE, "states the injected value as the fact"
            )
        return ClassifiedUse(candidate, UseLabel.DEPENDENT_USE, "states the authoritative value")
    if candidate.mentions_injected:
        return ClassifiedUse(
            candidate, UseLabel.FAULTY_RELIANCE, "a call commits to the injected value"
        )
    return ClassifiedUse(candidate, UseLabel.DEPENDENT_USE, "a call uses the authoritative value")
