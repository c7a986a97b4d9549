"""Retail write handlers: state the facts, ask for confirmation, return the write.

Each handler returns ``(arguments, uses at the write)`` or None when the user declined.
"""

from __future__ import annotations

from sscbench.agents.scripted.statements import Statements
from sscbench.agents.scripted.transcript import Block, Prepared, Script
from sscbench.agents.scripted_facts import (
    address_text,
    as_list,
    as_text,
    money,
    objects,
    options_text,
    order_item,
    variant,
)
from sscbench.json_types import JsonValue


def _strings(value: JsonValue) -> list[str]:
    """The strings of a ground-truth list argument (item ids)."""
    return [i for i in as_list(value) if isinstance(i, str)]


class RetailHandlers(Statements):
    """The handlers of the retail world's writes."""

    def _h_swap_items(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        oid = kw.get("order_id", "")
        order = block.record.record if block.record is not None else {}
        item_ids = _strings(kw.get("item_ids"))
        new_ids = _strings(kw.get("new_item_ids"))
        if block.decisions.product_lookup:
            yield from self._lookup_products(block, item_ids)
        facts = (
            f"Order {oid} is {order.get('status')} and has: {self._items_clause(block, item_ids)}."
        )
        missing = [
            iid
            for iid in item_ids
            if as_text((order_item(order, iid) or {}).get("product_id"), "")
            not in (block.products or {})
        ]
        if missing:
            yield from self._say(facts + " Let me look up the replacement options.")
            facts = ""
            yield from self._lookup_products(block, missing)
        pairs, difference, known = [], 0.0, True
        for iid, nid in zip(item_ids, new_ids, strict=False):
            item = order_item(order, iid) or {}
            product = (block.products or {}).get(as_text(item.get("product_id")))
            bound = variant(product.record, nid) if product is not None else None
            new_price = bound.get("price") if bound is not None else None
            if bound is None or not isinstance(new_price, (int, float)):
                known = False
                pairs.append(f"item {iid} → item {nid}")
                continue
            old_price = item.get("price")
            if isinstance(old_price, (int, float)):
                difference += new_price - old_price
            else:
                known = False
            pairs.append(
                f"{item.get('name')} item {iid} → item {nid} ({options_text(bound.get('options'))}; "
                f"{money(bound.get('price'))})"
            )
        verb = "exchange" if block.step.name == "exchange_delivered_order_items" else "change"
        text = (facts + " " if facts else "") + f"I will {verb}: " + "; ".join(pairs) + "."
        if not facts:
            text += f" The current items: {self._items_clause(block, item_ids)}."
        payment = self._payment_clause(block, as_text(kw.get("payment_method_id", "")))
        if known:
            difference = round(difference, 2)
            block.amount = difference
            if difference > 0:
                text += f" You pay a price difference of {money(difference)} with {payment}."
            elif difference < 0:
                text += f" You get {money(-difference)} back to {payment}."
            else:
                text += f" There is no price difference; the payment method is {payment}."
        else:
            text += f" Any price difference goes to {payment}."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_return(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        oid = kw.get("order_id", "")
        order = block.record.record if block.record is not None else {}
        item_ids = _strings(kw.get("item_ids"))
        if block.decisions.product_lookup:
            yield from self._lookup_products(block, item_ids)
        refund, used = 0.0, set()
        items = as_list(order.get("items"))
        for iid in item_ids:
            for k, item in enumerate(items):
                if k not in used and isinstance(item, dict) and item.get("item_id") == iid:
                    used.add(k)
                    price = item.get("price")
                    if isinstance(price, (int, float)):
                        refund += price
                    break
        block.amount = -round(refund, 2)
        payment = self._payment_clause(block, as_text(kw.get("payment_method_id", "")))
        text = (
            f"I will return from order {oid}: {self._items_clause(block, item_ids)}. The refund "
            f"of {money(round(refund, 2))} goes to {payment}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_cancel_order(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        oid = kw.get("order_id", "")
        order = block.record.record if block.record is not None else {}
        item_ids = [
            item_id
            for i in objects(order.get("items"))
            if isinstance(item_id := i.get("item_id"), str)
        ]
        if block.decisions.product_lookup:
            yield from self._lookup_products(block, item_ids)
        refunds = []
        history = objects(order.get("payment_history"))
        amounts = [p.get("amount") for p in history if p.get("transaction_type") != "refund"]
        if all(isinstance(a, (int, float)) for a in amounts):
            block.amount = -round(sum(a for a in amounts if isinstance(a, (int, float))), 2)
        for pay in history:
            method_id = pay.get("payment_method_id")
            if isinstance(method_id, str):
                refunds.append(
                    f"{money(pay.get('amount'))} to {self._payment_clause(block, method_id)}"
                )
        text = (
            f"I will cancel order {oid} (reason: {kw.get('reason')}). It contains: "
            f"{self._items_clause(block, item_ids)}."
        )
        if refunds:
            text += " Refund: " + "; ".join(refunds) + "."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_order_address(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        order = block.record.record if block.record is not None else {}
        text = (
            f"Order {kw.get('order_id')} currently ships to {address_text(order.get('address'))}. "
            f"I will change its shipping address to {address_text(kw)}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_user_address(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        user = block.user.record if block.user is not None else {}
        text = (
            f"Your default address is {address_text(user.get('address'))}. I will change it "
            f"to {address_text(kw)}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_order_payment(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        order = block.record.record if block.record is not None else {}
        history = as_list(order.get("payment_history"))
        current = history[0] if history and isinstance(history[0], dict) else {}
        old = current.get("payment_method_id")
        text = f"Order {kw.get('order_id')} ({money(current.get('amount'))})"
        if isinstance(old, str):
            text += f" is paid with {self._payment_clause(block, old)}."
        else:
            text += "."
        text += (
            f" I will switch its payment to "
            f"{self._payment_clause(block, as_text(kw.get('payment_method_id', '')))}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []
