"""Order-item references in one line of agent text: the anchors that name an item (an
item id, a product name, its head noun, a position), the span each anchor's values are
read from, and the values said there with their roles. :mod:`sscbench.references.items`
builds on it for blocks, tables and whole texts (the binding rules are stated there).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise

from sscbench.references.item_forms import product_words, values_written

ITEM_ID = re.compile(r"(?<![\w.])\d{10}(?!\w|\.\d)")  # may end a sentence
# an id written after what it names: "(item 123)", "the clicky RGB one is item ID 123"
_TRAILING = re.compile(
    r"(?:\(|\bis\s)\s*(?:(?:item|variant)?[ _-]?(?:id|ID|Id)?\s*[:#]?\s*)$", re.I
)
_SEPARATOR = re.compile(
    r"→|->|=>|;|\s-\s|—|–|:\s|\?|!|,\s*(?:and|but|while)\b|\b(?:for|to|into|by|and the|or the)\s",
    re.I,
)
_SHIFT = re.compile(
    r"→|->|=>|\b(?:exchang\w*|swap\w*|switch\w*|chang\w*|replac\w*|modif\w*|upgrad\w*)\b[^.\n]*?"
    r"\b(?:for|to|into|with)\b|\b(?:instead|new (?:item|variant|one|option)s?|replacement|"
    r"target|to item|similar|alternative|closest)\b",
    re.I,
)
_REQUEST = re.compile(
    r"\b(?:you(?:'d| would)? (?:like|want|prefer|wanted|asked|requested|need|mentioned|chose|"
    r"picked|selected)|you'?re looking for|your request(?:ed)?|requested|desired|preferred|"
    r"preferences?|wish(?:es)? to|looking for)\b",
    re.I,
)
# "return requested for the black watch", "I requested an exchange of ...": the status
# of an action on the ordered item, not a restated user request for a variant
_ACTION_REQUESTED = re.compile(
    r"\b(?:return|exchange|cancellation|refund)s?\s+(?:(?:was|were|is|are|has been|have been)\s+)?"
    r"requested\b|\brequested\s+(?:a|an|the)\s+(?:return|exchange|cancellation|refund)\b",
    re.I,
)


REQUEST = _REQUEST  # a restated user request ("you'd like", "requested")


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


CRITERION = re.compile(
    r"\b(?:cheapest|lowest[- ]price\w*|least expensive|most affordable|lower[- ]priced|"
    r"in stock|only (?:one )?available|as (?:you )?requested|you (?:asked|requested|chose|"
    r"picked|selected|wanted)|you'?d like|you would like|you want|matching your|matches your|"
    r"per your|based on your)\b",
    re.I,
)
_ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3}
_ORDINALS |= {"4th": 3, "fifth": 4, "5th": 4, "last": -1}
_POSITION = re.compile(r"\b(?:item|line)\s*#?\s*(\d{1,2})\b(?!\d)", re.I)
_ORDINAL_ITEM = re.compile(
    r"\b(" + "|".join(_ORDINALS) + r")\s+(?:item|product|line item|line)\b(?!\s*(?:id|#))", re.I
)
BULLET = re.compile(r"^(\s*)(?:[-*•·+]|\d{1,2}[.)]|[a-z][.)])\s+")
_LABEL = re.compile(r"([A-Za-z][\w /-]{0,30}?)\s*\**\s*:\s*\**\s*$")


@dataclass(frozen=True)
class OrderItem:
    """An item of an order as the visible history showed it."""

    item_id: str
    name: str
    options: Mapping[str, str]
    position: int = 0


@dataclass(frozen=True)
class Said:
    """An option value written with a reference: its option key, as written, its role."""

    key: str
    value: str
    written: str
    role: str  # current | requested | replacement | chosen


@dataclass
class ItemReference:
    """One reference to an item: the id it resolves to (None when unresolved), the order
    items it may be, how it was named, its text, the values said of it, and for a
    replacement variant the order item it replaces."""

    target: str | None
    candidates: tuple[str, ...]
    how: str  # id | name | position | row | options | block
    text: str
    said: list[Said] = field(default_factory=list)
    role: str = "current"
    replaces: str | None = None


@lru_cache(maxsize=16384)
def value_pattern(value: str) -> re.Pattern[str]:
    """A value as a whole token, ignoring case and simple formatting ("1000ml" ~ "1000 ml",
    "full size" ~ "full-size" ~ "full‑size" with a Unicode hyphen), never a substring of
    another word ("red" ≠ "reduced") nor a clitic ("S" ≠ the s of "it's", "M" ≠ "I'm";
    a quoted value, "'S'", still counts)."""
    # a hyphen or dash is spacing (the joiner below), not a part: "in-ear" ~ "in ear"
    parts = re.findall(r"\d+(?:\.\d+)?|[^\W\d_]+|[^\w\s\-\u2010-\u2015]", value)
    body = re.escape(parts[0]) if parts else re.escape(value)
    for a, b in pairwise(parts):
        # two numbers stay apart ("30-50" is never "3050")
        body += (
            _JOIN.replace("*", "+") if a[0].isdigit() and b[0].isdigit() else _JOIN
        ) + re.escape(b)
    return re.compile(r"(?<![\w])(?<!\w['’])" + body + r"(?![\w]|[-\u2010\u2011]\d)", re.I)


_JOIN = r"[\s_\-\u2010-\u2015]*"  # spaces, underscores, ASCII and Unicode hyphens and dashes


def find_values(text: str, values: Mapping[str, Sequence[str]]) -> list[tuple[int, str, str, str]]:
    """(offset, key, value, as written) of every known option value in the text, in any
    of its written forms (:mod:`sscbench.references.item_forms`: ``15"`` for ``15-inch``,
    ``0.5 L`` for ``500ml``); a value inside a longer known value of the same text
    counts once (the longer)."""
    hits: list[tuple[int, int, str, str, str]] = []
    for key, forms in values_written(values).items():
        for value, spellings in forms.items():
            for form in spellings:
                for m in value_pattern(form).finditer(text):
                    hits.append((m.start(), m.end(), key, value, m.group(0)))
    hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
    out: list[tuple[int, str, str, str]] = []
    reach = -1
    for start, end, key, value, written in hits:
        if start < reach and end <= reach:
            if out and out[-1][0] == start and out[-1][3] == written:
                out.append((start, key, value, written))  # the same words, another key
            continue
        out.append((start, key, value, written))
        reach = max(reach, end)
    return out


def _label_key(text: str, offset: int, values: Mapping[str, Sequence[str]]) -> str | None:
    """The option key a label right before ``offset`` names ("Color: blue"), if known."""
    m = _LABEL.search(text[max(0, offset - 40) : offset])
    if not m:
        return None
    label = m.group(1).strip().lower().replace("_", " ")
    return next((k for k in values if k.lower() in label or label in k.lower()), None)


# ---- anchors --------------------------------------------------------------------------


@dataclass
class _Group:
    """Adjacent anchors naming one item (a name and its id, "(item 123)")."""

    start: int
    end: int
    how: str
    target: str | None
    candidates: tuple[str, ...]
    trailing: bool = False


def _name_pattern(name: str) -> re.Pattern[str]:
    words = re.findall(r"[^\W_]+", name)
    return re.compile(r"(?<!\w)" + r"[\W_]{0,3}".join(map(re.escape, words)) + r"s?(?!\w)", re.I)


# a product word counts after a determiner, up to three words before it ("your current
# helmet", "the black smart watch", "a canister vacuum")
_DETERMINER = r"\b(?:your|the|this|that|my|ordered|a|an|both|current|existing|original)\s+"


def _word_pattern(word: str) -> re.Pattern[str]:
    return re.compile(
        _DETERMINER + r"(?:[\w\"″'’.,-]+\s+){0,3}?(" + re.escape(word) + r"(?:e?s)?)\b", re.I
    )


class Order:
    """The order items a text may name, indexed by id, name and head noun."""

    def __init__(self, items: Sequence[OrderItem], ignore: frozenset[str]) -> None:
        self.items = list(items)
        self.by_id = {i.item_id: i for i in items}
        self.ignore = ignore
        names: dict[str, list[str]] = {}
        for item in items:
            names.setdefault(item.name.lower(), []).append(item.item_id)
        self.names = names
        self.patterns = {n: _name_pattern(n) for n in names if n}
        heads: dict[str, list[str]] = {}
        for n in names:
            for word in product_words(n):
                heads.setdefault(word, []).extend(names[n])
        self.heads = {w: _word_pattern(w) for w in heads}
        self.head_ids = heads

    def anchors(self, text: str) -> list[_Group]:
        """Every id, name, head noun and position anchor of a text, merged where adjacent."""
        out: list[_Group] = []
        for m in ITEM_ID.finditer(text):
            iid = m.group(0)
            if iid in self.ignore:
                continue
            trailing = bool(_TRAILING.search(text[max(0, m.start() - 16) : m.start()]))
            cands = (iid,) if iid in self.by_id else ()
            out.append(_Group(m.start(), m.end(), "id", iid, cands, trailing))
        taken = [(g.start, g.end) for g in out]
        for name, pattern in self.patterns.items():
            for m in pattern.finditer(text):
                out.append(self._named(text, m.start(), m.end(), self.names[name]))
                taken.append((m.start(), m.end()))
        for word, pattern in self.heads.items():
            for m in pattern.finditer(text):
                s, e = m.start(1), m.end(1)
                if not any(a <= s < b for a, b in taken):
                    out.append(self._named(text, s, e, self.head_ids[word]))
                    taken.append((s, e))
        for m in _ORDINAL_ITEM.finditer(text):
            index = _ORDINALS[m.group(1).lower()]
            if -1 <= index < len(self.items) and len(self.items) > 1:
                iid = self.items[index].item_id
                out.append(_Group(m.start(), m.end(), "position", iid, (iid,)))
        for m in _POSITION.finditer(text):
            index = int(m.group(1)) - 1
            if 0 <= index < len(self.items) and len(self.items) > 1:
                iid = self.items[index].item_id
                out.append(_Group(m.start(), m.end(), "position", iid, (iid,)))
        return _merge(text, sorted(out, key=lambda g: g.start))

    def _named(self, text: str, start: int, end: int, ids: list[str]) -> _Group:
        """A name anchor; an ordinal before it picks among the items with that name."""
        before = text[max(0, start - 24) : start].lower()
        m = re.search(r"\b(" + "|".join(_ORDINALS) + r")\s+(?:\w+\s+)?$", before)
        if m and len(ids) > 1:
            index = _ORDINALS[m.group(1)]
            if index < len(ids):
                return _Group(
                    start - (len(before) - m.start()), end, "position", ids[index], (ids[index],)
                )
        target = ids[0] if len(ids) == 1 else None
        return _Group(start, end, "name", target, tuple(ids))


def _merge(text: str, groups: list[_Group]) -> list[_Group]:
    """Join a name and an id (or two forms of one item) written close together."""
    out: list[_Group] = []
    for g in groups:
        if out and g.start < out[-1].end:
            continue  # overlapping forms (a head noun inside a name)
        prev = out[-1] if out else None
        joined = prev is not None and g.start - prev.end <= 30 and _compatible(prev, g)
        between = text[prev.end : g.start] if prev is not None else ""
        # a name, its options and an id: the order item's, or a variant not in the order
        display = (
            prev is not None
            and (_compatible(prev, g) or _variant(prev, g))
            and _DISPLAY.match(between)
        )
        if prev is not None and ((joined and _JOINER.match(between)) or display):
            named = prev if prev.how in ("name", "position") else g
            ident = g if named is prev else prev
            target = ident.target if ident.how == "id" else named.target
            cands = tuple(c for c in named.candidates if c == target) or named.candidates
            how = "id" if ident.how == "id" else named.how
            out[-1] = _Group(prev.start, g.end, how, target, cands, prev.trailing)
            continue
        out.append(g)
    return out


_JOINER = re.compile(
    r"^[\s*()\[\]:#,—–-]*(?:item[ _]?id|item|id|sku|variant|item number)?[\s*()\[\]:#,—–-]*$",
    re.I,
)
# a display line with the options before the id: "Tablet (10-inch, 128GB, gold) — Item
# ID 123", "Tablet, 10-inch / 128GB / gold, item 123"
_DISPLAY = re.compile(
    r"^\s*(?:\([^()\n]{1,120}\)|[,:—–-]\s*[^()\n.;]{1,120}?)\s*[,:;—–|-]*\s*\(?\s*\**"
    r"(?:item[ _]?id|item|id|sku|variant|item number)?\**\s*[:#]?\s*\**\s*$",
    re.I,
)
_ADJECTIVES = re.compile(
    r"\b(?:your|the|my|this|that|its|a|an)\s+((?:[\w%.\"'-]+,?\s+){1,4})$", re.I
)


def _variant(a: _Group, b: _Group) -> bool:
    """A name followed by an id of no order item (a variant of the product, offered or
    chosen: "Tablet (10-inch, 64GB, gold) — Item ID 123")."""
    return a.how == "name" and b.how == "id" and not b.candidates


def _compatible(a: _Group, b: _Group) -> bool:
    kinds = {a.how, b.how}
    if "id" in kinds and kinds != {"id"}:
        named, ident = (a, b) if a.how != "id" else (b, a)
        return ident.target in named.candidates
    return False


# ---- a line: groups, their spans and the values said of them ---------------------------


def _before_start(text: str, lo: int, hi: int) -> int:
    """Where a description written before an anchor starts: after the last separator
    between ``lo`` (the previous anchor) and ``hi`` (the anchor or its parenthesis)."""
    region = text[lo:hi]
    stripped = region.rstrip(" \t([—–-:*,")
    cut = 0
    for m in _SEPARATOR.finditer(stripped):
        cut = m.end()
    return lo + cut


def _spans(text: str, groups: list[_Group]) -> list[tuple[int, int]]:
    """The text each group's values are read from: after a leading anchor up to the next
    anchor's description; before a trailing "(item 123)" back to a separator."""
    starts = []
    for i, g in enumerate(groups):
        lo = groups[i - 1].end if i else 0
        paren = text.rfind("(", lo, g.start + 1)
        starts.append(_before_start(text, lo, paren if paren >= 0 else g.start))
    for i, g in enumerate(groups):
        # "your red T-Shirt", "the black Smart Watch (item id 123)": the words between a
        # determiner and the name that opens the anchor (not a bare id) describe the item
        if not g.trailing:
            lo = groups[i - 1].end if i else 0
            m = _ADJECTIVES.search(text[lo : g.start])
            named = not ITEM_ID.match(text, g.start)
            starts[i] = lo + m.start(1) if m and named else g.start
    spans = []
    for i, g in enumerate(groups):
        nxt = groups[i + 1] if i + 1 < len(groups) else None
        end = len(text) if nxt is None else starts[i + 1]
        spans.append((starts[i], max(g.end, end)))
    return spans


