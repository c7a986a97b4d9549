"""The 14 airline tools, observation-for-observation identical to τ-bench's.

Each tool reproduces what τ-bench's airline tool returns and writes, quirks included:

* ``get_reservation_details`` answers ``"Error: user not found"`` for an unknown
  reservation;
* ``update_reservation_flights`` keeps the reservation's ``cabin`` unchanged and never
  touches flight seat counts, and ``book_reservation`` does not decrement seats either;
* ``search_onestop_flight`` builds the second leg's next-day date as
  ``2024-05-{day + 1}`` (no zero padding) and fills the second leg's seats and prices
  from the *first* leg's date;
* checks that fail return before any write, except where τ-bench's own code raises
  half-way through its writes (e.g. the same certificate paid twice in one booking),
  in which case the writes done so far stay, as they do in τ-bench;
* when a nested value has the wrong shape, the same Python exception τ-bench's code
  would raise arises here and :meth:`Env.execute` turns it into ``"Error: ..."``.

Records are read with ``db.get``/``db.table`` and only changed through ``db.edit`` and
``db.insert``; argument values are copied before they are stored.
"""

from __future__ import annotations

import json
from collections.abc import Sized

from sscbench.json_types import JsonObject
from sscbench.world.airline.tables import (
    FLIGHTS,
    RESERVATIONS,
    USERS,
    Flight,
    Passenger,
    Payment,
    Reservation,
    Segment,
)
from sscbench.world.calculate import calculate_observation
from sscbench.world.jsoncopy import json_copy
from sscbench.world.state import WorldState
from sscbench.world.tools import ToolKind, ToolRegistry

AIRLINE_TOOLS = ToolRegistry("airline")
tool = AIRLINE_TOOLS.tool

# ---- schema pieces ---------------------------------------------------------------------

_CABIN: JsonObject = {"type": "string", "enum": ["basic_economy", "economy", "business"]}
_RESERVATION_ID: JsonObject = {
    "type": "string",
    "description": "Identifier of the reservation, for example 'ZFA04Y'.",
}
_PAYMENT_ID: JsonObject = {
    "type": "string",
    "description": (
        "Identifier of a payment method saved in the user's profile, for example "
        "'credit_card_7815826', 'gift_card_7815826' or 'certificate_7815826'."
    ),
}
_FLIGHT_SEGMENT: JsonObject = {
    "type": "object",
    "properties": {
        "flight_number": {
            "type": "string",
            "description": "The flight's number, for example 'HAT001'.",
        },
        "date": {
            "type": "string",
            "description": "Day of the flight as 'YYYY-MM-DD', for example '2024-05-01'.",
        },
    },
    "required": ["flight_number", "date"],
}
_PASSENGERS: JsonObject = {
    "type": "array",
    "description": "One object per passenger travelling on the reservation.",
    "items": {
        "type": "object",
        "properties": {
            "first_name": {
                "type": "string",
                "description": "Given name of the passenger, for example 'Noah'.",
            },
            "last_name": {
                "type": "string",
                "description": "Family name of the passenger, for example 'Brown'.",
            },
            "dob": {
                "type": "string",
                "description": "Birth date of the passenger as 'YYYY-MM-DD', for example '1990-01-01'.",
            },
        },
        "required": ["first_name", "last_name", "dob"],
    },
}
_AIRPORT_ORIGIN: JsonObject = {
    "type": "string",
    "description": "Three-letter code of the departure airport, for example 'JFK'.",
}
_AIRPORT_DESTINATION: JsonObject = {
    "type": "string",
    "description": "Three-letter code of the arrival airport, for example 'LAX'.",
}
_SEARCH_DATE: JsonObject = {
    "type": "string",
    "description": "Day of travel as 'YYYY-MM-DD', for example '2024-05-01'.",
}

# Airport codes and their cities, in the order τ-bench lists them.
_AIRPORTS: tuple[tuple[str, str], ...] = (
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
)

# Ids τ-bench tries, in order, for a new reservation and for a new certificate.
_NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
_CERTIFICATE_NUMBERS = (3221322, 3221323, 3221324)
_BOOKING_TIME = "2024-05-15T15:00:00"


