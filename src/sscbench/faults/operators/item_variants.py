"""ItemOption's own helpers beside its operator: which variants make a fault (those one
option apart from the ordered item) and T_E from the scripted agents' calibration labels."""

from __future__ import annotations

from typing import Any

from sscbench.core.values import INF, Step
from sscbench.faults.family import label_arguments, label_rows, labelled_reads
from sscbench.json_types import JsonMapping


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


def labelled_option_evidence(order_id: str, product_id: str, labels: JsonMapping, t_f: int) -> Step:
    """ItemOption's T_E from calibration labels: a later order read, or an order read
    together with the product's."""
    orders = sorted(
        labelled_reads(labels, "get_order_details", order_id=order_id)
        + [
            step
            for w in label_rows(labels, "writes")
            if w.get("name") in ORDER_KEEPING_WRITES
            and label_arguments(w).get("order_id") == order_id
            and w.get("acknowledged")
            and isinstance(step := w.get("observation_step"), int)
        ]
    )
    products = labelled_reads(labels, "get_product_details", product_id=product_id)
    options = [s for s in orders if s > t_f]  # a later read shows the true option
    if products and orders:
        options.append(max(min(orders), min(products)))
    return min(options) if options else INF
