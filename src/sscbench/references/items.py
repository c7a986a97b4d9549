"""References to order items in agent text, with the option values said of each.

The reference layer, apart from semantics: it finds every place a text refers to an
item (by item id, by product name — with its position, "the first T-shirt", "item 2"
— by the row of a markdown table, or by an option set that fits one item only) and
the option values written with it, each with a role: the item's ``current`` state, a
``requested`` variant (a restated user request: "you want the blue one"), a
``replacement`` the text proposes or made ("exchanged for the red one (item 123)",
"→ item 456", "New item: ..."), or a ``chosen`` replacement picked on another
criterion (the cheapest, the one in stock, the one the user asked for). High recall
first: operators decide what a reference means (use, reliance, none, undecidable).

Binding rules: a value written before an id it describes ("Blue, size M (item_id
123)") is said of that id; a name shared by two items of the order identifies neither
(the reference keeps both as candidates) unless an id, a position or an option set
that fits one of them resolves it; a row's cells are about that row's item, the
table's header tells which option a cell is; lines under a bullet whose line (or
whose identifier line: ``item_id: 123``) names one item are about that item; the
lines right after a line ending in a colon are under it; a key alone on its line
(``item_id:``) reads with the value lines under it. Text forms read like their plain
forms: a token in a code span or bold (``Item `123` ``) as the token, a field/value
table (``| Field | Value |``) as its ``field: value`` lines, under the line right
above it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from sscbench.references.item_lines import (
    BULLET,
    CRITERION,
    ITEM_ID,
    ItemReference,
    Order,
    OrderItem,
    Said,
    find_values,
    line_references,
    menu_said,
    said_in,
)

__all__ = ["item_references"]


# ---- blocks, tables and the whole text ------------------------------------------------

# a token in a code span or bold ("`1151293680`", "**gift_card_123**"): the token itself
_MARKED = re.compile(r"(`|\*\*)([^\s`*]+)\1")
_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_IDENTIFIER = re.compile(
    r"^\s*(?:[-*•·+]\s+)?\**(?:item[ _]?id|id|item)\**\s*:\s*\**\d{10}\b(?!\s*[-→(])", re.I
)
# an identifier key with its value on the lines under it ("- item_id:" / "  123")
_ID_LABEL = re.compile(r"^\s*(?:[-*•·+]\s+)?\**(?:item[ _]?id|id)\**\s*:\s*\**\s*$", re.I)
_KEY_ALONE = re.compile(r"^\s*(?:[-*•·+]\s+)?\**[A-Za-z][\w ]{0,30}\**\s*:\s*\**\s*$")
_SHIFT_LABEL = re.compile(
    r"^\W*(?:new|replacement|to|target|exchange[ _]to|new[ _]item\w*|proposed|swap[ _]to)\b", re.I
)
_REQUEST_LABEL = re.compile(r"^\W*(?:requested|desired|preferred|wanted)\b", re.I)


def _level(line: str) -> int:
    m = BULLET.match(line)
    if m:
        return len(m.group(1).expandtabs(4)) + 2
    return len(line) - len(line.lstrip(" \t"))


def _line_role(line: str) -> str:
    body = BULLET.sub("", line, count=1)
    if _SHIFT_LABEL.match(body):
        return "replacement"
    if _REQUEST_LABEL.match(body):
        return "requested"
    return "current"


def _table(
    rows: list[str], order: Order, values: Mapping[str, Sequence[str]]
) -> list[ItemReference]:
    """A markdown table: each row is about its item; a header names the option of a cell."""
    header = [c.strip(" *").lower() for c in _ROW.match(rows[0]).group(1).split("|")]  # type: ignore[union-attr]
    out: list[ItemReference] = []
    for row in rows[1:]:
        if _RULE.match(row):
            continue
        cells = [c.strip() for c in _ROW.match(row).group(1).split("|")]  # type: ignore[union-attr]
        current = ItemReference(None, (), "row", row)
        refs: dict[str, ItemReference | None] = {"current": current, "replacement": None}
        for head, cell in zip(header, cells, strict=False):
            role = "replacement" if _SHIFT_LABEL.match(head) or "new" in head.split() else "current"
            role = "requested" if _REQUEST_LABEL.match(head) else role
            ref = refs.get(role) or ItemReference(None, (), "row", row, role=role)
            refs[role] = ref
            for g in order.anchors(cell):
                if ref.target is None or ref.how == "row" or g.how == "id":
                    ref.target, ref.candidates = g.target, g.candidates or ref.candidates
            keyed = {k: v for k, v in values.items() if k.lower() in head} or values
            ref.said += [Said(k, v, w, role) for _, k, v, w in find_values(cell, keyed)]
        out.append(current)
        for role in ("replacement", "requested"):
            extra = refs.get(role)
            if extra is not None:
                extra.replaces = current.target if role == "replacement" else None
                out.append(extra)
    return out


def _entry_text(lines: list[str], index: int, kids: dict[int, list[int]]) -> str:
    """A line as the entry it heads: a key alone (``name:``, its value written on the
    lines under it, as a JSON value with line breaks is rendered) with those plain lines
    joined after it; any other line as it is."""
    if not _KEY_ALONE.match(lines[index]):
        return lines[index]
    under = [lines[c].strip() for c in kids.get(index, []) if not BULLET.match(lines[c])]
    return " ".join([lines[index], *under])


def _identity(
    lines: list[str], index: int, kids: dict[int, list[int]], order: Order
) -> ItemReference | None:
    """The single item a block's head line (with its identifier lines: ``item_id: 123``,
    or ``item_id:`` over the id) names, or None."""
    refs = [r for r in line_references(_entry_text(lines, index, kids), order, {}, "current")]
    ids = {r.target for r in refs if r.how != "name" and r.target}
    names = [r for r in refs if r.how == "name"]
    for c in kids.get(index, []):
        if _IDENTIFIER.match(lines[c]) or _ID_LABEL.match(lines[c]):
            text = _entry_text(lines, c, kids)
            ids |= {m.group(0) for m in ITEM_ID.finditer(text)} - order.ignore
    if len(ids) > 1:
        return None
    if ids:
        (iid,) = ids
        if all(iid in r.candidates for r in names):
            return ItemReference(iid, (iid,) if iid in order.by_id else (), "block", "")
        return None
    if len(names) == 1:
        return ItemReference(names[0].target, names[0].candidates, "block", "")
    return None


def _parents(lines: list[str]) -> list[int | None]:
    """The index of each line's parent (the nearest earlier line less indented); the
    lines right after a line ending in a colon ("... is available:"), up to a blank
    line, are under it however they are indented."""
    out: list[int | None] = []
    stack: list[tuple[int, int]] = []
    offset, previous = 0, None
    for i, line in enumerate(lines):
        if not line.strip():
            out.append(None)
            offset, previous = 0, None
            continue
        level = _level(line) + offset
        if previous is not None and lines[i - 1].rstrip(" *").endswith(":") and level <= previous:
            offset += previous + 1 - level
            level = previous + 1
        while stack and stack[-1][0] >= level:
            stack.pop()
        out.append(stack[-1][1] if stack else None)
        stack.append((level, i))
        previous = level
    return out


_FIELD_HEAD = re.compile(
    r"(?:field|attribute|property|detail|key|option|spec|specification|parameter)s?", re.I
)
_VALUE_HEAD = re.compile(r"(?:value|detail|info|information|setting)s?", re.I)


def _cells(row: str) -> list[str]:
    return [c.strip() for c in _ROW.match(row).group(1).split("|")]  # type: ignore[union-attr]


def field_tables(lines: list[str], order: Order) -> list[str]:
    """Two-column field/value tables ("| Field | Value |") as the ``field: value`` bullet
    lines they tabulate; a table right under a line (no blank line between) is under
    that line, like its bullet lines (an item's attributes under the item's line). A
    table is about one thing: when one row names an item, the rows after it are its."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        head = _cells(lines[i]) if _ROW.match(lines[i]) else []
        fields = len(head) == 2 and i + 1 < len(lines) and _RULE.match(lines[i + 1])
        if not (
            fields
            and _FIELD_HEAD.fullmatch(head[0].strip("* "))
            and _VALUE_HEAD.fullmatch(head[1].strip("* "))
        ):
            out.append(lines[i])
            i += 1
            continue
        pad = len(lines[i]) - len(lines[i].lstrip())
        if out and out[-1].strip():
            pad = max(pad, _level(out[-1]))
        rows = []
        i += 2
        while i < len(lines) and _ROW.match(lines[i]):
            if not _RULE.match(lines[i]):
                key, *value = _cells(lines[i])
                rows.append(f"{key}: {' | '.join(value)}")
            i += 1
        naming = [n for n, row in enumerate(rows) if order.anchors(row)]
        owner = naming[0] if len(naming) == 1 else len(rows)
        out += [" " * (pad + 2 * (n > owner)) + f"- {row}" for n, row in enumerate(rows)]
    return out


