"""The generated airline world: flights, users, reservations and tasks in τ-bench's schema.

The calendar is τ-bench's: flights have a status for every day of May 2024 and the
tools treat 2024-05-15 15:00 EST as now. Days before the 15th are flown (landed or
cancelled), the 15th is in progress, and from the 16th on every flight is
``available`` with seats and prices per cabin.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sscbench.world.airline.tables import (
    Flight,
    FlightDay,
    Passenger,
    PaymentMethod,
    Reservation,
    Segment,
    User,
)
from sscbench.world.generated import common
from sscbench.world.generated.size import GeneratedSize
from sscbench.world.jsoncopy import json_copy
from sscbench.world.task import Task

DOMAIN = "airline"

# τ-bench's airport codes (facts; the tools list them with their cities).
AIRPORTS = (
    "ATL",
    "BOS",
    "CLT",
    "DEN",
    "DFW",
    "DTW",
    "EWR",
    "IAH",
    "JFK",
    "LAS",
    "LAX",
    "LGA",
    "MCO",
    "MIA",
    "MSP",
    "ORD",
    "PHL",
    "PHX",
    "SEA",
    "SFO",
)

CABINS = ("basic_economy", "economy", "business")
CABIN_TEXT = {"basic_economy": "basic economy", "economy": "economy", "business": "business"}
PRICE_RANGE = {"basic_economy": (50, 100), "economy": (100, 200), "business": (200, 500)}
FREE_BAGS = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 3},
}
BAG_FEE = 50
INSURANCE_FEE = 30
NOW = datetime(2024, 5, 15, 15, 0, 0)
TODAY = 15
LAST_DAY = 30
RECENT = (NOW - timedelta(hours=24)).isoformat()
KINDS = ("change_flights", "change_cabin", "cancel", "book", "update_baggages")


def day_text(day: int) -> str:
    """The date string of a day of May 2024."""
    return f"2024-05-{day:02d}"


def day_of(date: str) -> int:
    """The day of May 2024 of a date string."""
    return int(date[-2:])


def _clock(minutes: int) -> str:
    text = f"{(minutes // 60) % 24:02d}:{minutes % 60:02d}:00"
    return text + ("+1" if minutes >= 24 * 60 else "")


@dataclass(frozen=True)
class _Flight:
    number: str
    origin: str
    destination: str
    departure: int  # minutes after midnight, scheduled
    duration: int  # minutes

    @property
    def arrival(self) -> int:
        return self.departure + self.duration


Itinerary = tuple[_Flight, ...]


def directions(reservation: Reservation) -> tuple[list[Segment], list[Segment]]:
    """The outbound and return segments of a reservation (return empty for one way)."""
    flights = reservation["flights"]
    if reservation["flight_type"] != "round_trip":
        return list(flights), []
    for i, flight in enumerate(flights):
        if flight["destination"] == reservation["destination"]:
            return list(flights[: i + 1]), list(flights[i + 1 :])
    return list(flights), []


class _Airline:
    """Builds the tables from one rng and keeps the indexes the task makers need."""

    def __init__(self, rng: random.Random, size: GeneratedSize):
        self.rng = rng
        self.size = size
        self.flights: dict[str, Flight] = {}
        self.users: dict[str, User] = {}
        self.reservations: dict[str, Reservation] = {}
        self.specs: list[_Flight] = []
        self.itineraries: dict[tuple[str, str], list[Itinerary]] = {}
        self.ods: list[tuple[str, str]] = []
        self.round_trip_ods: list[tuple[str, str]] = []
        self._payment_ids: set[str] = set()

    # ---- network -------------------------------------------------------------------
    def build_flights(self) -> None:
        rng = self.rng
        airports = sorted(rng.sample(AIRPORTS, self.size.airports))
        order = list(airports)
        rng.shuffle(order)
        pairs: list[tuple[str, str]] = []
        seen: set[tuple[str, str]] = set()
        for i in range(1, len(order)):  # a spanning tree keeps every airport reachable
            low, high = sorted((order[i], rng.choice(order[:i])))
            pair = (low, high)
            seen.add(pair)
            pairs.append(pair)
        limit = min(self.size.routes, len(airports) * (len(airports) - 1) // 2)
        while len(pairs) < limit:
            a, b = rng.sample(airports, 2)
            pair = (min(a, b), max(a, b))
            if pair not in seen:
                seen.add(pair)
                pairs.append(pair)
        raw: list[tuple[str, str, int, int]] = []
        for a, b in pairs:
            duration = rng.randrange(60, 331, 15)
            for origin, destination in ((a, b), (b, a)):
                departures = rng.sample(range(5 * 60, 22 * 60 + 1, 30), rng.choice((1, 2, 2, 3)))
                for departure in sorted(departures):
                    raw.append((origin, destination, departure, duration))
        rng.shuffle(raw)
        self.specs = [
            _Flight(f"HAT{i + 1:03d}", o, d, dep, dur) for i, (o, d, dep, dur) in enumerate(raw)
        ]
        for spec in self.specs:
            self.flights[spec.number] = {
                "flight_number": spec.number,
                "origin": spec.origin,
                "destination": spec.destination,
                "scheduled_departure_time_est": _clock(spec.departure),
                "scheduled_arrival_time_est": _clock(spec.arrival),
                "dates": {day_text(day): self._date_record(spec, day) for day in range(1, 31)},
            }
        self._index_itineraries()

    def _date_record(self, spec: _Flight, day: int) -> FlightDay:
        rng = self.rng
        midnight = datetime(2024, 5, day)
        departure = midnight + timedelta(minutes=spec.departure)
        if day < TODAY:
            if rng.random() < 0.06:
                return {"status": "cancelled"}
            actual_dep = departure + timedelta(minutes=rng.randint(-30, 35))
            actual_arr = actual_dep + timedelta(minutes=spec.duration + rng.randint(-20, 25))
            return {
                "status": "landed",
                "actual_departure_time_est": actual_dep.isoformat(),
                "actual_arrival_time_est": actual_arr.isoformat(),
            }
        if day == TODAY:
            arrival = departure + timedelta(minutes=spec.duration)
            if arrival <= NOW:
                actual_dep = departure + timedelta(minutes=rng.randint(-20, 25))
                actual_arr = actual_dep + timedelta(minutes=spec.duration + rng.randint(-20, 20))
                return {
                    "status": "landed",
                    "actual_departure_time_est": actual_dep.isoformat(),
                    "actual_arrival_time_est": actual_arr.isoformat(),
                }
            if departure <= NOW:
                actual_dep = departure + timedelta(minutes=rng.randint(-15, 20))
                estimated = actual_dep + timedelta(minutes=spec.duration + rng.randint(-15, 20))
                return {
                    "status": "flying",
                    "actual_departure_time_est": actual_dep.isoformat(),
                    "estimated_arrival_time_est": estimated.isoformat(),
                }
            delayed = rng.random() < 0.3
            shift = rng.randint(30, 180) if delayed else rng.randint(-5, 15)
            estimated_dep = departure + timedelta(minutes=shift)
            estimated_arr = estimated_dep + timedelta(minutes=spec.duration)
            return {
                "status": "delayed" if delayed else "on time",
                "estimated_departure_time_est": estimated_dep.isoformat(),
                "estimated_arrival_time_est": estimated_arr.isoformat(),
            }
        return {
            "status": "available",
            "available_seats": {cabin: rng.randint(0, 20) for cabin in CABINS},
            "prices": {cabin: rng.randint(*PRICE_RANGE[cabin]) for cabin in CABINS},
        }

    def _index_itineraries(self) -> None:
        by_origin: dict[str, list[_Flight]] = {}
        for spec in self.specs:
            by_origin.setdefault(spec.origin, []).append(spec)
        itineraries: dict[tuple[str, str], list[Itinerary]] = {}
        for spec in self.specs:
            itineraries.setdefault((spec.origin, spec.destination), []).append((spec,))
        for first in self.specs:
            if first.arrival >= 24 * 60:
                continue
            for second in by_origin.get(first.destination, ()):
                if second.destination == first.origin or second.departure < first.arrival + 60:
                    continue
                itineraries.setdefault((first.origin, second.destination), []).append(
                    (first, second)
                )
        self.itineraries = {od: itineraries[od] for od in sorted(itineraries)}
        self.ods = list(self.itineraries)
        self.round_trip_ods = [(o, d) for o, d in self.ods if (d, o) in self.itineraries]

    def date_record(self, number: str, day: int) -> FlightDay:
        return self.flights[number]["dates"][day_text(day)]

    def bookable(self, itinerary: Itinerary, day: int, cabin: str, passengers: int) -> bool:
        """Every flight is available on ``day`` with enough seats in ``cabin``."""
        for spec in itinerary:
            record = self.date_record(spec.number, day)
            if record["status"] != "available" or record["available_seats"][cabin] < passengers:
                return False
        return True

    # ---- people --------------------------------------------------------------------
    def _payment_id(self, source: str) -> str:
        return f"{source}_{common.unique_digits(self.rng, 7, self._payment_ids)}"

    def build_users(self) -> None:
        rng = self.rng
        used: set[str] = set()
        for _ in range(self.size.users):
            first, last = common.person(rng)
            uid = common.user_id(rng, first, last, used)
            methods: list[PaymentMethod] = []
            for _ in range(rng.choice((1, 1, 2))):
                pid = self._payment_id("credit_card")
                methods.append(
                    {
                        "source": "credit_card",
                        "brand": rng.choice(("visa", "mastercard")),
                        "last_four": f"{rng.randint(0, 9999):04d}",
                        "id": pid,
                    }
                )
            if rng.random() < 0.8:
                for _ in range(rng.choice((1, 1, 2))):
                    amount = rng.randint(0, 350) if rng.random() < 0.8 else rng.randint(350, 1200)
                    methods.append(
                        {
                            "source": "gift_card",
                            "amount": amount,
                            "id": self._payment_id("gift_card"),
                        }
                    )
            if rng.random() < 0.65:
                for _ in range(rng.choice((1, 1, 2))):
                    methods.append(
                        {
                            "source": "certificate",
                            "amount": rng.choice((100, 150, 250, 500)),
                            "id": self._payment_id("certificate"),
                        }
                    )
            rng.shuffle(methods)
            saved: list[Passenger] = []
            for _ in range(rng.choice((1, 1, 2))):
                p_first, p_last = common.person(rng)
                saved.append({"first_name": p_first, "last_name": p_last, "dob": common.dob(rng)})
            self.users[uid] = {
                "name": {"first_name": first, "last_name": last},
                "address": common.address(rng),
                "email": common.email(rng, first, last),
                "dob": common.dob(rng),
                "payment_methods": {m["id"]: m for m in methods},
                "saved_passengers": saved,
                "membership": rng.choice(("regular", "silver", "silver", "gold", "gold")),
                "reservations": [],
            }

    # ---- reservations --------------------------------------------------------------
    def _reservation_id(self) -> str:
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        while True:
            rid = "".join(self.rng.choice(alphabet) for _ in range(6))
            if rid not in self.reservations and not rid.startswith("HATHA"):
                return rid

    def _segments(self, itinerary: Itinerary, day: int, cabin: str) -> list[Segment]:
        out: list[Segment] = []
        for spec in itinerary:
            record = self.date_record(spec.number, day)
            if record["status"] == "available":
                low, high = PRICE_RANGE[cabin]
                price = min(high, max(low, record["prices"][cabin] + self.rng.randint(-20, 20)))
            else:
                price = self.rng.randint(*PRICE_RANGE[cabin])
            out.append(
                {
                    "origin": spec.origin,
                    "destination": spec.destination,
                    "flight_number": spec.number,
                    "date": day_text(day),
                    "price": price,
                }
            )
        return out

    def _passengers(self, user: User, count: int) -> list[Passenger]:
        rng = self.rng
        people: list[Passenger] = []
        if rng.random() < 0.8:
            name = user["name"]
            people.append(
                {
                    "first_name": name["first_name"],
                    "last_name": name["last_name"],
                    "dob": user["dob"],
                }
            )
        for saved in user["saved_passengers"]:
            if len(people) < count and rng.random() < 0.7:
                people.append(saved.copy())
        while len(people) < count:
            first, last = common.person(rng)
            people.append({"first_name": first, "last_name": last, "dob": common.dob(rng)})
        return people[:count]

    def _created_at(self, first_day: int) -> str:
        rng = self.rng
        latest = min(NOW, datetime(2024, 5, first_day) - timedelta(hours=2))
        if first_day > TODAY and rng.random() < 0.12:
            moment = NOW - timedelta(seconds=rng.randint(600, 23 * 3600))
        else:
            earliest = latest - timedelta(days=18)
            span = int((latest - earliest).total_seconds())
            moment = earliest + timedelta(seconds=rng.randint(0, span))
        return moment.isoformat()

    def build_reservations(self) -> None:
        rng = self.rng
        user_ids = list(self.users)
        while len(self.reservations) < self.size.reservations:
            uid = rng.choice(user_ids)
            user = self.users[uid]
            round_trip = rng.random() < 0.45 and bool(self.round_trip_ods)
            od = rng.choice(self.round_trip_ods if round_trip else self.ods)
            outbound = rng.choice(self.itineraries[od])
            timing = rng.random()
            if round_trip:
                back = rng.choice(self.itineraries[(od[1], od[0])])
                if timing < 0.2:
                    out_day = rng.randint(1, 12)
                    back_day = rng.randint(out_day + 1, min(out_day + 6, TODAY - 1))
                elif timing < 0.3:
                    out_day = rng.randint(9, TODAY - 1)
                    back_day = rng.randint(TODAY + 1, TODAY + 6)
                else:
                    out_day = rng.randint(TODAY + 1, LAST_DAY - 1)
                    back_day = rng.randint(out_day + 1, min(out_day + 7, LAST_DAY))
            else:
                back = ()
                out_day = rng.randint(1, TODAY - 1) if timing < 0.25 else rng.randint(16, 30)
                back_day = out_day
            cabin = rng.choice(CABINS)
            count = rng.choice((1, 1, 1, 2, 2, 3))
            flights = self._segments(outbound, out_day, cabin)
            if round_trip:
                flights += self._segments(back, back_day, cabin)
            passengers = self._passengers(user, count)
            allowance = FREE_BAGS[user["membership"]][cabin] * count
            total_bags = rng.randint(0, allowance + (1 if rng.random() < 0.25 else 0))
            nonfree = max(0, total_bags - allowance)
            insurance = rng.choice(("yes", "no"))
            amount = sum(f["price"] for f in flights) * count + BAG_FEE * nonfree
            if insurance == "yes":
                amount += INSURANCE_FEE * count
            methods = [m for m in user["payment_methods"].values() if m["source"] != "certificate"]
            payer = rng.choice(methods)["id"]
            rid = self._reservation_id()
            self.reservations[rid] = {
                "reservation_id": rid,
                "user_id": uid,
                "origin": od[0],
                "destination": od[1],
                "flight_type": "round_trip" if round_trip else "one_way",
                "cabin": cabin,
                "flights": flights,
                "passengers": passengers,
                "payment_history": [{"payment_id": payer, "amount": amount}],
                "created_at": self._created_at(out_day),
                "total_baggages": total_bags,
                "nonfree_baggages": nonfree,
                "insurance": insurance,
            }
            user["reservations"].append(rid)

    def tables(self) -> dict[str, dict[str, Any]]:
        return {"flights": self.flights, "reservations": self.reservations, "users": self.users}


# ---- tasks ------------------------------------------------------------------------------


def _flight_refs(flights: list[Segment]) -> list[Segment]:
    return [{"flight_number": f["flight_number"], "date": f["date"]} for f in flights]


def _trip_text(flights: list[Segment]) -> str:
    return " connecting to ".join(
        f"{f['flight_number']} from {f['origin']} to {f['destination']} on {f['date']}"
        for f in flights
    )


def _itinerary_refs(itinerary: Itinerary, day: int) -> list[Segment]:
    return [
        {
            "flight_number": s.number,
            "date": day_text(day),
            "origin": s.origin,
            "destination": s.destination,
        }
        for s in itinerary
    ]


@dataclass(frozen=True)
class _FlightsChange:
    """One drawn flight change: the direction changed, its flights before and after, and
    the reservation's whole new itinerary."""

    round_trip: bool
    change_return: bool
    part: list[Segment]
    new_part: list[Segment]
    new_flights: list[Segment]