def _role_at(context: str, base: str) -> str:
    """The role of a value given the text before it in its reference."""
    role = base
    shift = list(_SHIFT.finditer(context))
    request = list(_REQUEST.finditer(_ACTION_REQUESTED.sub(_blank, context)))
    if shift and (not request or shift[-1].start() > request[-1].start()):
        role = "replacement"
    elif request:
        role = "requested"
    if role == "replacement" and CRITERION.search(context):
        role = "chosen"
    return role


def said_in(
    text: str, span: tuple[int, int], values: Mapping[str, Sequence[str]], base: str, lead: str
) -> list[Said]:
    """The values written in ``span`` of ``text``; ``lead`` is the text before the
    reference (its line up to it), read for role cues."""
    out = []
    body = text[span[0] : span[1]]
    for offset, key, value, written in find_values(body, values):
        label = _label_key(body, offset, values)
        if label is not None and label != key:
            continue
        context = lead + " " + body[:offset]
        role = _role_at(context[-160:], base)
        if role == "replacement" and CRITERION.search(body):
            role = "chosen"
        out.append(Said(key, value, written, role))
    return out


_MENU_CUE = re.compile(
    r"\b(?:(?:is|are|it'?s|comes?|also|only)\s+(?:available|offered|sold|made)\s+in|comes?\s+in|"
    r"available\s+(?:in|options?|variants?|colou?rs?|sizes?|choices)|options?\s+(?:are|include)|"
    r"(?:choose|pick|select)\s+(?:from|between|among)|in stock\s+in|variants?\s*(?:are|include|:)|"
    r"(?:colou?rs?|sizes?|options?|choices)\s*:|either|one of)\b",
    re.I,
)


