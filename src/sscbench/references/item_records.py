"""What ItemOption's use extraction reads from the visible records: the order's items as
last shown, the product variants delivered, the ids that are products (never items),
the option values to look for in text, and whether the user asked for a value."""

from __future__ import annotations

from typing import Any

from sscbench.core.view import LedgerView
from sscbench.references.item_lines import OrderItem
from sscbench.references.lookfor import ItemOptionLookFor
from sscbench.references.text import mentions


def variants_shown(view: LedgerView) -> dict[str, dict[str, Any]]:
    """item id -> options of every variant in the product records the ledger delivered."""
    out: dict[str, dict[str, Any]] = {}
    for call in view.calls:
        data = call.data
        if call.observation_step is None or not isinstance(data, dict):
            continue
        for vid, variant in (data.get("variants") or {}).items():
            if isinstance(variant, dict) and isinstance(variant.get("options"), dict):
                out[str(vid)] = variant["options"]
    return out


def user_asked(view: LedgerView, before: int, value: str) -> bool:
    """True when a user message before ``before`` names the option value."""
    return any(
        m.role == "user" and m.step < before and mentions(m.content, [value]) for m in view.messages
    )


def order_items(view: LedgerView, order_id: str | None, before: int) -> list[OrderItem]:
    """The items of the order as its latest read before ``before`` showed them."""
    items: list[OrderItem] = []
    for call in view.calls:
        data = call.data
        if call.observation_step is None or call.observation_step >= before:
            continue
        if isinstance(data, dict) and data.get("order_id") == order_id:
            items = [
                OrderItem(
                    str(it.get("item_id")),
                    str(it.get("name", "")),
                    {str(k): str(v) for k, v in (it.get("options") or {}).items()},
                    index,
                )
                for index, it in enumerate(data.get("items") or [])
                if isinstance(it, dict)
            ]
    return items


def product_ids(view: LedgerView) -> frozenset[str]:
    """Product ids the ledger showed (not items: never an item reference)."""
    out: set[str] = set()
    for call in view.calls:
        data = call.data
        if isinstance(data, dict):
            out |= {str(data["product_id"])} if "product_id" in data else set()
            for it in data.get("items") or []:
                if isinstance(it, dict) and "product_id" in it:
                    out.add(str(it["product_id"]))
    return frozenset(out)


def option_values(
    items: list[OrderItem], look_for: ItemOptionLookFor, view: LedgerView
) -> dict[str, list[str]]:
    """Every value each option of the item's product takes in the records shown."""
    mine = next((i for i in items if i.item_id == look_for.item_id), None)
    keys = set(mine.options) if mine else set()
    values: dict[str, set[str]] = {k: {mine.options[k]} for k in keys} if mine else {}
    for options in variants_shown(view).values():
        if set(options) == keys:
            for k in keys:
                values[k].add(str(options[k]))
    values.setdefault(look_for.option, set()).update({look_for.injected, look_for.authoritative})
    return {k: sorted(v, key=len, reverse=True) for k, v in values.items()}
