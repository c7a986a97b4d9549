"""The retail world's record shapes (τ-bench's ``users``, ``orders``, ``products``) and
typed handles of its tables.

TypedDicts cost nothing at run time (a record stays the plain dict τ-bench reads), yet
mypy checks every read and write the tools make. ``tests/world`` validates every
record of the shipped and generated data against these shapes, which is what lets
:class:`~sscbench.world.state.Table` hand a record out under its type.
"""

from __future__ import annotations

from typing import NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from sscbench.world.state import Table

RECORD_SHAPE = ConfigDict(extra="forbid")
"""When validated (by tests), a record may hold no field its shape does not name (both
worlds' shapes use it)."""


@with_config(RECORD_SHAPE)
class Name(TypedDict):
    """A person's name."""

    first_name: str
    last_name: str


@with_config(RECORD_SHAPE)
class Address(TypedDict):
    """A postal address (key order as τ-bench prints it)."""

    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


@with_config(RECORD_SHAPE)
class PaymentMethod(TypedDict):
    """A user's payment method: ``credit_card`` (brand, last four), ``gift_card``
    (balance) or ``paypal``."""

    source: str
    id: str
    brand: NotRequired[str]
    last_four: NotRequired[str]
    balance: NotRequired[float]


@with_config(RECORD_SHAPE)
class User(TypedDict):
    """A retail customer."""

    name: Name
    address: Address
    email: str
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]


@with_config(RECORD_SHAPE)
class Item(TypedDict):
    """One item of an order: a product variant at the price paid."""

    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


@with_config(RECORD_SHAPE)
class Fulfillment(TypedDict):
    """A shipment: its tracking ids and the items in it."""

    tracking_id: list[str]
    item_ids: list[str]


@with_config(RECORD_SHAPE)
class Payment(TypedDict):
    """One entry of an order's payment history (payment or refund)."""

    transaction_type: str
    amount: float
    payment_method_id: str


@with_config(RECORD_SHAPE)
class Order(TypedDict):
    """An order; the tools add the fields of a requested return, exchange or cancel."""

    order_id: str
    user_id: str
    address: Address
    items: list[Item]
    fulfillments: list[Fulfillment]
    status: str
    payment_history: list[Payment]
    cancel_reason: NotRequired[str]
    return_items: NotRequired[list[str]]
    return_payment_method_id: NotRequired[str]
    exchange_items: NotRequired[list[str]]
    exchange_new_items: NotRequired[list[str]]
    exchange_payment_method_id: NotRequired[str]
    exchange_price_difference: NotRequired[float]


@with_config(RECORD_SHAPE)
class Variant(TypedDict):
    """One variant of a product: its item id, options, availability and price."""

    item_id: str
    options: dict[str, str]
    available: bool
    price: float


@with_config(RECORD_SHAPE)
class Product(TypedDict):
    """A product with its variants keyed by item id."""

    name: str
    product_id: str
    variants: dict[str, Variant]


USERS: Table[User] = Table("users")
ORDERS: Table[Order] = Table("orders")
PRODUCTS: Table[Product] = Table("products")
RECORD_SHAPES: dict[str, type] = {"users": User, "orders": Order, "products": Product}
"""The shape of each retail table's records, for validation."""
