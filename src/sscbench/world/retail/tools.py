"""The 16 retail tools, observation-for-observation identical to τ-bench's.

Each tool reproduces the reference behaviour exactly, including its quirks: which
checks run in which order, which records change before a later step fails (the
exception then becomes ``"Error: ..."`` in :meth:`Env.execute`), the key order of
records it builds, and where amounts are (or are not) rounded.

Records are read with ``db.get``/``db.table`` and changed only through the copy that
``db.edit`` returns, so the shared base is never touched.
"""

from __future__ import annotations

import json

from sscbench.json_types import JsonObject, JsonValue
from sscbench.world.calculate import calculate_observation
from sscbench.world.retail.tables import (
    ORDERS,
    PRODUCTS,
    USERS,
    Address,
    Item,
    Order,
    Payment,
    Product,
    User,
)
from sscbench.world.state import WorldState
from sscbench.world.tools import ToolKind, ToolRegistry

RETAIL_TOOLS = ToolRegistry("retail")
tool = RETAIL_TOOLS.tool

# ---- shared schema pieces ---------------------------------------------------------------

_ORDER_ID: JsonObject = {
    "type": "string",
    "description": "Identifier of the order; it starts with a '#', e.g. '#W0000000'.",
}
_USER_ID: JsonObject = {
    "type": "string",
    "description": "Identifier of the user, e.g. 'sara_doe_496'.",
}
_PAYMENT_METHOD_ID: JsonObject = {
    "type": "string",
    "description": (
        "Identifier of the payment method that pays, or is refunded, the price difference, "
        "e.g. 'gift_card_0000000' or 'credit_card_0000000' (see the user or order details)."
    ),
}


def _item_list(what: str) -> JsonObject:
    return {
        "type": "array",
        "items": {"type": "string"},
        "description": f"{what}, each like '1008292230'; an id may appear more than once.",
    }


def _new_item_list() -> JsonObject:
    return {
        "type": "array",
        "items": {"type": "string"},
        "description": (
            "Replacement item ids, each like '1008292230', possibly repeated. The id at "
            "each position replaces the item at the same position and must belong to the "
            "same product."
        ),
    }


def _address_fields() -> dict[str, JsonValue]:
    return {
        "address1": {"type": "string", "description": "Street line, e.g. '123 Main St'."},
        "address2": {
            "type": "string",
            "description": "Second line (apartment, suite), e.g. 'Apt 1', or ''.",
        },
        "city": {"type": "string", "description": "City, e.g. 'San Francisco'."},
        "state": {"type": "string", "description": "State, e.g. 'CA'."},
        "country": {"type": "string", "description": "Country, e.g. 'USA'."},
        "zip": {"type": "string", "description": "Postal code, e.g. '12345'."},
    }


def _address(
    address1: str, address2: str, city: str, state: str, country: str, zip: str
) -> Address:
    # Key order matters: it shows in the observation and in later reads.
    return {
        "address1": address1,
        "address2": address2,
        "city": city,
        "state": state,
        "country": country,
        "zip": zip,
    }


# ---- calculate ---------------------------------------------------------------------------


@tool(
    ToolKind.READ,
    "Evaluate an arithmetic expression and return the result rounded to two decimals.",
    {
        "expression": {
            "type": "string",
            "description": (
                "Arithmetic to evaluate, e.g. '2 + 2'. Only digits, + - * /, parentheses, "
                "decimal points and spaces are accepted."
            ),
        }
    },
)
def calculate(db: WorldState, expression: str) -> str:
    return calculate_observation(expression)


# ---- orders: cancel / exchange --------------------------------------------------------------


@tool(
    ToolKind.WRITE,
    (
        "Cancel an order that is still pending (processed or delivered orders cannot be "
        "cancelled). Explain the cancellation and get an explicit yes from the user first. "
        "The order becomes 'cancelled' and every payment is refunded: gift-card payments "
        "go back to the card at once, other methods within 5-7 business days. Returns the "
        "updated order."
    ),
    {
        "order_id": _ORDER_ID,
        "reason": {
            "type": "string",
            "enum": ["no longer needed", "ordered by mistake"],
            "description": "Why the order is cancelled: 'no longer needed' or 'ordered by mistake'.",
        },
    },
)
def cancel_pending_order(db: WorldState, order_id: str, reason: str) -> str:
    found = db.get(ORDERS, order_id)
    if found is None:
        return "Error: order not found"
    if found["status"] != "pending":
        return "Error: non-pending order cannot be cancelled"
    if reason not in ("no longer needed", "ordered by mistake"):
        return "Error: invalid reason"

    order = db.edit(ORDERS, order_id)
    refunds: list[Payment] = []
    for payment in order["payment_history"]:
        method_id = payment["payment_method_id"]
        refunds.append(
            {
                "transaction_type": "refund",
                "amount": payment["amount"],
                "payment_method_id": method_id,
            }
        )
        if "gift_card" in method_id:
            card = db.edit(USERS, order["user_id"])["payment_methods"][method_id]
            card["balance"] += payment["amount"]
            card["balance"] = round(card["balance"], 2)

    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    order["payment_history"].extend(refunds)
    return json.dumps(order)