class _TaskMaker:
    """Makes tasks whose ground truth the airline tools accept and the policy allows."""

    def __init__(self, world: _Airline, rng: random.Random):
        self.w = world
        self.rng = rng
        self.used_reservations: set[str] = set()
        self.used_users: set[str] = set()
        self.rows: list[tuple[str, str, dict[str, Any], list, list[str]]] = []
        self.upcoming = [
            r
            for r in world.reservations.values()
            if all(day_of(f["date"]) > TODAY for f in r["flights"])
        ]

    # ---- helpers -------------------------------------------------------------------
    def _future(self) -> list[Reservation]:
        """Unused reservations whose every flight is after today, in a shuffled order."""
        used = self.used_reservations
        out = [r for r in self.upcoming if r["reservation_id"] not in used]
        self.rng.shuffle(out)
        return out

    def _methods(self, uid: str, source: str) -> list[PaymentMethod]:
        return [m for m in self.w.users[uid]["payment_methods"].values() if m["source"] == source]

    def _pick_payment(self, uid: str, charge: int) -> PaymentMethod | None:
        """A credit card or a gift card covering ``charge`` (certificates cannot pay changes)."""
        options: dict[str, list[PaymentMethod]] = {}
        cards = self._methods(uid, "credit_card")
        if cards:
            options["credit_card"] = cards
        gifts = [m for m in self._methods(uid, "gift_card") if m["amount"] >= charge]
        if gifts:
            options["gift_card"] = gifts
        if not options:
            return None
        source = self.rng.choice(sorted(options))
        return self.rng.choice(options[source])

    def _add(
        self,
        kind: str,
        uid: str,
        instruction: str,
        slots: dict[str, Any],
        actions: list[tuple[str, dict[str, Any]]],
        outputs: list[str] | None = None,
    ) -> None:
        intent = {"kind": kind, "user_id": uid, **json_copy(slots)}
        self.rows.append(
            (uid, f"Your user id is {uid}. {instruction}", intent, actions, outputs or [])
        )

    # ---- change_flights ------------------------------------------------------------
    def change_flights(self, round_trip: bool) -> bool:
        """A task changing the flights of one direction (or of a one-way trip) to another
        bookable itinerary on another day, paying or refunding the fare difference."""
        wanted = "round_trip" if round_trip else "one_way"
        for r in self._future():
            if r["flight_type"] != wanted or r["cabin"] == "basic_economy":
                continue
            outbound, back = directions(r)
            change_return, part, choices = self._flight_choices(r, round_trip, outbound, back)
            if not choices:
                continue
            itinerary, day = self.rng.choice(choices)
            new_part = _itinerary_refs(itinerary, day)
            if round_trip:
                new_all = outbound + new_part if change_return else new_part + back
            else:
                new_all = new_part
            new_flights = _flight_refs(new_all)
            pax = len(r["passengers"])
            old_total = sum(f["price"] for f in r["flights"])
            difference = (self._fare(r, new_flights) - old_total) * pax
            method = self._pick_payment(r["user_id"], difference)
            if method is None:
                continue
            self.used_reservations.add(r["reservation_id"])
            change = _FlightsChange(round_trip, change_return, part, new_part, new_flights)
            self._add_flight_change(r, change, method, difference)
            return True
        return False

    def _flight_choices(
        self,
        r: Reservation,
        round_trip: bool,
        outbound: list[Segment],
        back: list[Segment],
    ) -> tuple[bool, list[Segment], list[tuple[Itinerary, int]]]:
        """Which direction changes (the return 70% of the time), its flights, and the
        bookable itineraries and days it could change to (the current one excluded)."""
        pax = len(r["passengers"])
        if round_trip:
            change_return = self.rng.random() < 0.7
            part = back if change_return else outbound
            a, b = part[0]["origin"], part[-1]["destination"]
            if change_return:
                days = range(day_of(outbound[-1]["date"]) + 1, LAST_DAY + 1)
            else:
                days = range(TODAY + 1, day_of(back[0]["date"]))
        else:
            change_return = False
            part = outbound
            a, b = r["origin"], r["destination"]
            days = range(TODAY + 1, LAST_DAY + 1)
        current = [(f["flight_number"], f["date"]) for f in part]
        choices = []
        for itinerary in self.w.itineraries.get((a, b), ()):
            for day in days:
                if [(s.number, day_text(day)) for s in itinerary] == current:
                    continue
                if self.w.bookable(itinerary, day, r["cabin"], pax):
                    choices.append((itinerary, day))
        return change_return, part, choices

    def _fare(self, r: Reservation, new_flights: list[Segment]) -> int:
        """The new flights' fare per passenger: a kept flight at the price paid, a new one
        at its price on its date in the reservation's cabin."""
        old_keys = {(f["flight_number"], f["date"]): f["price"] for f in r["flights"]}
        new_total = 0
        for f in new_flights:
            key = (f["flight_number"], f["date"])
            if key in old_keys:
                new_total += old_keys[key]
            else:
                new_total += self.w.date_record(f["flight_number"], day_of(f["date"]))["prices"][
                    r["cabin"]
                ]
        return new_total

    def _add_flight_change(
        self,
        r: Reservation,
        change: _FlightsChange,
        method: PaymentMethod,
        difference: int,
    ) -> None:
        """Add the change-flights task: its instruction, slots and ground-truth write."""
        change_return, part, new_part = change.change_return, change.part, change.new_part
        which = (
            ("return flights" if change_return else "outbound flights")
            if change.round_trip
            else "flights"
        )
        trip = "round-trip" if change.round_trip else "one-way"
        instruction = (
            f"You want to change the {which} of your {trip} reservation "
            f"{r['reservation_id']} ({r['origin']} to {r['destination']}): instead of "
            f"{_trip_text(part)}, you want {_trip_text(new_part)}. Keep the "
            f"{CABIN_TEXT[r['cabin']]} cabin, the same passengers and everything else. "
            f"Use your {common.card_text(method)} to pay or receive any fare difference."
        )
        slots = {
            "reservation_id": r["reservation_id"],
            "trip_type": r["flight_type"],
            "changed": "return" if change_return else "outbound",
            "origin": r["origin"],
            "destination": r["destination"],
            "old_flights": _flight_refs(part),
            "new_flights": _flight_refs(new_part),
            "flights": change.new_flights,
            "cabin": r["cabin"],
            "payment_id": method["id"],
            "payment_source": method["source"],
            "price_difference": difference,
        }
        kwargs = {
            "reservation_id": r["reservation_id"],
            "cabin": r["cabin"],
            "flights": json_copy(change.new_flights),
            "payment_id": method["id"],
        }
        self._add(
            "change_flights",
            r["user_id"],
            instruction,
            slots,
            [("update_reservation_flights", kwargs)],
        )

    # ---- change_cabin --------------------------------------------------------------
    def change_cabin(self) -> bool:
        w, rng = self.w, self.rng
        for r in self._future():
            pax = len(r["passengers"])
            cabins = [c for c in CABINS if c != r["cabin"]]
            rng.shuffle(cabins)
            for cabin in cabins:
                records = [
                    w.date_record(f["flight_number"], day_of(f["date"])) for f in r["flights"]
                ]
                if any(rec["available_seats"][cabin] < pax for rec in records):
                    continue
                new_total = sum(rec["prices"][cabin] for rec in records)
                difference = (new_total - sum(f["price"] for f in r["flights"])) * pax
                if difference == 0:
                    continue
                method = self._pick_payment(r["user_id"], difference)
                if method is None:
                    continue
                self.used_reservations.add(r["reservation_id"])
                verb = "upgrade" if CABINS.index(cabin) > CABINS.index(r["cabin"]) else "downgrade"
                money = (
                    f"how much you pay in total for the {verb}"
                    if difference > 0
                    else f"how much you get back in total for the {verb}"
                )
                instruction = (
                    f"You want to {verb} every flight of reservation {r['reservation_id']} "
                    f"({r['origin']} to {r['destination']}) from {CABIN_TEXT[r['cabin']]} to "
                    f"{CABIN_TEXT[cabin]} for all passengers, without changing any flight. "
                    f"Use your {common.card_text(method)} for the price difference. "
                    f"You want to know {money}."
                )
                flights = _flight_refs(r["flights"])
                slots = {
                    "reservation_id": r["reservation_id"],
                    "old_cabin": r["cabin"],
                    "cabin": cabin,
                    "flights": flights,
                    "payment_id": method["id"],
                    "payment_source": method["source"],
                    "price_difference": difference,
                }
                kwargs = {
                    "reservation_id": r["reservation_id"],
                    "cabin": cabin,
                    "flights": json_copy(flights),
                    "payment_id": method["id"],
                }
                self._add(
                    "change_cabin",
                    r["user_id"],
                    instruction,
                    slots,
                    [("update_reservation_flights", kwargs)],
                    [str(abs(difference))],
                )
                return True
        return False

    # ---- cancel --------------------------------------------------------------------
    def cancel(self, basis: str) -> bool:
        rng = self.rng
        for r in self._future():
            recent = r["created_at"] >= RECENT
            if basis == "booked_within_24h":
                ok = recent
            elif basis == "business":
                ok = r["cabin"] == "business" and not recent
            else:
                ok = r["insurance"] == "yes" and r["cabin"] != "business" and not recent
            if not ok:
                continue
            self.used_reservations.add(r["reservation_id"])
            if basis == "insurance":
                reason = rng.choice(("health", "weather"))
                why = (
                    "you have fallen ill and cannot travel"
                    if reason == "health"
                    else "a storm forecast makes you unwilling to travel"
                ) + "; you bought travel insurance with it"
            else:
                reason = "change of plan"
                why = "your plans have changed"
                if basis == "booked_within_24h":
                    why += "; you booked it less than a day ago"
            outbound, _ = directions(r)
            instruction = (
                f"You want to cancel your reservation {r['reservation_id']} "
                f"({r['origin']} to {r['destination']}, departing {outbound[0]['date']}) "
                f"because {why}. You want the refund to go back to the original payment."
            )
            slots = {"reservation_id": r["reservation_id"], "reason": reason, "basis": basis}
            self._add(
                "cancel",
                r["user_id"],
                instruction,
                slots,
                [("cancel_reservation", {"reservation_id": r["reservation_id"]})],
            )
            return True
        return False

    # ---- book ----------------------------------------------------------------------
    def _trip(self, round_trip: bool, cabin: str, pax: int):
        w, rng = self.w, self.rng
        for _ in range(200):
            od = rng.choice(w.round_trip_ods if round_trip else w.ods)
            out = rng.choice(w.itineraries[od])
            out_day = rng.randint(TODAY + 1, LAST_DAY - 1 if round_trip else LAST_DAY)
            if not w.bookable(out, out_day, cabin, pax):
                continue
            if not round_trip:
                return od, [(out, out_day)]
            back = rng.choice(w.itineraries[(od[1], od[0])])
            back_day = rng.randint(out_day + 1, min(out_day + 6, LAST_DAY))
            if w.bookable(back, back_day, cabin, pax):
                return od, [(out, out_day), (back, back_day)]
        return None

    def book(self, source: str) -> bool:
        w, rng = self.w, self.rng
        users = [u for u in w.users if u not in self.used_users and self._methods(u, source)]
        rng.shuffle(users)
        for uid in users:
            user = w.users[uid]
            round_trip = rng.random() < 0.4
            cabin = rng.choice(CABINS)
            companions = rng.randint(0, min(2, len(user["saved_passengers"])))
            pax = 1 + companions
            trip = self._trip(round_trip, cabin, pax)
            if trip is None:
                continue
            od, legs = trip
            passengers = [dict(user["name"], dob=user["dob"])] + [
                dict(p) for p in user["saved_passengers"][:companions]
            ]
            allowance = FREE_BAGS[user["membership"]][cabin] * pax
            total_bags = rng.randint(0, allowance + 2)
            nonfree = max(0, total_bags - allowance)
            insurance = rng.choice(("yes", "no"))
            segments = [s for itinerary, day in legs for s in _itinerary_refs(itinerary, day)]
            fare = sum(
                w.date_record(s["flight_number"], day_of(s["date"]))["prices"][cabin]
                for s in segments
            )
            price = (
                fare * pax + BAG_FEE * nonfree + (INSURANCE_FEE * pax if insurance == "yes" else 0)
            )
            plan = self._plan_payment(uid, source, price)
            if plan is None:
                continue
            self.used_users.add(uid)
            flights = _flight_refs(segments)
            kwargs = {
                "user_id": uid,
                "origin": od[0],
                "destination": od[1],
                "flight_type": "round_trip" if round_trip else "one_way",
                "cabin": cabin,
                "flights": flights,
                "passengers": passengers,
                "payment_methods": [{"payment_id": m["id"], "amount": a} for m, a in plan],
                "total_baggages": total_bags,
                "nonfree_baggages": nonfree,
                "insurance": insurance,
            }
            who = (
                "yourself"
                if not companions
                else "yourself and "
                + " and ".join(
                    f"{p['first_name']} {p['last_name']} (saved in your profile)"
                    for p in passengers[1:]
                )
            )
            legs_text = "; returning on ".join(
                _trip_text(_itinerary_refs(itinerary, day)) for itinerary, day in legs
            )
            pay_text = " and ".join(f"${a} with your {common.card_text(m)}" for m, a in plan)
            instruction = (
                f"You want to book a {'round trip' if round_trip else 'one-way trip'} from "
                f"{od[0]} to {od[1]} in {CABIN_TEXT[cabin]} for {who}: {legs_text}. "
                f"You have {total_bags} checked bag{'s' if total_bags != 1 else ''} in total and "
                f"you {'want' if insurance == 'yes' else 'do not want'} travel insurance. "
                f"The total should be ${price}; you want to pay {pay_text}. "
                "Your date of birth is in your profile."
            )
            slots = {k: json_copy(v) for k, v in kwargs.items() if k != "user_id"}
            slots["payment_sources"] = [m["source"] for m, _ in plan]
            slots["payment_source"] = source
            slots["total_price"] = price
            self._add("book", uid, instruction, slots, [("book_reservation", kwargs)])
            return True
        return False

    def _plan_payment(self, uid: str, source: str, price: int):
        rng = self.rng
        cards = self._methods(uid, "credit_card")
        if source == "credit_card":
            return [(rng.choice(cards), price)] if cards else None
        pool = [m for m in self._methods(uid, source) if m["amount"] > 0]
        if not pool:
            return None
        method = rng.choice(pool)
        if method["amount"] >= price:
            return [(method, price)]
        if not cards:
            return None
        return [(method, method["amount"]), (rng.choice(cards), price - method["amount"])]

    # ---- update_baggages -----------------------------------------------------------
    def update_baggages(self, charged: bool) -> bool:
        w, rng = self.w, self.rng
        for r in self._future():
            user = w.users[r["user_id"]]
            pax = len(r["passengers"])
            allowance = FREE_BAGS[user["membership"]][r["cabin"]] * pax
            added = rng.randint(1, 3)
            total = r["total_baggages"] + added
            nonfree = max(0, total - allowance)
            fee = BAG_FEE * (nonfree - r["nonfree_baggages"])
            if (fee > 0) != charged:
                continue
            method = self._pick_payment(r["user_id"], fee)
            if method is None:
                continue
            self.used_reservations.add(r["reservation_id"])
            instruction = (
                f"You want to add {added} checked bag{'s' if added > 1 else ''} to reservation "
                f"{r['reservation_id']} ({r['origin']} to {r['destination']}), for {total} "
                f"checked bags in total. Use your {common.card_text(method)} for any fee."
            )
            outputs = []
            if fee > 0:
                instruction += " You want to know how much the extra bags cost."
                outputs = [str(fee)]
            slots = {
                "reservation_id": r["reservation_id"],
                "added_baggages": added,
                "total_baggages": total,
                "nonfree_baggages": nonfree,
                "payment_id": method["id"],
                "payment_source": method["source"],
                "fee": fee,
            }
            kwargs = {
                "reservation_id": r["reservation_id"],
                "total_baggages": total,
                "nonfree_baggages": nonfree,
                "payment_id": method["id"],
            }
            self._add(
                "update_baggages",
                r["user_id"],
                instruction,
                slots,
                [("update_reservation_baggages", kwargs)],
                outputs,
            )
            return True
        return False

    # ---- all -----------------------------------------------------------------------
    def make(self, per_kind: int) -> list[Task]:
        plan: list[tuple[str, Callable[[], bool]]] = []
        cancel_bases = ("booked_within_24h", "business", "insurance")
        book_sources = ("certificate", "gift_card", "credit_card")
        for i in range(per_kind):
            plan.append(("change_flights", partial(self.change_flights, i % 3 != 2)))
        plan += [("change_cabin", self.change_cabin)] * per_kind
        for i in range(per_kind):
            plan.append(("cancel", partial(self.cancel, cancel_bases[i % 3])))
        for i in range(per_kind):
            plan.append(("book", partial(self.book, book_sources[i % 3])))
        for i in range(per_kind):
            plan.append(("update_baggages", partial(self.update_baggages, i % 2 == 0)))
        for kind, make in plan:
            if not make():
                raise ValueError(
                    f"the generated airline world is too small for another {kind} task; "
                    "raise GeneratedSize.users/reservations or lower tasks_per_kind"
                )
        return [
            common.make_task(DOMAIN, i, uid, text, intent, actions, outputs)
            for i, (uid, text, intent, actions, outputs) in enumerate(self.rows)
        ]


def build_airline(seed: int, size: GeneratedSize) -> tuple[dict[str, dict[str, Any]], list[Task]]:
    """The airline tables and tasks of one seed."""
    world = _Airline(random.Random(f"sscbench/generated/airline/{seed}/data"), size)
    world.build_flights()
    world.build_users()
    world.build_reservations()
    tasks = _TaskMaker(world, random.Random(f"sscbench/generated/airline/{seed}/tasks"))
    return world.tables(), tasks.make(size.tasks_per_kind)
