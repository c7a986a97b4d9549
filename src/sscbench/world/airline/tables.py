"""The airline world's record shapes (τ-bench's ``users``, ``flights``,
``reservations``) and typed handles of its tables.

TypedDicts cost nothing at run time (a record stays the plain dict τ-bench reads), yet
mypy checks every read and write the tools make. ``tests/world`` validates every
record of the shipped and generated data against these shapes, which is what lets
:class:`~sscbench.world.state.Table` hand a record out under its type.
"""

from __future__ import annotations

from typing import NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from sscbench.world.retail.tables import RECORD_SHAPE, Address, Name
from sscbench.world.state import Table


@with_config(RECORD_SHAPE)
class Passenger(TypedDict):
    """A traveller: name and date of birth."""

    first_name: str
    last_name: str
    dob: str


@with_config(RECORD_SHAPE)
class PaymentMethod(TypedDict):
    """A user's payment method: ``credit_card`` (brand, last four), ``gift_card`` or
    ``certificate`` (amount)."""

    source: str
    id: str
    brand: NotRequired[str]
    last_four: NotRequired[str]
    amount: NotRequired[float]


@with_config(RECORD_SHAPE)
class User(TypedDict):
    """An airline customer."""

    name: Name
    address: Address
    email: str
    dob: str
    payment_methods: dict[str, PaymentMethod]
    saved_passengers: list[Passenger]
    membership: str
    reservations: list[str]


@with_config(RECORD_SHAPE)
class FlightDay(TypedDict):
    """A flight on one date: its status, and seats and prices per cabin while bookable
    (``available``) or its actual or estimated times otherwise."""

    status: str
    available_seats: NotRequired[dict[str, int]]
    prices: NotRequired[dict[str, int]]
    actual_departure_time_est: NotRequired[str]
    actual_arrival_time_est: NotRequired[str]
    estimated_departure_time_est: NotRequired[str]
    estimated_arrival_time_est: NotRequired[str]


@with_config(RECORD_SHAPE)
class Flight(TypedDict):
    """A scheduled flight and its days."""

    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    dates: dict[str, FlightDay]


@with_config(RECORD_SHAPE)
class Segment(TypedDict):
    """One flight of a reservation at the price paid per passenger.

    A segment as a booking or a change asks for it names only the flight and the
    date; the tool fills in the route and the price before it is stored.
    """

    origin: NotRequired[str]
    destination: NotRequired[str]
    flight_number: str
    date: str
    price: NotRequired[int]


@with_config(RECORD_SHAPE)
class Payment(TypedDict):
    """One entry of a reservation's payment history (payment or refund)."""

    payment_id: str
    amount: float


@with_config(RECORD_SHAPE)
class Reservation(TypedDict):
    """A reservation; cancelling it sets ``status``."""

    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: str
    cabin: str
    flights: list[Segment]
    passengers: list[Passenger]
    payment_history: list[Payment]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: str
    status: NotRequired[str]


USERS: Table[User] = Table("users")
FLIGHTS: Table[Flight] = Table("flights")
RESERVATIONS: Table[Reservation] = Table("reservations")
RECORD_SHAPES: dict[str, type] = {"users": User, "flights": Flight, "reservations": Reservation}
"""The shape of each airline table's records, for validation."""
