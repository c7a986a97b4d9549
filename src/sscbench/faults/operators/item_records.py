"""What an ItemOption measurement reads from the visible records: the order's items as
last shown, the product variants delivered, the ids that are products (never items),
the option values to look for in text, and whether the user asked for a value."""

from __future__ import annotations

from typing import Any

from sscbench.core.item_lines import OrderItem
from sscbench.core.values import INF
from sscbench.core.view import LedgerView
from sscbench.faults.contract import FaultContract
from sscbench.faults.family import labelled_reads
from sscbench.faults.operators.base import mentions


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


def order_items(view: LedgerView, order_id: Any, before: int) -> list[OrderItem]:
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
    items: list[OrderItem], contract: FaultContract, view: LedgerView
) -> dict[str, list[str]]:
    """Every value each option of the item's product takes in the records shown."""
    target = contract.target
    mine = next((i for i in items if i.item_id == target.entity_id), None)
    keys = set(mine.options) if mine else set()
    values: dict[str, set[str]] = {k: {mine.options[k]} for k in keys} if mine else {}
    for options in variants_shown(view).values():
        if set(options) == keys:
            for k in keys:
                values[k].add(str(options[k]))
    key = target.attribute.split(".", 1)[1]
    values.setdefault(key, set()).update(
        {str(contract.injected_value), str(contract.authoritative_value)}
    )
    return {k: sorted(v, key=len, reverse=True) for k, v in values.items()}


def one_option_neighbours(product: dict[str, Any], item_id: str) -> list[tuple[str, str, Any]]:
    """Variants differing from ``item_id`` in exactly one option: (variant id, key, value)."""
    variants = product.get("variants", {})
    mine = variants.get(item_id, {}).get("options", {})
    out = []
    for other_id in sorted(variants):
        if other_id == item_id:
            continue
        theirs = variants[other_id].get("options", {})
        if set(theirs) != set(mine):
            continue
        diff = [k for k in mine if mine[k] != theirs[k]]
        if len(diff) == 1:
            out.append((other_id, diff[0], theirs[diff[0]]))
    return out


# writes whose answer is the order record with every item still in it
ORDER_KEEPING_WRITES = {
    "return_delivered_order_items",
    "exchange_delivered_order_items",
    "cancel_pending_order",
    "modify_pending_order_address",
    "modify_pending_order_payment",
}


def labelled_option_evidence(p: dict[str, Any], labels: dict[str, Any], t_f: int) -> Any:
    """ItemOption's T_E from calibration labels: a later order read, or an order read
    together with the product's."""
    orders = sorted(
        labelled_reads(labels, "get_order_details", order_id=p["order_id"])
        + [
            w["observation_step"]
            for w in labels.get("writes", [])
            if w["name"] in ORDER_KEEPING_WRITES
            and (w.get("arguments") or {}).get("order_id") == p["order_id"]
            and w.get("acknowledged")
        ]
    )
    products = labelled_reads(labels, "get_product_details", product_id=p["product_id"])
    options = [s for s in orders if s > t_f]  # a later read shows the true option
    if products and orders:
        options.append(max(min(orders), min(products)))
    return min(options) if options else INF
