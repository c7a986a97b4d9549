"""Airline write handlers: state the facts, ask for confirmation, return the write.

Each handler returns ``(arguments, uses at the write)`` or None when the user declined.
Kept flight segments carry the dates the agent read, so a clean run reproduces the
ground truth exactly and a faulted date is what the write commits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sscbench.agents.scripted.statements import Statements
from sscbench.agents.scripted.transcript import Block, Prepared, Script, WriteUse
from sscbench.agents.scripted_facts import (
    Obs,
    cabin_text,
    fact_flights,
    fact_return_date,
    fields,
    length,
    money,
    objects,
    passengers_text,
    segment_refs,
    segment_text,
    segments,
)
from sscbench.json_types import JsonObject, JsonValue
from sscbench.world.airline.tables import FLIGHTS, Flight


class AirlineHandlers(Statements):
    """The handlers of the airline world's writes."""

    def _h_update_flights(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        res = block.record.record if block.record is not None else {}
        before = block.step.before.get("reservation") or {}
        observed = segments(res)
        requested = objects(kw.get("flights"))
        used, kept_index = _match_segments(requested, segments(before), observed)
        change = _FlightChange(
            rid=_text(kw.get("reservation_id", "")),
            cabin=kw.get("cabin"),
            requested=requested,
            observed=observed,
            used=used,
            kept_index=kept_index,
            same_cabin=kw.get("cabin") == res.get("cabin"),
            flights_table=self._flights(),
            step=block.record.step if block.record else None,
        )
        change.first_return = _first_return(change, res)
        summary = self._reservation_summary(block)
        prices, summary = yield from self._search_prices(change, summary)
        new_total = _new_total(change, prices)
        old_total = sum(_number(f.get("price")) for f in observed)
        pax = length(res.get("passengers")) or 1
        pid = _text(kw.get("payment_id", ""))
        payment = self._payment_clause(block, pid)
        text = self._flight_change_text(change, summary)
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
        arguments: JsonObject = {
            "reservation_id": change.rid,
            "cabin": change.cabin,
            "flights": [*used],
            "payment_id": pid,
        }
        return arguments, _flight_write_uses(change)

    def _flights(self) -> Mapping[str, Flight]:
        """The world's flights table (empty outside the airline world)."""
        return self.world.base.tables.get(FLIGHTS.name, {})

    def _search_prices(
        self, change: _FlightChange, summary: str
    ) -> Script[tuple[dict[int, JsonValue], str]]:
        """Search the flights whose price the record does not give (new segments, or any
        segment when the cabin changes); returns ``(price by segment, summary)``, the
        summary said (and emptied) before the first search. A kept segment's search date
        comes from the record, so it is a use of the flights (and of the return date)."""
        prices: dict[int, JsonValue] = {}
        used, rid = change.used, change.rid
        to_search = [
            i
            for i in range(len(used))
            if not (change.kept_index[i] is not None and change.same_cabin)
        ]
        if not to_search:
            return prices, summary
        yield from self._say(summary + " Let me look up the flights for the change.")
        searched: dict[tuple[JsonValue, JsonValue, JsonValue], Obs] = {}
        for i in to_search:
            origin, destination = change.endpoints(i)
            date = used[i].get("date")
            where = (origin, destination, date)
            if where not in searched:
                if change.kept_index[i] is not None:  # the search date comes from the record
                    self._use(
                        fact_flights(rid),
                        [segment_refs([used[i]])[0]],
                        change.step,
                        expected=segment_refs([change.requested[i]]),
                    )
                    if i == change.first_return:
                        self._use(
                            fact_return_date(rid),
                            date,
                            change.step,
                            expected=change.requested[i].get("date"),
                        )
                searched[where] = yield from self._call(
                    "search_direct_flight",
                    {"origin": origin, "destination": destination, "date": date},
                    "lookup",
                )
            for entry in objects(searched[where].data):
                if entry.get("flight_number") == used[i].get("flight_number"):
                    prices[i] = fields(entry.get("prices")).get(_text(change.cabin))
        return prices, ""

    def _flight_change_text(self, change: _FlightChange, summary: str) -> str:
        """The statement of the new itinerary (kept segments marked unchanged, a kept
        return date stated); the kept flights and return date are uses of the record."""
        used, rid, first_return = change.used, change.rid, change.first_return
        parts = []
        for i, seg in enumerate(used):
            origin, destination = change.endpoints(i)
            mark = " (unchanged)" if change.kept_index[i] is not None else ""
            parts.append(segment_text({**seg, "origin": origin, "destination": destination}) + mark)
        text = (
            (summary + " " if summary else "")
            + f"I will change reservation {rid} to these flights in {cabin_text(change.cabin)}: "
            + ", ".join(parts)
            + "."
        )
        if change.kept:
            self._use(
                fact_flights(rid),
                segment_refs(used),
                change.step,
                expected=segment_refs(change.requested),
            )
        if first_return is not None and change.kept_index[first_return] is not None:
            text += f" The return date stays {used[first_return].get('date')}."
            self._use(
                fact_return_date(rid),
                used[first_return].get("date"),
                change.step,
                expected=change.requested[first_return].get("date"),
            )
        return text

    def _h_update_baggages(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        res = block.record.record if block.record is not None else {}
        summary = self._reservation_summary(block)
        old_total, old_paid = res.get("total_baggages"), res.get("nonfree_baggages")
        total, paid = kw.get("total_baggages"), kw.get("nonfree_baggages")
        fee = 50 * max(0, _number(paid) - (old_paid if isinstance(old_paid, int) else 0))
        block.amount = fee
        payment = self._payment_clause(block, _text(kw.get("payment_id", "")))
        text = (
            f"{summary} It has {old_total} checked bags now ({old_paid} paid). I will set it "
            f"to {total} checked bags ({paid} paid); the fee is {money(fee)}, charged to {payment}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_update_passengers(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        summary = self._reservation_summary(block)
        text = f"{summary} I will set the passengers to: {passengers_text(kw.get('passengers'))}."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_cancel_reservation(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        res = block.record.record if block.record is not None else {}
        summary = self._reservation_summary(block)
        refunds = []
        for pay in objects(res.get("payment_history")):
            payment_id = pay.get("payment_id")
            if isinstance(payment_id, str):
                refunds.append(
                    f"{money(pay.get('amount'))} to {self._payment_clause(block, payment_id)}"
                )
        text = f"{summary} I will cancel reservation {kw.get('reservation_id')}."
        if refunds:
            text += " Refunds: " + "; ".join(refunds) + "."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_book(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        cabin = kw.get("cabin")
        flights_table = self._flights()
        prices: list[JsonValue] = []
        searched: dict[tuple[JsonValue, JsonValue, JsonValue], Obs] = {}
        for seg in objects(kw.get("flights")):
            flight = flights_table.get(_text(seg.get("flight_number")))
            origin, destination = _route(flight)
            where: tuple[JsonValue, JsonValue, JsonValue] = (origin, destination, seg.get("date"))
            if where not in searched:
                searched[where] = yield from self._call(
                    "search_direct_flight",
                    {"origin": where[0], "destination": where[1], "date": where[2]},
                    "lookup",
                )
            price: JsonValue = None
            for entry in objects(searched[where].data):
                if entry.get("flight_number") == seg.get("flight_number"):
                    price = fields(entry.get("prices")).get(_text(cabin))
            prices.append(price)
        passengers = kw.get("passengers") or []
        pax = length(passengers)
        paid = _number(kw.get("nonfree_baggages"))
        insurance = kw.get("insurance")
        trip = "round trip" if kw.get("flight_type") == "round_trip" else "one-way trip"
        legs = ", ".join(
            f"{seg.get('flight_number')} on {seg.get('date')}"
            + (f" ({money(price)} per passenger)" if price is not None else "")
            for seg, price in zip(objects(kw.get("flights")), prices, strict=False)
        )
        text = (
            f"I will book a {trip} from {kw.get('origin')} to {kw.get('destination')} in "
            f"{cabin_text(cabin)} for {passengers_text(passengers)}. Flights: {legs}. "
            f"Checked bags: {kw.get('total_baggages')} ({paid} paid, {money(50 * paid)}). "
            f"Travel insurance: {insurance}"
            + (f" ({money(30 * pax)})" if insurance == "yes" else "")
            + "."
        )
        numbers = [p for p in prices if isinstance(p, (int, float))]
        if len(numbers) == len(prices):
            total = sum(numbers) * pax + 50 * paid + (30 * pax if insurance == "yes" else 0)
            text += f" The total is {money(total)}."
        pays = [
            f"{money(m.get('amount'))} from "
            f"{self._payment_clause(block, _text(m.get('payment_id', '')))}"
            for m in objects(kw.get("payment_methods"))
        ]
        if pays:
            text += " Payment: " + "; ".join(pays) + "."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_send_certificate(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        text = f"I can add a travel certificate of {money(kw.get('amount'))} to your account."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []


@dataclass
class _FlightChange:
    """One flight change as the agent plans it: the requested segments, the segments the
    record shows, the new itinerary (``used``: a kept segment carries the date the agent
    read) and, per new segment, the index of the record's segment it keeps (or None)."""

    rid: str
    cabin: JsonValue
    requested: list[JsonObject]
    observed: list[JsonObject]
    used: list[JsonObject]
    kept_index: list[int | None]
    same_cabin: bool
    flights_table: Mapping[str, Flight]
    step: int | None
    first_return: int | None = None

    @property
    def kept(self) -> list[int]:
        """The new segments that keep one of the record's."""
        return [i for i in range(len(self.used)) if self.kept_index[i] is not None]

    def endpoints(self, i: int) -> tuple[JsonValue, JsonValue]:
        """Origin and destination of new segment ``i``: from the record when kept, else
        from the flights table."""
        j = self.kept_index[i]
        if j is not None:
            return self.observed[j].get("origin"), self.observed[j].get("destination")
        return _route(self.flights_table.get(_text(self.used[i].get("flight_number"))))


def _route(flight: Flight | None) -> tuple[str | None, str | None]:
    """Origin and destination of a flight of the flights table (None when unknown)."""
    return (flight["origin"], flight["destination"]) if flight else (None, None)


def _text(value: JsonValue) -> str:
    """A ground-truth argument as the text it is stated as (a string as it is)."""
    return value if isinstance(value, str) else str(value)


def _number(value: JsonValue) -> int | float:
    """A price or count, 0 when it is not a number."""
    return value if isinstance(value, (int, float)) else 0


def _match_segments(
    requested: list[JsonObject],
    previous: list[JsonObject],
    observed: list[JsonObject],
) -> tuple[list[JsonObject], list[int | None]]:
    """Match each requested segment to the reservation's segment it keeps (same flight
    and date before the change, same flight in the record the agent read): a kept one
    carries the date the agent read. Returns the itinerary and the kept indices."""
    used: list[JsonObject] = []
    kept_index: list[int | None] = []
    taken: set[int] = set()
    for seg in requested:
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
    return used, kept_index


def _first_return(change: _FlightChange, res: JsonObject) -> int | None:
    """The index of the first return segment of a round trip (the one after the segment
    that reaches the destination), None for a one-way trip or when there is none."""
    if res.get("flight_type") != "round_trip":
        return None
    for i in range(len(change.used)):
        if change.endpoints(i)[1] == res.get("destination"):
            return i + 1 if i + 1 < len(change.used) else None
    return None


def _new_total(change: _FlightChange, prices: dict[int, JsonValue]) -> float | None:
    """The new itinerary's fare per passenger (a kept segment in the same cabin at the
    record's price), None when a price is unknown."""
    new_total: float | None = 0.0
    for i in range(len(change.used)):
        j = change.kept_index[i]
        price = (
            change.observed[j].get("price")
            if j is not None and change.same_cabin
            else prices.get(i)
        )
        if not isinstance(price, (int, float)) or new_total is None:
            new_total = None
        else:
            new_total += price
    return new_total


def _flight_write_uses(change: _FlightChange) -> list[WriteUse]:
    """The uses at the write: the kept segments' flights and a kept return date."""
    write_uses: list[WriteUse] = []
    kept, first_return = change.kept, change.first_return
    if kept:
        write_uses.append(
            (
                fact_flights(change.rid),
                segment_refs([change.used[i] for i in kept]),
                change.step,
                segment_refs([change.requested[i] for i in kept]),
            )
        )
    if first_return is not None and change.kept_index[first_return] is not None:
        write_uses.append(
            (
                fact_return_date(change.rid),
                change.used[first_return].get("date"),
                change.step,
                change.requested[first_return].get("date"),
            )
        )
    return write_uses
