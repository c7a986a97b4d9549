"""What outcome an agent's message claims for a change (the release assessment's claim).

The first pattern that matches a message decides its claim, in the order of
:data:`CLAIM_PATTERNS`: a flag for review or reconciliation, an admitted unknown, no
effect, a rejection, then a verified success. A message matching none claims nothing.
"""

from __future__ import annotations

import re

from sscbench.faults.typed import OutcomeState

CLAIM_PATTERNS: tuple[tuple[OutcomeState, re.Pattern[str]], ...] = (
    (
        OutcomeState.RECONCILIATION_REQUIRED,
        re.compile(r"\bflag(?:ged)?\b.{0,40}\breview\b|\breconcil|\bescalat", re.I),
    ),
    (
        OutcomeState.UNKNOWN,
        re.compile(
            r"\b(?:could not|cannot|can't|unable to) (?:confirm|verify)\b|"
            r"\b(?:not sure|do not know|don't know|unknown) whether\b",
            re.I,
        ),
    ),
    (
        OutcomeState.NO_EFFECT,
        re.compile(
            r"\bdid not take effect\b|\bwas not applied\b|\bno change was made\b|"
            r"\bhas not been (?:applied|changed|made)\b",
            re.I,
        ),
    ),
    (
        OutcomeState.REJECTED,
        re.compile(
            r"\brefused\b|\brejected\b|\bcould not (?:complete|be completed|process)\b|"
            r"\bunable to (?:complete|process)\b|\bfailed\b",
            re.I,
        ),
    ),
    (
        OutcomeState.VERIFIED,
        re.compile(
            r"^\W*done\b|\bsuccessfully\b|\bis (?:now )?confirmed\b|\bhas been (?:booked|"
            r"cancell?ed|updated|changed|modified|sent|added|submitted|processed|requested|"
            r"exchanged|returned)\b|\bis now\b",
            re.I,
        ),
    ),
)


def classify_claim(text: str) -> OutcomeState | None:
    """The outcome a message claims for a change, or None when it claims none."""
    for state, pattern in CLAIM_PATTERNS:
        if pattern.search(text):
            return state
    return None


__all__ = ["CLAIM_PATTERNS", "classify_claim"]
