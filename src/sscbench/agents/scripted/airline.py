"""Airline write handlers: state the facts, ask for confirmation, return the write.

Each handler returns ``(arguments, uses at the write)`` or None when the user declined.
Kept flight segments carry the dates the agent read, so a clean run reproduces the
ground truth exactly and a faulted date is what the write commits.
"""

from __future__ import annotations

from typing import Any

from sscbench.agents.scripted.statements import Statements
from sscbench.agents.scripted.transcript import Block, Script
from sscbench.agents.scripted_facts import (
    Obs,
    cabin_text,
    fact_flights,
    fact_return_date,
    money,
    passengers_text,
    segment_refs,
    segment_text,
    segments,
)


class AirlineHandlers(Statements):
    """The handlers of the airline world's writes."""

    def _h_update_flights(self, block: Block) -> Script:
        kw = block.step.kwargs
        rid = kw.get("reservation_id", "")
        res = block.record.record if block.record is not None else {}
        before = block.step.before.get("reservation") or {}
        observed, previous = segments(res), segments(before)
        cabin = kw.get("cabin")
        same_cabin = cabin == res.get("cabin")
        flights_table: dict[Any, Any] = self.world.base.tables.get("flights", {})
        used: list[dict[str, Any]] = []
        kept_index: list[int | None] = []
        taken: set[int] = set()
        for seg in kw.get("flights") or []:
            j = next(
                (
                    i
                    for i, old in enumerate(previous)
                    if i not in taken
                    and old.get("flight_number") == seg.get("flight_number")
                    and old.get("date") == seg.get("date")
                ),
                None,
            )
            if (
                j is not None
                and j < len(observed)
                and observed[j].get("flight_number") == seg.get("flight_number")
            ):
                taken.add(j)
                used.append({**seg, "date": observed[j].get("date")})
                kept_index.append(j)
            else:
                used.append(dict(seg))
                kept_index.append(None)

        def endpoints(i: int) -> tuple[Any, Any]:
            j = kept_index[i]
            if j is not None:
                return observed[j].get("origin"), observed[j].get("destination")
            flight = flights_table.get(used[i].get("flight_number")) or {}
            return flight.get("origin"), flight.get("destination")

        # split the new itinerary into directions to find a kept return segment
        first_return: int | None = None
        if res.get("flight_type") == "round_trip":
            for i in range(len(used)):
                if endpoints(i)[1] == res.get("destination"):
                    first_return = i + 1 if i + 1 < len(used) else None
                    break
        summary = self._reservation_summary(block)
        prices: dict[int, Any] = {}
        to_search = [i for i in range(len(used)) if not (kept_index[i] is not None and same_cabin)]
        if to_search:
            yield from self._say(summary + " Let me look up the flights for the change.")
            summary = ""
            searched: dict[tuple[Any, Any, Any], Obs] = {}
            for i in to_search:
                origin, destination = endpoints(i)
                date = used[i].get("date")
                where = (origin, destination, date)
                if where not in searched:
                    if kept_index[i] is not None:  # the search date comes from the record
                        self._use(
                            fact_flights(rid),
                            [segment_refs([used[i]])[0]],
                            block.record.step if block.record else None,
                            expected=segment_refs([kw["flights"][i]]),
                        )
                        if i == first_return:
                            self._use(
                                fact_return_date(rid),
                                date,
                                block.record.step if block.record else None,
                                expected=kw["flights"][i].get("date"),
                            )
                    searched[where] = yield from self._call(
                        "search_direct_flight",
                        {"origin": origin, "destination": destination, "date": date},
                        "lookup",
                    )
                found = searched[where].data
                for entry in found if isinstance(found, list) else ():
                    if isinstance(entry, dict) and entry.get("flight_number") == used[i].get(
                        "flight_number"
                    ):
                        prices[i] = (entry.get("prices") or {}).get(cabin)
        new_total: float | None = 0.0
        for i in range(len(used)):
            j = kept_index[i]
            price = observed[j].get("price") if j is not None and same_cabin else prices.get(i)
            if not isinstance(price, (int, float)) or new_total is None:
                new_total = None
            else:
                new_total += price
        old_total = sum(
            f.get("price", 0) for f in observed if isinstance(f.get("price"), (int, float))
        )
        pax = len(res.get("passengers") or []) or 1
        pid = kw.get("payment_id", "")
        payment = self._payment_clause(block, pid)
        parts = []
        for i, seg in enumerate(used):
            origin, destination = endpoints(i)
            mark = " (unchanged)" if kept_index[i] is not None else ""
            parts.append(segment_text({**seg, "origin": origin, "destination": destination}) + mark)
        text = (
            (summary + " " if summary else "")
            + f"I will change reservation {rid} to these flights in {cabin_text(cabin)}: "
            + ", ".join(parts)
            + "."
        )
        kept = [i for i in range(len(used)) if kept_index[i] is not None]
        if kept:
            self._use(
                fact_flights(rid),
                segment_refs(used),
                block.record.step if block.record else None,
                expected=segment_refs(kw.get("flights") or []),
            )
        if first_return is not None and kept_index[first_return] is not None:
            text += f" The return date stays {used[first_return].get('date')}."
            self._use(
                fact_return_date(rid),
                used[first_return].get("date"),
                block.record.step if block.record else None,
                expected=kw["flights"][first_return].get("date"),
            )
        if new_total is not None:
            diff = round((new_total - old_total) * pax, 2)
            block.amount = diff
            if diff > 0:
                text += f" The fare difference is {money(diff)} in total for {pax} passenger(s), charged to {payment}."
            elif diff < 0:
                text += f" The fare difference is {money(-diff)} in total for {pax} passenger(s), refunded to {payment}."
            else:
                text += f" There is no fare difference; the payment method on file is {payment}."
        else:
            text += f" Any fare difference will go to {payment}."
        if not (yield from self._confirm(text)):
            return None
        arguments = {
            "reservation_id": rid,
            "cabin": cabin,
            "flights": used,
            "payment_id": pid,
        }
        write_uses: list[tuple[str, Any, int | None, Any]] = []
        if kept:
            write_uses.append(
                (
                    fact_flights(rid),
                    segment_refs([used[i] for i in kept]),
                    block.record.step if block.record else None,
                    segment_refs([kw["flights"][i] for i in kept]),
                )
            )
        if first_return is not None and kept_index[first_return] is not None:
            write_uses.append(
                (
                    fact_return_date(rid),
                    used[first_return].get("date"),
                    block.record.step if block.record else None,
                    kw["flights"][first_return].get("date"),
                )
            )
        return arguments, write_uses

    def _h_update_baggages(self, block: Block) -> Script:
        kw = block.step.kwargs
        res = block.record.record if block.record is not None else {}
        summary = self._reservation_summary(block)
        old_total, old_paid = res.get("total_baggages"), res.get("nonfree_baggages")
        total, paid = kw.get("total_baggages"), kw.get("nonfree_baggages")
        fee = 50 * max(0, (paid or 0) - (old_paid if isinstance(old_paid, int) else 0))
        block.amount = fee
        payment = self._payment_clause(block, kw.get("payment_id", ""))
        text = (
            f"{summary} It has {old_total} checked bags now ({old_paid} paid). I will set it "
            f"to {total} checked bags ({paid} paid); the fee is {money(fee)}, charged to {payment}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_update_passengers(self, block: Block) -> Script:
        kw = block.step.kwargs
        summary = self._reservation_summary(block)
        text = f"{summary} I will set the passengers to: {passengers_text(kw.get('passengers'))}."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_cancel_reservation(self, block: Block) -> Script:
        kw = block.step.kwargs
        res = block.record.record if block.record is not None else {}
        summary = self._reservation_summary(block)
        refunds = []
        for pay in res.get("payment_history") or []:
            if isinstance(pay, dict) and isinstance(pay.get("payment_id"), str):
                refunds.append(
                    f"{money(pay.get('amount'))} to {self._payment_clause(block, pay['payment_id'])}"
                )
        text = f"{summary} I will cancel reservation {kw.get('reservation_id')}."
        if refunds:
            text += " Refunds: " + "; ".join(refunds) + "."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_book(self, block: Block) -> Script:
        kw = block.step.kwargs
        cabin = kw.get("cabin")
        flights_table = self.world.base.tables.get("flights", {})
        prices: list[Any] = []
        searched: dict[tuple[Any, Any, Any], Obs] = {}
        for seg in kw.get("flights") or []:
            flight = flights_table.get(seg.get("flight_number")) or {}
            where = (flight.get("origin"), flight.get("destination"), seg.get("date"))
            if where not in searched:
                searched[where] = yield from self._call(
                    "search_direct_flight",
                    {"origin": where[0], "destination": where[1], "date": where[2]},
                    "lookup",
                )
            price = None
            found = searched[where].data
            for entry in found if isinstance(found, list) else ():
                if isinstance(entry, dict) and entry.get("flight_number") == seg.get(
                    "flight_number"
                ):
                    price = (entry.get("prices") or {}).get(cabin)
            prices.append(price)
        passengers = kw.get("passengers") or []
        pax = len(passengers)
        paid = kw.get("nonfree_baggages") or 0
        insurance = kw.get("insurance")
        trip = "round trip" if kw.get("flight_type") == "round_trip" else "one-way trip"
        legs = ", ".join(
            f"{seg.get('flight_number')} on {seg.get('date')}"
            + (f" ({money(price)} per passenger)" if price is not None else "")
            for seg, price in zip(kw.get("flights") or [], prices, strict=False)
        )
        text = (
            f"I will book a {trip} from {kw.get('origin')} to {kw.get('destination')} in "
            f"{cabin_text(cabin)} for {passengers_text(passengers)}. Flights: {legs}. "
            f"Checked bags: {kw.get('total_baggages')} ({paid} paid, {money(50 * paid)}). "
            f"Travel insurance: {insurance}"
            + (f" ({money(30 * pax)})" if insurance == "yes" else "")
            + "."
        )
        if all(isinstance(p, (int, float)) for p in prices):
            total = sum(prices) * pax + 50 * paid + (30 * pax if insurance == "yes" else 0)
            text += f" The total is {money(total)}."
        pays = [
            f"{money(m.get('amount'))} from {self._payment_clause(block, m.get('payment_id', ''))}"
            for m in kw.get("payment_methods") or []
            if isinstance(m, dict)
        ]
        if pays:
            text += " Payment: " + "; ".join(pays) + "."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_send_certificate(self, block: Block) -> Script:
        kw = block.step.kwargs
        text = f"I can add a travel certificate of {money(kw.get('amount'))} to your account."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []
