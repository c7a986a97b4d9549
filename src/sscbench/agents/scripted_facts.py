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
from typing import Any

from sscbench.reading import loads_json

_UNPARSED = object()


@dataclass
class Obs:
    """One delivered tool observation, parsed as JSON on first use."""

    step: int
    call_id: str
    name: str
    arguments: dict[str, Any]
    text: str
    _data: Any = field(default=_UNPARSED, repr=False)

    @property
    def error(self) -> bool:
        """True when the tool answered with an error (or with no JSON where JSON was due)."""
        return self.text.startswith("Error") or self.text.startswith("Unknown action")

    @property
    def data(self) -> Any:
        """The observation as JSON data (None when it is not JSON)."""
        if self._data is _UNPARSED:
            try:
                self._data = (
                    loads_json(self.text, max_depth=None) if self.text[:1] in "{[" else None
                )
            except ValueError:
                self._data = None
        return self._data

    @property
    def record(self) -> dict[str, Any]:
        """The observation as a JSON object ({} when it is not one)."""
        data = self.data
        return data if isinstance(data, dict) else {}


# ---- fact keys ----------------------------------------------------------------------------


def fact_return_date(rid: str) -> str:
    return f"reservation:{rid}:return_date"


def fact_flights(rid: str) -> str:
    return f"reservation:{rid}:flights"


def fact_cabin(rid: str) -> str:
    return f"reservation:{rid}:cabin"


def fact_payment(pid: str) -> str:
    return f"payment:{pid}:category"


def fact_options(oid: str, iid: str) -> str:
    return f"order:{oid}:item:{iid}:options"


def fact_write(record_id: str, tool: str) -> str:
    return f"write:{record_id}:{tool}"


# ---- extracting values from records ------------------------------------------------------


def segments(record: Any) -> list[dict[str, Any]]:
    """The flight segments of a reservation record (dicts only)."""
    flights = record.get("flights") if isinstance(record, dict) else None
    return [f for f in flights if isinstance(f, dict)] if isinstance(flights, list) else []


def segment_refs(flights: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Number and date of each segment."""
    return [{"flight_number": f.get("flight_number"), "date": f.get("date")} for f in flights]


def directions(record: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Outbound and return segments of a reservation (return empty unless a round trip)."""
    flights = segments(record)
    if not isinstance(record, dict) or record.get("flight_type") != "round_trip":
        return flights, []
    for i, flight in enumerate(flights):
        if flight.get("destination") == record.get("destination"):
            return flights[: i + 1], flights[i + 1 :]
    return flights, []


def return_date(record: Any) -> str | None:
    """Date of the first return segment of a round trip, else None."""
    _, back = directions(record)
    date = back[0].get("date") if back else None
    return date if isinstance(date, str) else None


def date_contradiction(record: Any) -> tuple[str, str] | None:
    """(return date, outbound date) when a round trip returns before its outbound leg."""
    out, back = directions(record)
    if not out or not back:
        return None
    last_out, first_back = out[-1].get("date"), back[0].get("date")
    if isinstance(last_out, str) and isinstance(first_back, str) and first_back < last_out:
        return first_back, last_out
    return None


def payment_category(user: Any, pid: str) -> str | None:
    """The ``source`` of a saved payment method, None when unknown."""
    methods = user.get("payment_methods") if isinstance(user, dict) else None
    method = methods.get(pid) if isinstance(methods, dict) else None
    source = method.get("source") if isinstance(method, dict) else None
    return source if isinstance(source, str) else None


def order_item(order: Any, iid: str) -> dict[str, Any] | None:
    """The first item of an order with that item id."""
    items = order.get("items") if isinstance(order, dict) else None
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and item.get("item_id") == iid:
            return item
    return None


def item_options(order: Any, iid: str) -> dict[str, Any] | None:
    item = order_item(order, iid)
    options = item.get("options") if item else None
    return options if isinstance(options, dict) else None


def variant(product: Any, iid: str) -> dict[str, Any] | None:
    """The variant of a product record bound to an item id."""
    variants = product.get("variants") if isinstance(product, dict) else None
    found = variants.get(iid) if isinstance(variants, dict) else None
    return found if isinstance(found, dict) else None


# ---- text -------------------------------------------------------------------------------


def money(amount: Any) -> str:
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


def cabin_text(cabin: Any) -> str:
    return str(cabin).replace("_", " ")


def segment_text(flight: dict[str, Any]) -> str:
    route = ""
    if flight.get("origin") and flight.get("destination"):
        route = f" {flight['origin']}→{flight['destination']}"
    return f"{flight.get('flight_number')}{route} on {flight.get('date')}"


def options_text(options: Any) -> str:
    if not isinstance(options, dict):
        return "unknown options"
    return ", ".join(f"{k}: {v}" for k, v in options.items())


def address_text(address: Any) -> str:
    if not isinstance(address, dict):
        return "unknown"
    keys = ("address1", "address2", "city", "state", "province", "zip", "country")
    return ", ".join(str(address[k]) for k in keys if address.get(k))


def passengers_text(passengers: Any) -> str:
    if not isinstance(passengers, list):
        return "unknown"
    return "; ".join(
        f"{p.get('first_name')} {p.get('last_name')} (born {p.get('dob')})"
        for p in passengers
        if isinstance(p, dict)
    )


def scalar_texts(data: Any, out: set[str]) -> None:
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
