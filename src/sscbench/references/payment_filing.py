"""Payment methods filed under a category: by a heading, or by a count over the profile.

Two ways a text says a method's category without a category word beside the method:

* **filed under a heading** — the method is listed under (or inline after) a heading
  that is a category and nothing else ("**Credit cards:**" then bullets, "Gift cards:
  gift_card_1, gift_card_2"): the list files each method it names under that category;
* **a count of categories over the profile** — "you have two credit cards and one
  certificate": when the counts bind to the methods the agent was shown (the latest
  profile it read), they state each method's category. They bind to the method when the
  other methods' categories leave it one place: a category counted one more than the
  other methods of it (the method must be among them), or, when the counts add up to the
  whole profile, the one category left for it (and not any other).

Both are read in the terms of :mod:`sscbench.references.payments` (references with
mentions) so :func:`~sscbench.references.payments.position` settles them like any
other phrase.
"""

from __future__ import annotations

import re
from dataclasses import replace

from sscbench.core.view import LedgerView
from sscbench.references.payment_mentions import Mention, category_hits
from sscbench.references.payments import Method, Reference
from sscbench.references.text import clauses

# a line that is a category and nothing else (a heading; its total or balances too), or a
# category then a colon and what it lists inline: "**Credit cards:**", "### Gift cards (2)",
# "Gift card balances:", "Certificates: …"
_MARKS = r"[\s#*_>|-]*"
_TAIL = (
    r"^(?:\(s\))?(?:\s+(?:totals?|balances?|subtotal))?[\s*_]*(?:on file)?\s*(?:\(\d+\))?[\s*_]*"
)
_HEADING_TAIL = re.compile(_TAIL + r":?[\s*_|]*$", re.IGNORECASE)
_INLINE_TAIL = re.compile(_TAIL + r":[\s*_]*(?=\S)", re.IGNORECASE)
_LEAD = re.compile(rf"^{_MARKS}(?:\d+[.)]\s*)?[\s*_]*(?:your\s+|the\s+)?$", re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:[-*•+]|\d+[.)]|\|)\s*|^\s{2,}\S")


def _heading(line: str) -> tuple[str, int] | None:
    """(category, where its list starts in the line) of a heading line, or None."""
    hits = category_hits(line)
    if len(hits) != 1:
        return None
    start, end, category = hits[0]
    if not _LEAD.match(line[:start]):
        return None
    if _HEADING_TAIL.match(line[end:]):
        return category, len(line)
    inline = _INLINE_TAIL.match(line[end:])
    return (category, end + inline.end()) if inline else None


def heading_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, category) of each stretch of ``text`` listed under a category heading:
    the rest of an inline heading's line, or the item lines (bullets, numbered, table
    rows, indented) after a heading line, up to the next heading or plain line."""
    out: list[tuple[int, int, str]] = []
    offset, current = 0, None
    for line in text.split("\n"):
        end = offset + len(line)
        head = _heading(line)
        # an inline heading lists its methods in its own sentence: "Gift cards: a, b."
        inline = [
            (offset + m.start() + h[1], offset + m.end(), h[0])
            for m in _SENTENCE.finditer(line)
            if (h := _heading(m.group(0))) is not None and h[1] < len(m.group(0))
        ]
        if head is not None and head[1] == len(line):
            current = head[0]
        elif inline:
            out += inline
            current = None
        elif current is not None and line.strip() and _ITEM.match(line):
            out.append((offset, end, current))
        elif line.strip():
            current = None
        offset = end + 1
    return out


_SENTENCE = re.compile(r"[^.!?]+(?:[.!?]+(?=\s|$)|$)")


def filed_under_headings(text: str, refs: list[Reference]) -> list[Reference]:
    """``refs`` with the category of the heading each is listed under said of it (plainly),
    when nothing in its own clause says a category of that method."""
    spans = heading_spans(text)
    if not spans:
        return refs
    said = {(r.entity, r.clause) for r in refs if r.mentions}
    out = []
    for ref in refs:
        under = [c for s, e, c in spans if s <= ref.start < e]
        if under and ref.resolved and (ref.entity, ref.clause) not in said:
            ref = replace(ref, mentions=(Mention(under[0], True, "plain"),))
        out.append(ref)
    return out


# ---- counts -----------------------------------------------------------------------------

_NUMBERS = {
    "no": 0,
    "zero": 0,
    "a": 1,
    "an": 1,
    "one": 1,
    "single": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_COUNT = re.compile(
    r"(?<![\w$.,])(\d{1,2}|" + "|".join(_NUMBERS) + r")\s+(?!(?:of|your|the|my)\s)(?:[\w-]+\s+)?"
    r"(?:\*\*)?$",
    re.IGNORECASE,
)
# the sentence counts what the user has (not what a payment will use), in the second
# person or, in a handoff summary, the third
_FRAME = re.compile(
    r"\b(?:you|(?:the )?(?:user|customer|passenger|traveler)|they|he|she)\s+(?:also |still |"
    r"currently )?(?:has|have|holds?|owns?)\b|\byou've got\b|\bthere (?:are|is)\b"
    r"|\bon file\b|\b(?:profile|account|wallet)\b[^.;]{0,30}\b(?:has|have|holds|lists|shows|"
    r"contains|includes)\b|\bpayment methods?\b[^.;]{0,20}(?::|\b(?:are|include|includes)\b)",
    re.IGNORECASE,
)
_ARTICLES = ("a", "an")
_BOUND = re.compile(
    r"\b(?:(?:more|fewer|less|other)\s+than|at least|at most|up to|over|under|about|around|"
    r"nearly|almost)\s+$",
    re.IGNORECASE,
)
_MODIFIER = re.compile(
    r"\s+(?:balances?|totals?|fees?|payments?|refunds?|amounts?|numbers?|ids?|funds?)\b", re.I
)
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")


def profile_ids(view: LedgerView, before: int) -> list[str]:
    """The payment ids of the latest user profile the ledger delivered before ``before``."""
    latest: list[str] = []
    for call in view.calls:
        if call.observation_step is None or call.observation_step >= before:
            continue
        data = call.data
        methods = data.get("payment_methods") if isinstance(data, dict) else None
        if isinstance(methods, dict):  # a user record (a reservation has a payment history)
            latest = list(methods)
    return latest


def _counted_sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) of the text, a line ending in ':' joined with the bullets under it
    ("You have:\\n- 2 credit cards\\n- 1 gift card" is one sentence)."""
    out: list[tuple[int, str]] = []
    offset, listing = 0, False
    for line in text.split("\n"):
        if _BULLET.match(line) and listing:
            start, sentence = out.pop()
            out.append((start, sentence + ", " + _BULLET.sub("", line)))
        else:
            for m in re.finditer(r"[^.!?]+[.!?]*", line):
                out.append((offset + m.start(), m.group(0)))
            listing = bool(out) and out[-1][1].rstrip().endswith(":")
        offset += len(line) + 1
    return out