def menu_said(text: str, said: list[Said]) -> list[Said]:
    """Values of one option listed as a menu ("available in red, blue and black", "sizes:
    S / M / L") are the variants to choose from, not the item's own: three or more
    values of one option, or two with a menu cue, are ``offered``. Two values without a
    cue ("red, not blue") stay as they are: a check names both."""
    by_key: dict[str, set[str]] = {}
    for x in said:
        if x.role == "current":
            by_key.setdefault(x.key, set()).add(x.value)
    cue = bool(_MENU_CUE.search(text))
    listed = {k for k, v in by_key.items() if len(v) >= 3 or (len(v) >= 2 and cue)}
    return [
        Said(x.key, x.value, x.written, "offered") if x.key in listed and x.role == "current" else x
        for x in said
    ]


def line_references(
    line: str, order: Order, values: Mapping[str, Sequence[str]], base: str
) -> list[ItemReference]:
    """References of one line (a sentence at a time)."""
    out: list[ItemReference] = []
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z*(\[\"'])", line):
        groups = order.anchors(sentence)
        spans = _spans(sentence, groups)
        current: str | None = None
        for g, span in zip(groups, spans, strict=True):
            lead = sentence[: min(span[0], g.start)]
            role = base
            if g.target not in order.by_id and g.how == "id":
                shifted = current is not None or base == "replacement" or _SHIFT.search(lead)
                role = _role_at(lead, "replacement") if shifted else "offered"
            elif base == "current" and _SHIFT.search(lead[-60:]) and current is not None:
                role = "replacement"
            said = menu_said(sentence, said_in(sentence, span, values, role, lead))
            text = sentence[min(span[0], g.start) : max(span[1], g.end)]
            ref = ItemReference(g.target, g.candidates, g.how, text, said, role)
            if role in ("replacement", "chosen"):
                ref.replaces = current
            elif g.target in order.by_id and role == "current":
                current = g.target
            out.append(ref)
    return _alternatives(out)


def _alternatives(refs: list[ItemReference]) -> list[ItemReference]:
    """Several variants proposed for one item in one line are a menu: offered, not chosen."""
    counts: dict[str | None, int] = {}
    for r in refs:
        if r.role == "replacement" and r.how == "id":
            counts[r.replaces] = counts.get(r.replaces, 0) + 1
    for r in refs:
        if r.role == "replacement" and r.how == "id" and counts[r.replaces] >= 2:
            r.role = "offered"
            r.said = [Said(x.key, x.value, x.written, "offered") for x in r.said]
    return refs
