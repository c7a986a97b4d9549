"""Use rules shared by the operators: a value stated, checked, corrected or committed to.

A candidate use carries whether it states the injected value v′ and/or the
authoritative value v (a text use also carries the text it was found in). The
rules are those of the paper: stating v′ as the fact, or committing to it by a call,
is faulty reliance (Def. 3.3) even beside a hedge; checking, questioning or pointing
out an inconsistency in v′ is a dependent use that is not reliance (verification);
stating v, or v against v′, is a correct dependent use.
"""

from __future__ import annotations

import re

from sscbench.core.values import ClassifiedUse, UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.operators.base import NEGATION_CUE, VERIFY_CUE, sentence_around

# the sentence stating v′ says it is wrong or inconsistent (without necessarily giving v)
REJECT_CUE = re.compile(
    r"\b(wrong|incorrect|erroneous|in error|a mistake|an error|invalid|"
    r"cannot be (?:on|right|correct)|can'?t be (?:on|right|correct)|"
    r"not (?:be )?(?:right|correct|valid|accurate)|correct(?:ion to)? what I|"
    r"(?:is|comes|falls|lies) (?:before|earlier than) (?:your|the|its) (?:outbound|departure)|"
    r"precedes (?:your|the|its) (?:outbound|departure))\b",
    re.IGNORECASE,
)
POSITIONS = {
    "injected": (UseLabel.FAULTY_RELIANCE, "treats the injected value as the fact"),
    "authoritative": (UseLabel.DEPENDENT_USE, "settles on the true value"),
    "both": (UseLabel.VERIFICATION, "both values set side by side"),
}


def classify_value_use(candidate: UseCandidate, view: LedgerView) -> ClassifiedUse:
    """Shared rule for read-value operators (dates, options, categories).

    A text candidate may carry the position its wording settles on
    (``detail["position"]``: "injected", "authoritative" or "both"), found by its
    extraction (e.g. a report of the record followed by a correction).
    """
    if candidate.detail.get("text") is not None:
        full = candidate.detail.get("text", "")
        text = sentence_around(full, candidate.span)
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
