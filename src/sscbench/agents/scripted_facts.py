"""Pieces the scripted agents share: parsed observations, fact keys and message text.

Fact keys name what a scripted agent states or uses, one family per fault operator:

* ``reservation:<id>:return_date`` — date of the first return segment (round trips);
* ``reservation:<id>:flights`` — the segments (number and date) the agent used;
* ``reservation:<id>:cabin``;
* ``payment:<payment_id>:category`` — the ``source`` of a payment method;
* ``order:<order_id>:item:<item_id>:options``;
* ``write:<record_id>:<tool>`` — whether a write took effect ("applied" / "not_applied").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sscbench.json_types import JsonObject, JsonValue
from sscbench.reading import loads_json


@dataclass
class Obs:
    """One delivered tool observation, parsed as JSON on first use."""

    step: int
    call_id: str
    name: str
    arguments: JsonObject
    text: str
    _data: JsonValue = field(default=None, repr=False)
    _parsed: bool = field(default=False, repr=False)

    @property
    def error(self) -> bool:
        """True when the tool answered with an error (or with no JSON where JSON was due)."""
        return self.text.startswith("Error") or self.text.startswith("Unknown action")

    @property
    def data(self) -> JsonValue:
        """The observation as JSON data (None when it is not JSON)."""
        if not self._parsed:
            self._parsed = True
            try:
                self._data = (
                    loads_json(self.text, max_depth=None) if self.text[:1] in "{[" else None
                )
            except ValueError:
                self._data = None
        return self._data

    @property
    def record(self) -> JsonObject:
        """The observation as a JSON object ({} when it is not one)."""
        return as_object(self.data)


# ---- reading JSON defensively ---------------------------------------------------------------
# What the agent reads may be faulted: a field may be missing or of another type. These
# narrow a value once, where it is read, instead of trusting its shape.


def as_object(value: object) -> JsonObject:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[JsonValue]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def objects(value: object) -> list[JsonObject]:
    """The JSON objects among the elements of ``value`` (none when it is not an array)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def fields(value: JsonValue) -> JsonObject:
    """``value or {}`` as an object whose fields are read: {} for a missing or empty
    value; any other non-object raises AttributeError, as reading a field of it does."""
    if isinstance(value, dict):
        return value
    if not value:
        return {}
    raise AttributeError(f"{type(value).__name__!r} object has no attribute 'get'")


def length(value: JsonValue) -> int:
    """``len(value or [])`` of a field a fault may have retyped (an array, an object or
    a string all have a length; any other value raises TypeError, as ``len`` does)."""
    if isinstance(value, (list, dict, str)):
        return len(value)
    if not value:
        return 0
    raise TypeError(f"object of type {type(value).__name__!r} has no len()")


def as_text(value: object, default: str = "") -> str:
    """``value`` when it is a string, else ``default``."""
    return value if isinstance(value, str) else default


# ---- fact keys ----------------------------------------------------------------------------


def fact_return_date(rid: JsonValue) -> str:
    return f"reservation:{rid}:return_date"


def fact_flights(rid: JsonValue) -> str:
    return f"reservation:{rid}:flights"


def fact_cabin(rid: JsonValue) -> str:
    return f"reservation:{rid}:cabin"


def fact_payment(pid: JsonValue) -> str:
    return f"payment:{pid}:category"


def fact_options(oid: JsonValue, iid: str) -> str:
    return f"order:{oid}:item:{iid}:options"


def fact_write(record_id: str, tool: str) -> str:
    return f"write:{record_id}:{tool}"


# ---- extracting values from records ------------------------------------------------------


def segments(record: object) -> list[JsonObject]:
    """The flight segments of a reservation record (dicts only)."""
    flights = record.get("flights") if isinstance(record, dict) else None
    return [f for f in flights if isinstance(f, dict)] if isinstance(flights, list) else []


def segment_refs(flights: list[JsonObject]) -> list[JsonValue]:
    """Number and date of each segment."""
    return [{"flight_number": f.get("flight_number"), "date": f.get("date")} for f in flights]