def _all_flights(db: WorldState) -> list[Flight]:
    """Every flight record (read-only), in τ-bench's dict order."""
    view = db.table(FLIGHTS)
    return [view[number] for number in view]


def _price_segment(db: WorldState, segment: Segment, cabin: str, travellers: Sized) -> str | None:
    """Check one new flight segment and fill in its price, origin and destination.

    Returns τ-bench's error text when the segment cannot be booked, else None.
    ``travellers`` is the passenger list: τ-bench takes its ``len`` only after looking
    up the cabin's seats, so an unknown cabin fails before a list without a length.
    """
    number = segment["flight_number"]
    flight = db.get(FLIGHTS, number)
    if flight is None:
        return f"Error: flight {number} not found"
    if segment["date"] not in flight["dates"]:
        return f"Error: flight {number} not found on date {segment['date']}"
    day = flight["dates"][segment["date"]]
    if day["status"] != "available":
        return f"Error: flight {number} not available on date {segment['date']}"
    if day["available_seats"][cabin] < len(travellers):
        return f"Error: not enough seats on flight {number}"
    segment["price"] = day["prices"][cabin]
    segment["origin"] = flight["origin"]
    segment["destination"] = flight["destination"]
    return None


# ---- tools, in the order of τ-bench's tools.json -----------------------------------------


@tool(
    ToolKind.WRITE,
    "Create a new reservation for a user, charging the given payment methods.",
    {
        "user_id": {
            "type": "string",
            "description": "Identifier of the user making the booking, for example 'sara_doe_496'.",
        },
        "origin": {
            "type": "string",
            "description": "IATA code of the trip's starting city, for example 'SFO'.",
        },
        "destination": {
            "type": "string",
            "description": "IATA code of the trip's final city, for example 'JFK'.",
        },
        "flight_type": {"type": "string", "enum": ["one_way", "round_trip"]},
        "cabin": _CABIN,
        "flights": {
            "type": "array",
            "description": "One object per flight segment of the trip.",
            "items": _FLIGHT_SEGMENT,
        },
        "passengers": _PASSENGERS,
        "payment_methods": {
            "type": "array",
            "description": "One object per payment method used and the amount it pays.",
            "items": {
                "type": "object",
                "properties": {
                    "payment_id": _PAYMENT_ID,
                    "amount": {
                        "type": "number",
                        "description": "How much this payment method pays.",
                    },
                },
                "required": ["payment_id", "amount"],
            },
        },
        "total_baggages": {
            "type": "integer",
            "description": "Number of checked bags on the reservation in total.",
        },
        "nonfree_baggages": {
            "type": "integer",
            "description": "Number of those checked bags that must be paid for.",
        },
        "insurance": {"type": "string", "enum": ["yes", "no"]},
    },
)
def book_reservation(
    db: WorldState,
    user_id: str,
    origin: str,
    destination: str,
    flight_type: str,
    cabin: str,
    flights: list[Segment],
    passengers: list[Passenger],
    payment_methods: list[Payment],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: str,
) -> str:
    user = db.get(USERS, user_id)
    if user is None:
        return "Error: user not found"

    reservations = db.table(RESERVATIONS)
    reservation_id = _NEW_RESERVATION_IDS[0]
    if reservation_id in reservations:
        reservation_id = _NEW_RESERVATION_IDS[1]
        if reservation_id in reservations:
            reservation_id = _NEW_RESERVATION_IDS[2]

    reservation: Reservation = {
        "reservation_id": reservation_id,
        "user_id": user_id,
        "origin": origin,
        "destination": destination,
        "flight_type": flight_type,
        "cabin": cabin,
        "flights": json_copy(flights),
        "passengers": json_copy(passengers),
        "payment_history": json_copy(payment_methods),
        "created_at": _BOOKING_TIME,
        "total_baggages": total_baggages,
        "nonfree_baggages": nonfree_baggages,
        "insurance": insurance,
    }

    total_price = 0
    for segment in reservation["flights"]:
        error = _price_segment(db, segment, cabin, passengers)
        if error is not None:
            return error
        total_price += segment["price"] * len(passengers)
    if insurance == "yes":
        total_price += 30 * len(passengers)
    total_price += 50 * nonfree_baggages

    saved = user["payment_methods"]
    for payment in payment_methods:
        payment_id = payment["payment_id"]
        amount = payment["amount"]
        if payment_id not in saved:
            return f"Error: payment method {payment_id} not found"
        if saved[payment_id]["source"] in ("gift_card", "certificate") and (
            saved[payment_id]["amount"] < amount
        ):
            return f"Error: not enough balance in payment method {payment_id}"
    if sum(payment["amount"] for payment in payment_methods) != total_price:
        paid = sum(payment["amount"] for payment in payment_methods)
        return (
            f"Error: payment amount does not add up, total price is {total_price}, but paid {paid}"
        )

    # Charge: gift cards lose the amount, certificates are used up. A certificate
    # listed twice raises KeyError on its second use after the first is gone; the
    # charges made until then stay, exactly as in τ-bench.
    user = db.edit(USERS, user_id)
    saved = user["payment_methods"]
    for payment in payment_methods:
        payment_id = payment["payment_id"]
        source = saved[payment_id]["source"]
        if source == "gift_card":
            saved[payment_id]["amount"] -= payment["amount"]
        elif source == "certificate":
            del saved[payment_id]

    db.insert(RESERVATIONS, reservation_id, reservation)
    user["reservations"].append(reservation_id)
    return json.dumps(reservation)