def counts_of(sentence: str) -> dict[str, int]:
    """category -> the number a sentence says the user has of it ({} when it counts nothing
    or does not speak of what the user has)."""
    if not _FRAME.search(sentence):
        return {}
    out: dict[str, int] = {}
    numbered = False
    for start, end, category in category_hits(sentence):
        m = _COUNT.search(sentence[:start])
        if m is None or _MODIFIER.match(sentence, end) or _BOUND.search(sentence[: m.start()]):
            continue  # no count, "no gift card balance", or a bound ("more than one gift card")
        word = m.group(1).lower()
        number = int(word) if word.isdigit() else _NUMBERS[word]
        numbered = numbered or word not in _ARTICLES
        if out.get(category, number) != number:
            return {}  # two counts of one category: a comparison, not a tally
        out[category] = number
    # an article counts only beside a number ("a gift card and two certificates"): alone it
    # may be a predicate ("it may be a certificate"), which the phrase readers handle
    return out if numbered else {}


def _bound(
    counts: dict[str, int], pid: str, profile: list[str], methods: dict[str, Method]
) -> list[Mention]:
    """What ``counts`` say of ``pid``'s category, given the others' (see the module doc)."""
    if pid not in profile:
        return []
    others: dict[str, int] = {}
    for other in profile:
        if other == pid:
            continue
        cats = methods[other].categories if other in methods else frozenset()
        if len(cats) != 1:
            return []  # another method's category is itself unsettled: nothing binds
        (cat,) = cats
        others[cat] = others.get(cat, 0) + 1
    extra = {c: n - others.get(c, 0) for c, n in counts.items()}
    if any(d not in (0, 1) for d in extra.values()) or sum(extra.values()) > 1:
        return []  # the counts do not fit the methods shown
    plus = [c for c, d in extra.items() if d == 1]
    whole = sum(counts.values()) == len(profile) and set(others) <= set(counts)
    if whole and plus:
        return [Mention(plus[0], True, "plain")] + [
            Mention(c, False, "plain") for c, d in extra.items() if d == 0
        ]
    return [Mention(plus[0], True, "plain")] if plus else []


def count_references(
    text: str, pid: str, profile: list[str], methods: dict[str, Method]
) -> list[Reference]:
    """A reference to ``pid`` for each sentence whose counts of categories bind to it."""
    out = []
    starts = [o for o, _ in clauses(text)]
    for offset, sentence in _counted_sentences(text):
        counts = counts_of(sentence)
        mentions = _bound(counts, pid, profile, methods) if counts else []
        if mentions:
            clause = max(i for i, o in enumerate(starts) if o <= offset) if starts else 0
            out.append(Reference(pid, offset, sentence.strip(), clause, tuple(mentions)))
    return out
