"""Stating facts: a write block's record summary, items, payment methods and checks.

Every value stated comes from an observation the agent received (a faulted value is
what it states), and each statement records a use of the fact with the tool event it
came from; the checks (a product's bound variant, a re-read payment category, a round
trip whose dates contradict each other) record verifications.
"""

from __future__ import annotations

from sscbench.agents.scripted.transcript import Block, Script
from sscbench.agents.scripted.turns import Turns
from sscbench.agents.scripted_facts import (
    Obs,
    as_list,
    as_text,
    cabin_text,
    date_contradiction,
    directions,
    fact_cabin,
    fact_flights,
    fact_options,
    fact_payment,
    fact_return_date,
    item_options,
    length,
    money,
    objects,
    options_text,
    order_item,
    payment_category,
    payment_text,
    return_date,
    segment_refs,
    segment_text,
    segments,
    variant,
)
from sscbench.json_types import JsonObject


class Statements(Turns):
    """What a write block reads and states before it asks for confirmation."""

    def _payment_ids(self, block: Block) -> list[str]:
        kw = block.step.kwargs
        ids: list[str] = []
        for name in ("payment_id", "payment_method_id"):
            value = kw.get(name)
            if isinstance(value, str):
                ids.append(value)
        for method in objects(kw.get("payment_methods")):
            value = method.get("payment_id")
            if isinstance(value, str):
                ids.append(value)
        if block.step.name in ("cancel_reservation", "cancel_pending_order") and block.record:
            for pay in objects(block.record.record.get("payment_history")):
                pid = pay.get("payment_id") or pay.get("payment_method_id")
                if isinstance(pid, str):
                    ids.append(pid)
        if block.step.name == "modify_pending_order_payment" and block.record:
            history = as_list(block.record.record.get("payment_history"))
            if history and isinstance(history[0], dict):
                pid = history[0].get("payment_method_id")
                if isinstance(pid, str):
                    ids.append(pid)
        return ids

    def _consistency_check(self, obs: Obs) -> Script[Obs | None]:
        """Re-read a reservation whose return date precedes its outbound date."""
        contradiction = date_contradiction(obs.record)
        if contradiction is None:
            return obs
        rid = obs.arguments.get("reservation_id", "")  # stated as given
        bad, outbound = contradiction
        before = self._before_record("reservation")
        self._use(fact_return_date(rid), bad, obs.step, kind="verify", expected=return_date(before))
        again = yield from self._call(
            "get_reservation_details",
            {"reservation_id": rid},
            "recheck",
            content=(
                f"Reservation {rid} shows a return date of {bad}, before its outbound date "
                f"{outbound}, which cannot be right for a round trip. Let me re-check it."
            ),
        )
        still = date_contradiction(again.record)
        if still is None:
            return again
        self._use(
            fact_return_date(rid), still[0], again.step, kind="verify", expected=return_date(before)
        )
        yield from self._say(
            f"The record of reservation {rid} still shows a return date ({still[0]}) before "
            f"its outbound date ({still[1]}). I cannot safely change it, so I am transferring "
            "you to a human agent."
        )
        yield from self._call(
            "transfer_to_human_agents",
            {"summary": f"Reservation {rid} has inconsistent dates; the user needs help."},
            "transfer",
        )
        return None

    def _before_record(self, kind: str) -> JsonObject | None:
        """The authoritative record of ``kind`` before the current ground-truth write."""
        step = self._current_step
        return step.before.get(kind) if step is not None else None

    def _payment_clause(self, block: Block, pid: str) -> str:
        """``pid (category)``, with a use of the category (and a check note if it changed)."""
        user = block.user.record if block.user is not None else {}
        category = payment_category(user, pid)
        expected = payment_category(block.step.before.get("user"), pid)
        note = ""
        earlier = block.earlier_user
        if earlier is not None and category is not None:
            previous = payment_category(earlier.record, pid)
            if previous is not None and previous != category:
                self._use(
                    fact_payment(pid), previous, earlier.step, kind="verify", expected=expected
                )
                note = (
                    f"; your profile showed it as {previous.replace('_', ' ')} before, and I "
                    "am going by the latest record"
                )
        if category is not None and block.user is not None:
            self._use(fact_payment(pid), category, block.user.step, expected=expected)
            return f"{pid} ({category.replace('_', ' ')}{note})"
        return payment_text(pid, category)

    def _reservation_summary(self, block: Block) -> str:
        obs = block.record
        rid = block.step.kwargs.get("reservation_id", "")
        if obs is None or obs.error or not obs.record:
            return f"I could not read reservation {rid}."
        res = obs.record
        before = block.step.before.get("reservation") or {}
        out, back = directions(res)
        passengers = length(res.get("passengers"))
        trip = "round trip" if res.get("flight_type") == "round_trip" else "one-way trip"
        text = (
            f"Reservation {rid} is a {trip} from {res.get('origin')} to "
            f"{res.get('destination')} in {cabin_text(res.get('cabin'))} for "
            f"{passengers} passenger{'s' if passengers != 1 else ''}. "
            f"Outbound: {', '.join(segment_text(f) for f in out)}."
        )
        self._use(
            fact_flights(rid),
            segment_refs(segments(res)),
            obs.step,
            expected=segment_refs(segments(before)),
        )
        self._use(fact_cabin(rid), res.get("cabin"), obs.step, expected=before.get("cabin"))
        if back:
            text += (
                f" Return: {', '.join(segment_text(f) for f in back)}; the return date is "
                f"{back[0].get('date')}."
            )
            self._use(
                fact_return_date(rid), return_date(res), obs.step, expected=return_date(before)
            )
        return text

    def _lookup_products(self, block: Block, item_ids: list[str]) -> Script[dict[str, Obs]]:
        """Product records of the given items (read when not read before)."""
        products = block.products if block.products is not None else {}
        order = block.record.record if block.record is not None else {}
        for iid in item_ids:
            item = order_item(order, iid)
            pid = item.get("product_id") if item else None
            if isinstance(pid, str) and pid not in products:
                products[pid] = yield from self._ensure(("product", pid))
        block.products = products
        return products

    def _items_clause(self, block: Block, item_ids: list[str]) -> str:
        """Each item's name, id, options and price, with a use of its options."""
        obs = block.record
        if obs is None:
            return ", ".join(item_ids)
        order = obs.record
        oid = block.step.kwargs.get("order_id", "")
        before = block.step.before.get("order")
        parts: list[str] = []
        seen: set[str] = set()
        for iid in item_ids:
            if iid in seen:
                continue
            seen.add(iid)
            item = order_item(order, iid)
            if item is None:
                parts.append(f"item {iid}")
                continue
            options, source, note = item.get("options"), obs.step, ""
            expected = item_options(before, iid)
            products = block.products or {}
            product = products.get(as_text(item.get("product_id")))
            if product is not None and block.decisions.product_lookup:
                bound = variant(product.record, iid)
                bound_options = bound.get("options") if bound is not None else None
                if isinstance(bound_options, dict):
                    if bound_options != options:
                        self._use(
                            fact_options(oid, iid),
                            options,
                            obs.step,
                            kind="verify",
                            expected=expected,
                        )
                        note = (
                            f" (the order lists {options_text(options)}, but the product "
                            f"catalog lists item {iid} as {options_text(bound_options)}; "
                            "I am going by the catalog)"
                        )
                    options, source = bound_options, product.step
            self._use(fact_options(oid, iid), options, source, expected=expected)
            parts.append(
                f"{item.get('name')} (item {iid}: {options_text(options)}; "
                f"{money(item.get('price'))}){note}"
            )
        return "; ".join(parts)