@tool(
    ToolKind.READ,
    "Evaluate an arithmetic expression and return the result rounded to two decimals.",
    {
        "expression": {
            "type": "string",
            "description": (
                "Arithmetic to evaluate, for example '2 + 2'. Only digits, '+', '-', '*', "
                "'/', parentheses, dots and spaces are accepted."
            ),
        }
    },
)
def calculate(db: WorldState, expression: str) -> str:
    return calculate_observation(expression)


@tool(
    ToolKind.WRITE,
    "Cancel an entire reservation and refund every payment made on it.",
    {"reservation_id": _RESERVATION_ID},
)
def cancel_reservation(db: WorldState, reservation_id: str) -> str:
    reservation = db.get(RESERVATIONS, reservation_id)
    if reservation is None:
        return "Error: reservation not found"
    refunds: list[Payment] = [
        {"payment_id": payment["payment_id"], "amount": -payment["amount"]}
        for payment in reservation["payment_history"]
    ]
    reservation = db.edit(RESERVATIONS, reservation_id)
    reservation["payment_history"].extend(refunds)
    reservation["status"] = "cancelled"
    return json.dumps(reservation)


@tool(
    ToolKind.READ,
    "Look up a reservation and return its full record.",
    {
        "reservation_id": {
            "type": "string",
            "description": "Identifier of the reservation, for example '8JX2WO'.",
        }
    },
)
def get_reservation_details(db: WorldState, reservation_id: str) -> str:
    reservation = db.get(RESERVATIONS, reservation_id)
    if reservation is None:
        return "Error: user not found"  # τ-bench's wording for a missing reservation
    return json.dumps(reservation)


@tool(
    ToolKind.READ,
    "Look up a user's profile, including saved payment methods and reservation ids.",
    {
        "user_id": {
            "type": "string",
            "description": "Identifier of the user, for example 'sara_doe_496'.",
        }
    },
)
def get_user_details(db: WorldState, user_id: str) -> str:
    user = db.get(USERS, user_id)
    if user is None:
        return "Error: user not found"
    return json.dumps(user)


@tool(ToolKind.READ, "Return every airport code served, with the city it belongs to.", {})
def list_all_airports(db: WorldState) -> str:
    return json.dumps(dict(_AIRPORTS))