def directions(record: object) -> tuple[list[JsonObject], list[JsonObject]]:
    """Outbound and return segments of a reservation (return empty unless a round trip)."""
    flights = segments(record)
    if not isinstance(record, dict) or record.get("flight_type") != "round_trip":
        return flights, []
    for i, flight in enumerate(flights):
        if flight.get("destination") == record.get("destination"):
            return flights[: i + 1], flights[i + 1 :]
    return flights, []


def return_date(record: object) -> str | None:
    """Date of the first return segment of a round trip, else None."""
    _, back = directions(record)
    date = back[0].get("date") if back else None
    return date if isinstance(date, str) else None


def date_contradiction(record: object) -> tuple[str, str] | None:
    """(return date, outbound date) when a round trip returns before its outbound leg."""
    out, back = directions(record)
    if not out or not back:
        return None
    last_out, first_back = out[-1].get("date"), back[0].get("date")
    if isinstance(last_out, str) and isinstance(first_back, str) and first_back < last_out:
        return first_back, last_out
    return None


def payment_category(user: object, pid: str) -> str | None:
    """The ``source`` of a saved payment method, None when unknown."""
    methods = user.get("payment_methods") if isinstance(user, dict) else None
    method = methods.get(pid) if isinstance(methods, dict) else None
    source = method.get("source") if isinstance(method, dict) else None
    return source if isinstance(source, str) else None


def order_item(order: object, iid: str) -> JsonObject | None:
    """The first item of an order with that item id."""
    items = order.get("items") if isinstance(order, dict) else None
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and item.get("item_id") == iid:
            return item
    return None


def item_options(order: object, iid: str) -> JsonObject | None:
    item = order_item(order, iid)
    options = item.get("options") if item else None
    return options if isinstance(options, dict) else None


def variant(product: object, iid: str) -> JsonObject | None:
    """The variant of a product record bound to an item id."""
    variants = product.get("variants") if isinstance(product, dict) else None
    found = variants.get(iid) if isinstance(variants, dict) else None
    return found if isinstance(found, dict) else None


# ---- text -------------------------------------------------------------------------------


def money(amount: object) -> str:
    """``$453``, ``$41.60``, ``-$12`` (no thousands separators)."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        return f"${amount}"
    value = round(float(amount), 2)
    sign = "-" if value < 0 else ""
    value = abs(value)
    text = str(int(value)) if value.is_integer() else f"{value:.2f}"
    return f"{sign}${text}"


def category_text(category: str | None) -> str:
    return category.replace("_", " ") if category else "payment method"


def payment_text(pid: str, category: str | None) -> str:
    return f"{pid} ({category_text(category)})" if category else pid


def cabin_text(cabin: object) -> str:
    return str(cabin).replace("_", " ")


def segment_text(flight: JsonObject) -> str:
    route = ""
    if flight.get("origin") and flight.get("destination"):
        route = f" {flight['origin']}→{flight['destination']}"
    return f"{flight.get('flight_number')}{route} on {flight.get('date')}"


def options_text(options: object) -> str:
    if not isinstance(options, dict):
        return "unknown options"
    return ", ".join(f"{k}: {v}" for k, v in options.items())


def address_text(address: object) -> str:
    if not isinstance(address, dict):
        return "unknown"
    keys = ("address1", "address2", "city", "state", "province", "zip", "country")
    return ", ".join(str(address[k]) for k in keys if address.get(k))


def passengers_text(passengers: object) -> str:
    if not isinstance(passengers, list):
        return "unknown"
    return "; ".join(
        f"{p.get('first_name')} {p.get('last_name')} (born {p.get('dob')})"
        for p in passengers
        if isinstance(p, dict)
    )


def scalar_texts(data: object, out: set[str]) -> None:
    """Every scalar value inside ``data`` as lower-cased text (numbers in several forms)."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, (int, float)):
            out.add(str(value))
            number = round(float(value), 2)
            out.add(f"{number:.2f}")
            out.add(f"{number:.2f}".rstrip("0").rstrip("."))
        elif isinstance(value, str):
            out.add(value.lower().replace(",", ""))
