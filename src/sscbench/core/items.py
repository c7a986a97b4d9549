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
whose identifier line: ``item_id: 123``) names one item are about that item.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from sscbench.core.item_lines import (
    BULLET,
    CRITERION,
    ITEM_ID,
    ItemReference,
    Order,
    OrderItem,
    Said,
    find_values,
    line_references,
    said_in,
    value_pattern,
)

__all__ = ["ItemReference", "OrderItem", "Said", "find_values", "item_references", "value_pattern"]


# ---- blocks, tables and the whole text ------------------------------------------------

_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_IDENTIFIER = re.compile(
    r"^\s*(?:[-*•·+]\s+)?\**(?:item[ _]?id|id|item)\**\s*:\s*\**\d{10}\b(?!\s*[-→(])", re.I
)
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
        refs = {"current": ItemReference(None, (), "row", row), "replacement": None}
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
        current = refs["current"]
        out.append(current)
        for role in ("replacement", "requested"):
            extra = refs.get(role)
            if extra is not None:
                extra.replaces = current.target if role == "replacement" else None
                out.append(extra)
    return out


def _identity(
    lines: list[str], index: int, children: list[int], order: Order
) -> ItemReference | None:
    """The single item a block's head line (with its identifier lines: ``item_id: 123``)
    names, or None."""
    refs = [r for r in line_references(lines[index], order, {}, "current")]
    ids = {r.target for r in refs if r.how != "name" and r.target}
    names = [r for r in refs if r.how == "name"]
    for c in children:
        if _IDENTIFIER.match(lines[c]):
            ids |= {m.group(0) for m in ITEM_ID.finditer(lines[c])} - order.ignore
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
    """The index of each line's parent (the nearest earlier line less indented)."""
    out: list[int | None] = []
    stack: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        if not line.strip():
            out.append(None)
            continue
        level = _level(line)
        while stack and stack[-1][0] >= level:
            stack.pop()
        out.append(stack[-1][1] if stack else None)
        stack.append((level, i))
    return out


def _is_menu(lines: list[str], children: list[int], order: Order, own: str | None) -> bool:
    """True when a block lists several other items, one a line (variants to pick from)."""
    listed = set()
    for c in children:
        ids = {m.group(0) for m in ITEM_ID.finditer(lines[c])} - order.ignore - {own}
        if ids:
            listed.add(min(ids))
    return len(listed) >= 2


def item_references(
    text: str,
    items: Sequence[OrderItem],
    values: Mapping[str, Sequence[str]],
    ignore: frozenset[str] = frozenset(),
) -> list[ItemReference]:
    """Every reference to an item in ``text`` (order ``items`` as shown; ``values``: the
    option values to look for, by key; ``ignore``: ids that are not items, e.g. product
    ids), in text order, with the values said of each."""
    order = Order(items, ignore)
    lines = text.split("\n")
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
    _resolve(out, order)
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
    own = _identity(lines, i, children.get(i, []), order)
    if refs and own is not None and own.target is not None:
        for r in refs:
            if r.how == "name" and r.target is None and own.target in r.candidates:
                r.target, r.candidates, r.how = own.target, (own.target,), "block"
    if refs:
        return _described_variant(lines, children.get(i, []), refs, order)
    if _IDENTIFIER.match(lines[i]):
        return refs
    for a in ancestors:
        head = _identity(lines, a, children.get(a, []), order)
        if head is None:
            continue
        if _is_menu(lines, children.get(a, []), order, head.target):
            return []
        said = said_in(lines[i], (0, len(lines[i])), values, role, "")
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


def _resolve(refs: list[ItemReference], order: Order) -> None:
    """Name references shared by several items: an option set fitting one resolves it;
    replacements without an item take the last item stated before them."""
    last: str | None = None
    for ref in refs:
        if ref.target is None and len(ref.candidates) > 1:
            stated = [s for s in ref.said if s.role == "current"]
            fits = [
                c
                for c in ref.candidates
                if len(stated) >= 2
                and all(order.by_id[c].options.get(s.key) == s.value for s in stated)
            ]
            if len(fits) == 1:
                ref.target, ref.how = fits[0], "options"
        if ref.role in ("replacement", "chosen") and ref.replaces is None:
            ref.replaces = last
        elif ref.role == "current" and ref.target in order.by_id:
            last = ref.target