@tool(
    ToolKind.READ,
    "Find nonstop flights from one airport to another that can be booked on a given day.",
    {
        "origin": _AIRPORT_ORIGIN,
        "destination": _AIRPORT_DESTINATION,
        "date": {
            "type": "string",
            "description": "Day of travel as 'YYYY-MM-DD', for example '2024-01-01'.",
        },
    },
)
def search_direct_flight(db: WorldState, origin: str, destination: str, date: str) -> str:
    results = []
    for flight in _all_flights(db):
        if flight["origin"] != origin or flight["destination"] != destination:
            continue
        days = flight["dates"]
        if date in days and days[date]["status"] == "available":
            entry = {k: v for k, v in flight.items() if k != "dates"}
            entry.update(days[date])
            results.append(entry)
    return json.dumps(results)


@tool(
    ToolKind.READ,
    "Find two-flight connections from one airport to another, leaving on a given day.",
    {"origin": _AIRPORT_ORIGIN, "destination": _AIRPORT_DESTINATION, "date": _SEARCH_DATE},
)
def search_onestop_flight(db: WorldState, origin: str, destination: str, date: str) -> str:
    flights = _all_flights(db)
    results = []
    for first in flights:
        if first["origin"] != origin:
            continue
        for second in flights:
            if second["destination"] != destination or first["destination"] != second["origin"]:
                continue
            # τ-bench's next-day date: May only, day number without zero padding;
            # computed (and possibly failing on a malformed date) before the time check.
            second_date = (
                f"2024-05-{int(date[-2:]) + 1}"
                if "+1" in first["scheduled_arrival_time_est"]
                else date
            )
            if first["scheduled_arrival_time_est"] > second["scheduled_departure_time_est"]:
                continue
            if date not in first["dates"] or second_date not in second["dates"]:
                continue
            if (
                first["dates"][date]["status"] != "available"
                or second["dates"][second_date]["status"] != "available"
            ):
                continue
            leg1 = {k: v for k, v in first.items() if k != "dates"}
            leg1.update(first["dates"][date])
            leg1["date"] = date
            leg2 = {k: v for k, v in second.items() if k != "dates"}
            leg2.update(second["dates"][date])  # τ-bench reads the first leg's date here
            leg2["date"] = second_date
            results.append([leg1, leg2])
    return json.dumps(results)


@tool(
    ToolKind.WRITE,
    "Issue a travel certificate of the given value to a user's profile.",
    {
        "user_id": {
            "type": "string",
            "description": "Identifier of the user receiving the certificate, for example 'sara_doe_496'.",
        },
        "amount": {"type": "number", "description": "Value of the certificate."},
    },
)
def send_certificate(db: WorldState, user_id: str, amount: float) -> str:
    user = db.get(USERS, user_id)
    if user is None:
        return "Error: user not found"
    for number in _CERTIFICATE_NUMBERS:
        payment_id = f"certificate_{number}"
        if payment_id not in user["payment_methods"]:
            db.edit(USERS, user_id)["payment_methods"][payment_id] = {
                "source": "certificate",
                "amount": amount,
                "id": payment_id,
            }
            return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
    # τ-bench's tool falls through and returns None when all three ids are taken.
    return "None"


@tool(
    ToolKind.READ,
    "Write down a reasoning step; nothing is looked up and nothing changes.",
    {"thought": {"type": "string", "description": "The reasoning to record."}},
)
def think(db: WorldState, thought: str) -> str:
    return ""


@tool(
    ToolKind.READ,
    "Hand the conversation to a human agent with a summary of the issue. Use it only "
    "when the user asks for a human or the request cannot be handled with these tools.",
    {"summary": {"type": "string", "description": "Short summary of what the user needs."}},
    ends_episode=True,
)
def transfer_to_human_agents(db: WorldState, summary: str) -> str:
    return "Transfer successful"