def _missing_items(order: Order, item_ids: list[str]) -> tuple[str, ...]:
    """``(item_id,)`` for the first requested id the order holds fewer times than
    requested, ``()`` when the order holds them all.

    The id itself may be any value, ``None`` included (a ``null`` in the call), so
    "nothing missing" is the empty tuple, never a value an id could take.
    """
    held = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_ids.count(item_id) > held.count(item_id):
            return (item_id,)
    return ()


def _first_item(order: Order, item_id: str) -> Item:
    for item in order["items"]:
        if item["item_id"] == item_id:
            return item
    raise IndexError("list index out of range")  # the reference's message when none matches


def _price_difference(
    db: WorldState, order: Order, item_ids: list[str], new_item_ids: list[str]
) -> tuple[float, str | None]:
    """Sum of (new price - old price) over the pairs, or the error for an unusable new item."""
    diff: float = 0  # stays an int (printed "0") when no pair changes the price
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
        item = _first_item(order, item_id)
        variants = _product(db, item["product_id"])["variants"]
        if not (new_item_id in variants and variants[new_item_id]["available"]):
            return diff, f"Error: new item {new_item_id} not found or available"
        diff += variants[new_item_id]["price"] - item["price"]
    return diff, None


def _product(db: WorldState, product_id: str) -> Product:
    product = db.get(PRODUCTS, product_id)
    if product is None:
        raise KeyError(product_id)
    return product


def _user(db: WorldState, user_id: str) -> User:
    user = db.get(USERS, user_id)
    if user is None:
        raise KeyError(user_id)
    return user


@tool(
    ToolKind.WRITE,
    (
        "Request an exchange of items of a delivered order for other items of the same "
        "product. A delivered order allows one return or exchange only. Explain the "
        "exchange and get an explicit yes from the user first."
    ),
    {
        "order_id": _ORDER_ID,
        "item_ids": _item_list("Ids of the items to exchange"),
        "new_item_ids": _new_item_list(),
        "payment_method_id": _PAYMENT_METHOD_ID,
    },
)
def exchange_delivered_order_items(
    db: WorldState,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
) -> str:
    order = db.get(ORDERS, order_id)
    if order is None:
        return "Error: order not found"
    if order["status"] != "delivered":
        return "Error: non-delivered order cannot be exchanged"

    missing = _missing_items(order, item_ids)
    if missing:
        return f"Error: {missing[0]} not found"
    if len(item_ids) != len(new_item_ids):
        return "Error: the number of items to be exchanged should match"

    diff, error = _price_difference(db, order, item_ids, new_item_ids)
    if error is not None:
        return error
    diff = round(diff, 2)

    methods = _user(db, order["user_id"])["payment_methods"]
    if payment_method_id not in methods:
        return "Error: payment method not found"
    method = methods[payment_method_id]
    if method["source"] == "gift_card" and method["balance"] < diff:
        return "Error: insufficient gift card balance to pay for the price difference"

    order = db.edit(ORDERS, order_id)
    order["status"] = "exchange requested"
    order["exchange_items"] = sorted(item_ids)
    order["exchange_new_items"] = sorted(new_item_ids)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = diff
    return json.dumps(order)


# ---- lookups ------------------------------------------------------------------------------


@tool(
    ToolKind.READ,
    "Look up a user's id from their email address; returns an error when no user matches.",
    {"email": {"type": "string", "description": "Email address, e.g. 'something@example.com'."}},
)
def find_user_id_by_email(db: WorldState, email: str) -> str:
    wanted = email.lower()
    for user_id, profile in db.table(USERS).items():
        if profile["email"].lower() == wanted:
            return user_id
    return "Error: user not found"


@tool(
    ToolKind.READ,
    (
        "Look up a user's id from first name, last name and zip code; returns an error when "
        "no user matches. Prefer the email lookup; use this one only when the email is "
        "unknown or finds nobody."
    ),
    {
        "first_name": {"type": "string", "description": "Given name, e.g. 'John'."},
        "last_name": {"type": "string", "description": "Family name, e.g. 'Doe'."},
        "zip": {"type": "string", "description": "Postal code of the user, e.g. '12345'."},
    },
)
def find_user_id_by_name_zip(db: WorldState, first_name: str, last_name: str, zip: str) -> str:
    for user_id, profile in db.table(USERS).items():
        name = profile["name"]
        if (
            name["first_name"].lower() == first_name.lower()
            and name["last_name"].lower() == last_name.lower()
            and profile["address"]["zip"] == zip
        ):
            return user_id
    return "Error: user not found"


@tool(
    ToolKind.READ,
    "Return an order with its status, items, address and payments.",
    {"order_id": _ORDER_ID},
)
def get_order_details(db: WorldState, order_id: str) -> str:
    order = db.get(ORDERS, order_id)
    if order is None:
        return "Error: order not found"
    return json.dumps(order)


@tool(
    ToolKind.READ,
    "Return a product with all of its variants (item ids, options, prices, availability).",
    {
        "product_id": {
            "type": "string",
            "description": "Identifier of the product, e.g. '6086499569' (not an item id).",
        }
    },
)
def get_product_details(db: WorldState, product_id: str) -> str:
    product = db.get(PRODUCTS, product_id)
    if product is None:
        return "Error: product not found"
    return json.dumps(product)


@tool(
    ToolKind.READ,
    "Return a user's profile: name, address, email, payment methods and order ids.",
    {"user_id": _USER_ID},
)
def get_user_details(db: WorldState, user_id: str) -> str:
    user = db.get(USERS, user_id)
    if user is None:
        return "Error: user not found"
    return json.dumps(user)


@tool(
    ToolKind.READ,
    (
        "List every product type of the store (50 in all) as a map from product name to "
        "product id. Each product type comes in several items with their own ids and options."
    ),
    {},
)
def list_all_product_types(db: WorldState) -> str:
    by_name = {product["name"]: product["product_id"] for product in db.table(PRODUCTS).values()}
    return json.dumps(dict(sorted(by_name.items())))


# ---- pending orders -------------------------------------------------------------------------