def _is_menu(lines: list[str], children: list[int], order: Order, own: str | None) -> bool:
    """True when a block lists several other items, one a line (variants to pick from)."""
    listed = set()
    for c in children:
        ids = {m.group(0) for m in ITEM_ID.finditer(lines[c])} - order.ignore - {own}
        if ids:
            listed.add(min(ids))
    return len(listed) >= 2


def unmarked(text: str) -> str:
    """The text with every single token written as code or bold ("Item `123`",
    "**gift_card_1**") written plain: the marks are emphasis, not part of the token."""
    return _MARKED.sub(r"\2", text)


def item_references(
    text: str,
    items: Sequence[OrderItem],
    values: Mapping[str, Sequence[str]],
    ignore: frozenset[str] = frozenset(),
    disputed: str | None = None,
) -> list[ItemReference]:
    """Every reference to an item in ``text`` (order ``items`` as shown; ``values``: the
    option values to look for, by key; ``ignore``: ids that are not items, e.g. product
    ids; ``disputed``: the option in dispute, whose value alone never tells two items
    apart), in text order, with the values said of each."""
    order = Order(items, ignore)
    lines = field_tables(unmarked(text).split("\n"), order)
    parents = _parents(lines)
    children: dict[int, list[int]] = {}
    for i, p in enumerate(parents):
        if p is not None:
            children.setdefault(p, []).append(i)
    out: list[ItemReference] = []
    i = 0
    while i < len(lines):
        if _ROW.match(lines[i]) and i + 1 < len(lines) and _RULE.match(lines[i + 1]):
            j = i + 1
            while j < len(lines) and _ROW.match(lines[j]):
                j += 1
            out += _table(lines[i:j], order, values)
            i = j
            continue
        out += _block_line(lines, i, parents, children, order, values)
        i += 1
    _resolve(out, order, disputed)
    return out


def _block_line(
    lines: list[str],
    i: int,
    parents: list[int | None],
    children: dict[int, list[int]],
    order: Order,
    values: Mapping[str, Sequence[str]],
) -> list[ItemReference]:
    """The references of line ``i``; an anchorless line takes its block's item."""
    ancestors = []
    p = parents[i]
    while p is not None:
        ancestors.append(p)
        p = parents[p]
    role = _line_role(lines[i])
    for a in ancestors:
        if role == "current" and _line_role(lines[a]) != "current":
            role = _line_role(lines[a])
    refs = line_references(lines[i], order, values, role)
    own = _identity(lines, i, children, order)
    if refs and own is not None and own.target is not None:
        for r in refs:
            if r.how == "name" and r.target is None and own.target in r.candidates:
                r.target, r.candidates, r.how = own.target, (own.target,), "block"
    if refs:
        return _described_variant(lines, children.get(i, []), refs, order)
    if _IDENTIFIER.match(lines[i]):
        return refs
    for a in ancestors:
        head = _identity(lines, a, children, order)
        if head is None:
            continue
        if _is_menu(lines, children.get(a, []), order, head.target):
            return []
        said = menu_said(lines[i], said_in(lines[i], (0, len(lines[i])), values, role, ""))
        if not said:
            return []
        return [ItemReference(head.target, head.candidates, "block", lines[i], said, role)]
    return []


def _described_variant(
    lines: list[str], children: list[int], refs: list[ItemReference], order: Order
) -> list[ItemReference]:
    """A line naming an order item by name over an identifier line of another variant
    ("Keyboard: a clicky one is available:" / "- Item ID: 123") describes that variant."""
    ids = {
        m.group(0)
        for c in children
        if _IDENTIFIER.match(lines[c])
        for m in ITEM_ID.finditer(lines[c])
    } - order.ignore
    if len(ids) != 1 or next(iter(ids)) in order.by_id:
        return refs
    (variant,) = ids
    for r in refs:
        if r.how == "name" and r.target in order.by_id and r.role == "current":
            r.replaces, r.target, r.candidates, r.role = r.target, variant, (), "replacement"
            role = "chosen" if CRITERION.search(r.text) else "replacement"
            r.said = [Said(x.key, x.value, x.written, role) for x in r.said]
    return refs


def _fitting(ref: ItemReference, order: Order, disputed: str | None = None) -> list[str]:
    """The candidates whose shown options fit every current value said of the reference
    (the option in dispute aside, when others are said: the words that identify the item
    are the undisputed ones; the disputed value is what is said of it)."""
    stated = [s for s in ref.said if s.role == "current"]
    if disputed is not None and any(s.key != disputed for s in stated):
        stated = [s for s in stated if s.key != disputed]
    if not stated:
        return []
    return [
        c
        for c in ref.candidates
        if all(order.by_id[c].options.get(s.key) == s.value for s in stated)
    ]


def _resolve(refs: list[ItemReference], order: Order, disputed: str | None = None) -> None:
    """Name references shared by several items: an option set fitting one resolves it
    (two values or more; or one value of an option not in dispute — "the canister
    vacuum" when the order has a canister and a robotic one); references in one text
    that tell the items apart, each by a value only one of them has, resolve together;
    replacements without an item take the last item stated before them."""
    open_refs = [r for r in refs if r.target is None and len(r.candidates) > 1]
    for ref in open_refs:
        keys = {s.key for s in ref.said if s.role == "current"}
        fits = _fitting(ref, order, disputed)
        if len(fits) == 1 and (len(keys) >= 2 or (disputed is not None and disputed not in keys)):
            ref.target, ref.how = fits[0], "options"
    apart = [r for r in open_refs if r.target is None and len(_fitting(r, order)) == 1]
    picks = [_fitting(r, order)[0] for r in apart]
    if len(apart) >= 2 and len(set(picks)) == len(picks):
        for r, pick in zip(apart, picks, strict=True):
            r.target, r.how = pick, "options"
    last: str | None = None
    for ref in refs:
        if ref.role in ("replacement", "chosen") and ref.replaces is None:
            ref.replaces = last
        elif ref.role == "current" and ref.target in order.by_id:
            last = ref.target