@tool(
    ToolKind.WRITE,
    "Change the number of checked bags on a reservation, charging added paid bags.",
    {
        "reservation_id": _RESERVATION_ID,
        "total_baggages": {
            "type": "integer",
            "description": "New number of checked bags on the reservation in total.",
        },
        "nonfree_baggages": {
            "type": "integer",
            "description": "New number of those checked bags that must be paid for.",
        },
        "payment_id": _PAYMENT_ID,
    },
)
def update_reservation_baggages(
    db: WorldState,
    reservation_id: str,
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> str:
    reservation = db.get(RESERVATIONS, reservation_id)
    if reservation is None:
        return "Error: reservation not found"
    total_price = 50 * max(0, nonfree_baggages - reservation["nonfree_baggages"])
    owner = reservation["user_id"]
    saved = db.table(USERS)[owner]["payment_methods"]
    if payment_id not in saved:
        return "Error: payment method not found"
    method = saved[payment_id]
    if method["source"] == "certificate":
        return "Error: certificate cannot be used to update reservation"
    if method["source"] == "gift_card" and method["amount"] < total_price:
        return "Error: gift card balance is not enough"

    reservation = db.edit(RESERVATIONS, reservation_id)
    reservation["total_baggages"] = total_baggages
    reservation["nonfree_baggages"] = nonfree_baggages
    if method["source"] == "gift_card":
        db.edit(USERS, owner)["payment_methods"][payment_id]["amount"] -= total_price
    if total_price != 0:
        reservation["payment_history"].append({"payment_id": payment_id, "amount": total_price})
    return json.dumps(reservation)


@tool(
    ToolKind.WRITE,
    "Replace the flights of a reservation, charging or refunding the price difference.",
    {
        "reservation_id": _RESERVATION_ID,
        "cabin": _CABIN,
        "flights": {
            "type": "array",
            "description": (
                "Every flight segment of the reservation after the change, unchanged "
                "segments included."
            ),
            "items": _FLIGHT_SEGMENT,
        },
        "payment_id": _PAYMENT_ID,
    },
)
def update_reservation_flights(
    db: WorldState,
    reservation_id: str,
    cabin: str,
    flights: list[Segment],
    payment_id: str,
) -> str:
    reservation = db.get(RESERVATIONS, reservation_id)
    if reservation is None:
        return "Error: reservation not found"

    total_price = 0
    flights = json_copy(flights)
    for segment in flights:
        # A segment already on the reservation (same number, date and cabin) keeps its price.
        kept = [
            old
            for old in reservation["flights"]
            if old["flight_number"] == segment["flight_number"]
            and old["date"] == segment["date"]
            and cabin == reservation["cabin"]
        ]
        if kept:
            total_price += kept[0]["price"] * len(reservation["passengers"])
            segment["price"] = kept[0]["price"]
            segment["origin"] = kept[0]["origin"]
            segment["destination"] = kept[0]["destination"]
            continue
        error = _price_segment(db, segment, cabin, reservation["passengers"])
        if error is not None:
            return error
        total_price += segment["price"] * len(reservation["passengers"])
    total_price -= sum(old["price"] for old in reservation["flights"]) * len(
        reservation["passengers"]
    )

    owner = reservation["user_id"]
    saved = db.table(USERS)[owner]["payment_methods"]
    if payment_id not in saved:
        return "Error: payment method not found"
    method = saved[payment_id]
    if method["source"] == "certificate":
        return "Error: certificate cannot be used to update reservation"
    if method["source"] == "gift_card" and method["amount"] < total_price:
        return "Error: gift card balance is not enough"

    if method["source"] == "gift_card":
        db.edit(USERS, owner)["payment_methods"][payment_id]["amount"] -= total_price
    reservation = db.edit(RESERVATIONS, reservation_id)
    reservation["flights"] = flights  # the cabin is deliberately left as it was
    if total_price != 0:
        reservation["payment_history"].append({"payment_id": payment_id, "amount": total_price})
    return json.dumps(reservation)


@tool(
    ToolKind.WRITE,
    "Replace the passenger details of a reservation; the number of passengers must stay the same.",
    {"reservation_id": _RESERVATION_ID, "passengers": _PASSENGERS},
)
def update_reservation_passengers(
    db: WorldState, reservation_id: str, passengers: list[Passenger]
) -> str:
    reservation = db.get(RESERVATIONS, reservation_id)
    if reservation is None:
        return "Error: reservation not found"
    if len(passengers) != len(reservation["passengers"]):
        return "Error: number of passengers does not match"
    reservation = db.edit(RESERVATIONS, reservation_id)
    reservation["passengers"] = json_copy(passengers)
    return json.dumps(reservation)
