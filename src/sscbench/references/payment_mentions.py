"""What a phrase says of a payment method's category: which, with what polarity, how.

Read per phrase (:mod:`sscbench.references.payments` cuts texts into phrases and resolves
which method each is about): its polarity ("not a credit card", "I don't believe it is
a credit card"; not "no charge to your credit card") and its mode — plainly stated,
reported from someone else ("the method you called a certificate"), reported from the
record ("your profile lists it as a gift card"; "showed it as … before" is disowned), a
correction ("but its id shows it is a certificate"), a conclusion ("so I will treat it
as a certificate") or a hedge ("it may actually be a certificate"). A consequence that
only one category has under the policy says that category.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sscbench.references.locale_words import PATTERNS as LOCALE_PATTERNS

CATEGORY_PATTERNS = {
    "credit_card": r"credit[ -]?cards?",
    "gift_card": r"gift[ -]?cards?",
    "certificate": r"(?:travel )?certificates?|travel vouchers?",
}
# and how other languages write them (a table of ours: references/locale_words.py)
CATEGORY_PATTERNS = {c: f"{p}|{LOCALE_PATTERNS[c]}" for c, p in CATEGORY_PATTERNS.items()}

_USER = re.compile(r"\byou (?:called|call|said|mentioned|referred to|described|named)\b", re.I)
# what a record says, reported (present: weak; past: disowned, "showed it as … before")
_REPORT = re.compile(
    r"\b(?:profile|record|account|system|file)\b.*\b(?:lists?|listed|shows?|showed|shown|says|"
    r"said|marks?|marked|has it|had it)\b|\b(?:on file|listed|shown|recorded|marked) as\b",
    re.IGNORECASE,
)
_PAST = re.compile(r"\b(showed|was (?:listed|shown|marked)|before|earlier|previously)\b", re.I)
_CONTRAST = re.compile(
    r"^\W*(?:but|however|although|though|yet|whereas|while)\b|\b(?:actually|in fact|correction)\b",
    re.IGNORECASE,
)
_CONCLUSION = re.compile(r"^\W*(?:so|therefore|thus|hence)\b|\btreat it as\b", re.IGNORECASE)
_HEDGE = re.compile(r"\b(may|might|could|possibly|perhaps|probably|likely)\b", re.IGNORECASE)
# a negation of the category itself ("not a credit card", "isn't actually a gift card"),
# not of something else in the phrase ("no charge to your credit card")
_NEGATION = re.compile(
    r"(?:\b(?:not|never|no longer)|n't)\s+(?:(?:be|been|as|a|an|the|really|actually|truly|"
    r"your|my|its|this|that|one|of)\s+){0,3}(?:[\w-]+\s+)?$"
    # a negated belief or copula whose predicate is the category ("I don't believe it is a
    # credit card", "it was never really a gift card")
    r"|(?:\b(?:not|never)|n't)\b[^.;:!?]{0,40}\b(?:is|are|was|were|be|as)\s+"
    r"(?:(?:a|an|the|really|actually)\s+){0,2}$",
    re.IGNORECASE,
)

# the method kept out of a category's group ("not included in the gift card total",
# "excluded from your gift cards"): the negation is of membership, so of the category —
# the phrase files the method elsewhere, it does not question what it is
_EXCLUDED = re.compile(
    r"(?:\b(?:not|never)|n't)\s+(?:be\s+|been\s+)?(?:included|counted|part|listed|grouped|"
    r"added)\b[^.;:!?]{0,30}$|\b(?:excluded|excluding|exclusive of|separate from|"
    r"separately from|outside(?: of)?)\b[^.;:!?]{0,30}$",
    re.IGNORECASE,
)
_GROUP = re.compile(r"\s+(?:totals?|sum|subtotal|balances?|pool|group|section|list)\b", re.I)

# consequences of one category under the airline policy: a certificate pays for a new
# booking only, never for a change of an existing one
IMPLIED = {
    "certificate": re.compile(
        r"\b(?:cannot|can ?not|can't|is not|isn't|not)\s+(?:be\s+)?(?:used|usable|accepted|"
        r"allowed|valid|eligible|applied)\s+(?:for|toward|towards|on|to)\s+(?:\w+\s+){0,2}"
        r"(?:changes?|modifications?|modifying|updates?)\b"
        r"|\bonly\s+(?:be\s+)?(?:used|usable|valid|applied)\s+(?:for|toward|towards|on|to)\s+"
        r"(?:\w+\s+){0,2}(?:new\s+)?(?:bookings?|reservations?)\b",
        re.IGNORECASE,
    )
}


@dataclass(frozen=True)
class Mention:
    """A category said of a method: which, whether affirmed, and how (see module doc)."""

    category: str
    positive: bool
    mode: str  # plain | user | past | report | contrast | conclusion | hedged | question


def category_hits(text: str) -> list[tuple[int, int, str]]:
    """(start, end, category) of each category word (not inside an id)."""
    out = []
    for category, pattern in CATEGORY_PATTERNS.items():
        for m in re.finditer(rf"(?<![_\w])(?:{pattern})\b", text, flags=re.IGNORECASE):
            out.append((m.start(), m.end(), category))
    return sorted(out)


def _mode(piece: str) -> str:
    if _USER.search(piece):
        return "user"
    if _REPORT.search(piece):
        return "past" if _PAST.search(piece) else "report"
    strong = "contrast" if _CONTRAST.search(piece) else None
    strong = strong or ("conclusion" if _CONCLUSION.search(piece) else None)
    if _HEDGE.search(piece):
        return "hedged"
    return strong or "plain"


def piece_mentions(piece: str) -> tuple[Mention, ...]:
    """The categories a phrase says of a method, each with its polarity and mode; a
    consequence only one category has ("cannot be used for flight changes": a
    certificate) counts as saying that category."""
    mode = _mode(piece)
    asks = piece.rstrip(" *_`)").endswith("?")
    said = [
        Mention(
            cat,
            not (_NEGATION.search(piece[:start]) or _excluded(piece, start, end)),
            "question" if asks and _ASKED.search(piece[:start]) else mode,
        )
        for start, end, cat in category_hits(piece)
    ]
    for category, pattern in IMPLIED.items():
        if pattern.search(piece) and not any(m.category == category for m in said):
            said.append(Mention(category, True, mode))
    return tuple(said)


# a yes/no question whose predicate is the category ("Is gift_card_1 really a credit card?",
# "Is this a gift card or a certificate?"): it asks what the method is, it does not say
_ASKED = re.compile(
    r"^\W*(?:is|are|was|were)\b[^?]{0,60}?\b(?:a|an)\s+(?:[\w-]+\s+)?$", re.IGNORECASE
)


def _excluded(piece: str, start: int, end: int) -> bool:
    """The category word at ``start:end`` names a group (a plural, or "the gift card total")
    the phrase keeps the method out of."""
    group = piece[start:end].lower().endswith("s") or _GROUP.match(piece, end)
    return bool(group and _EXCLUDED.search(piece[:start]))


def ranks_category(piece: str, at: int) -> bool:
    """A category word is what the ranking word ranks ("smaller gift card", "larger of your
    two certificates"; not "most of the fare on your gift card")."""
    if piece[at - 4 : at].lower() in ("most", "east"):
        return False  # "most", "least" rank a category only by a balance word
    return any(_RANKED.fullmatch(piece[at:start]) for start, _, _ in category_hits(piece))


_RANKED = re.compile(r"(?:\s+(?:of|your|the|these|those|two|both|remaining))*\s+", re.IGNORECASE)