@tool(
    ToolKind.WRITE,
    (
        "Change the shipping address of a pending order. Explain the change and get an "
        "explicit yes from the user first."
    ),
    {"order_id": _ORDER_ID, **_address_fields()},
)
def modify_pending_order_address(
    db: WorldState,
    order_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> str:
    found = db.get(ORDERS, order_id)
    if found is None:
        return "Error: order not found"
    if found["status"] != "pending":
        return "Error: non-pending order cannot be modified"
    order = db.edit(ORDERS, order_id)
    order["address"] = _address(address1, address2, city, state, country, zip)
    return json.dumps(order)


@tool(
    ToolKind.WRITE,
    (
        "Swap items of a pending order for other items of the same product; this can be "
        "done once per pending order. Explain the change and get an explicit yes from the "
        "user first."
    ),
    {
        "order_id": _ORDER_ID,
        "item_ids": _item_list("Ids of the items to change"),
        "new_item_ids": _new_item_list(),
        "payment_method_id": _PAYMENT_METHOD_ID,
    },
)
def modify_pending_order_items(
    db: WorldState,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
) -> str:
    found = db.get(ORDERS, order_id)
    if found is None:
        return "Error: order not found"
    if found["status"] != "pending":
        return "Error: non-pending order cannot be modified"

    missing = _missing_items(found, item_ids)
    if missing:
        return f"Error: {missing[0]} not found"
    if len(item_ids) != len(new_item_ids):
        return "Error: the number of items to be exchanged should match"

    # The difference is deliberately left unrounded, as in the reference.
    diff, error = _price_difference(db, found, item_ids, new_item_ids)
    if error is not None:
        return error

    user_id = found["user_id"]
    methods = _user(db, user_id)["payment_methods"]
    if payment_method_id not in methods:
        return "Error: payment method not found"
    method = methods[payment_method_id]
    if method["source"] == "gift_card" and method["balance"] < diff:
        return "Error: insufficient gift card balance to pay for the new item"

    order = db.edit(ORDERS, order_id)
    order["payment_history"].append(
        {
            "transaction_type": "payment" if diff > 0 else "refund",
            "amount": abs(diff),
            "payment_method_id": payment_method_id,
        }
    )
    if method["source"] == "gift_card":
        card = db.edit(USERS, user_id)["payment_methods"][payment_method_id]
        card["balance"] -= diff
        card["balance"] = round(card["balance"], 2)

    # Items are looked up again one pair at a time on the already-changed order, so a
    # new id equal to a later old id re-targets the item just changed (as the reference).
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
        item = _first_item(order, item_id)
        variant = _product(db, item["product_id"])["variants"][new_item_id]
        item["item_id"] = new_item_id
        item["price"] = variant["price"]
        item["options"] = dict(variant["options"])
    order["status"] = "pending (item modified)"
    return json.dumps(order)


@tool(
    ToolKind.WRITE,
    (
        "Pay a pending order with a different payment method of the user. Explain the "
        "change and get an explicit yes from the user first."
    ),
    {"order_id": _ORDER_ID, "payment_method_id": _PAYMENT_METHOD_ID},
)
def modify_pending_order_payment(db: WorldState, order_id: str, payment_method_id: str) -> str:
    found = db.get(ORDERS, order_id)
    if found is None:
        return "Error: order not found"
    if found["status"] != "pending":
        return "Error: non-pending order cannot be modified"

    user_id = found["user_id"]
    methods = _user(db, user_id)["payment_methods"]
    if payment_method_id not in methods:
        return "Error: payment method not found"

    history = found["payment_history"]
    if len(history) > 1 or history[0]["transaction_type"] != "payment":
        return "Error: there should be exactly one payment for a pending order"
    old_method_id = history[0]["payment_method_id"]
    if old_method_id == payment_method_id:
        return "Error: the new payment method should be different from the current one"

    amount = history[0]["amount"]
    method = methods[payment_method_id]
    if method["source"] == "gift_card" and method["balance"] < amount:
        return "Error: insufficient gift card balance to pay for the order"

    order = db.edit(ORDERS, order_id)
    order["payment_history"].extend(
        [
            {
                "transaction_type": "payment",
                "amount": amount,
                "payment_method_id": payment_method_id,
            },
            {
                "transaction_type": "refund",
                "amount": amount,
                "payment_method_id": old_method_id,
            },
        ]
    )
    if method["source"] == "gift_card":
        card = db.edit(USERS, user_id)["payment_methods"][payment_method_id]
        card["balance"] -= amount
        card["balance"] = round(card["balance"], 2)
    if "gift_card" in old_method_id:
        old_card = db.edit(USERS, user_id)["payment_methods"][old_method_id]
        old_card["balance"] += amount
        old_card["balance"] = round(old_card["balance"], 2)
    return json.dumps(order)


# ---- users -----------------------------------------------------------------------------------


@tool(
    ToolKind.WRITE,
    (
        "Change a user's default address. Explain the change and get an explicit yes from "
        "the user first."
    ),
    {"user_id": _USER_ID, **_address_fields()},
)
def modify_user_address(
    db: WorldState,
    user_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> str:
    if db.get(USERS, user_id) is None:
        return "Error: user not found"
    user = db.edit(USERS, user_id)
    user["address"] = _address(address1, address2, city, state, country, zip)
    return json.dumps(user)


# ---- delivered orders: return ------------------------------------------------------------------


@tool(
    ToolKind.WRITE,
    (
        "Request the return of items of a delivered order; its status becomes 'return "
        "requested' and the user gets an email on how to send the items back. Explain the "
        "return and get an explicit yes from the user first."
    ),
    {
        "order_id": _ORDER_ID,
        "item_ids": _item_list("Ids of the items to return"),
        "payment_method_id": _PAYMENT_METHOD_ID,
    },
)
def return_delivered_order_items(
    db: WorldState, order_id: str, item_ids: list[str], payment_method_id: str
) -> str:
    found = db.get(ORDERS, order_id)
    if found is None:
        return "Error: order not found"
    if found["status"] != "delivered":
        return "Error: non-delivered order cannot be returned"

    if payment_method_id not in _user(db, found["user_id"])["payment_methods"]:
        return "Error: payment method not found"
    if (
        "gift_card" not in payment_method_id
        and payment_method_id != found["payment_history"][0]["payment_method_id"]
    ):
        return "Error: payment method should be either the original payment method or a gift card"

    if _missing_items(found, item_ids):
        return "Error: some item not found"

    order = db.edit(ORDERS, order_id)
    order["status"] = "return requested"
    order["return_items"] = sorted(item_ids)
    order["return_payment_method_id"] = payment_method_id
    return json.dumps(order)


# ---- no database access -------------------------------------------------------------------------


@tool(
    ToolKind.READ,
    (
        "Write down a thought, e.g. for complex reasoning or as a scratchpad. It neither "
        "fetches information nor changes the database."
    ),
    {"thought": {"type": "string", "description": "The thought to record."}},
)
def think(db: WorldState, thought: str) -> str:
    return ""


@tool(
    ToolKind.READ,
    (
        "Hand the user over to a human agent together with a summary of the issue. Only do "
        "this when the user explicitly asks for a human, or when the available tools cannot "
        "resolve the issue."
    ),
    {"summary": {"type": "string", "description": "Short summary of the user's issue."}},
    ends_episode=True,
)
def transfer_to_human_agents(db: WorldState, summary: str) -> str:
    return "Transfer successful"
