"""Shared pieces of the generators: fictional people and places, ids, money text.

Everything here draws from a ``random.Random`` passed in; nothing reads global
random state, the clock, or ``hash()`` of a string, and no set is ever iterated,
so the output depends only on the seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from sscbench.world.retail.tables import Address
from sscbench.world.task import Action, Task

FIRST_NAMES = (
    "Ada",
    "Anouk",
    "Basil",
    "Bram",
    "Calla",
    "Cosima",
    "Desmond",
    "Dorian",
    "Elowen",
    "Esme",
    "Fenna",
    "Florian",
    "Gideon",
    "Greta",
    "Henrik",
    "Hollis",
    "Ines",
    "Isolde",
    "Jasper",
    "Jory",
    "Kaia",
    "Kestrel",
    "Leopold",
    "Linnea",
    "Marek",
    "Mirela",
    "Nadia",
    "Niko",
    "Odile",
    "Oren",
    "Pascal",
    "Priya",
    "Quinn",
    "Rhea",
    "Rosalind",
    "Silas",
    "Soren",
    "Talia",
    "Thea",
    "Ulric",
    "Ursula",
    "Vesna",
    "Viggo",
    "Wren",
    "Xavi",
    "Yara",
    "Yusra",
    "Zeno",
    "Zora",
    "Amara",
    "Bastian",
    "Corin",
    "Delphine",
    "Emrys",
)

LAST_NAMES = (
    "Ashdown",
    "Brightwater",
    "Calloway",
    "Drummond",
    "Eskildsen",
    "Fairweather",
    "Gallow",
    "Hartsell",
    "Ingleby",
    "Juniper",
    "Kettering",
    "Larkspur",
    "Merriweather",
    "Northcott",
    "Oakhurst",
    "Pennington",
    "Quarrie",
    "Ravenscroft",
    "Stonebridge",
    "Thistlewood",
    "Underhill",
    "Vantreight",
    "Whitlock",
    "Yarborough",
    "Zellner",
    "Ambrose",
    "Blackwood",
    "Corvell",
    "Dunmore",
    "Everly",
    "Foxley",
    "Greywell",
    "Holloway",
    "Ivesdale",
    "Kirkland",
    "Lowther",
    "Marchbank",
    "Nettleford",
)

# Fictional towns, each with a state code and a three-digit zip prefix.
CITIES = (
    ("Alder Falls", "OR", "974"),
    ("Bramblewood", "VT", "056"),
    ("Cedar Hollow", "TN", "373"),
    ("Driftmoor", "ME", "046"),
    ("Elm Crossing", "OH", "436"),
    ("Fernhaven", "WA", "983"),
    ("Glenmarrow", "CO", "805"),
    ("Harrow Bay", "MI", "497"),
    ("Ironbridge", "PA", "165"),
    ("Juniper Flats", "AZ", "863"),
    ("Kingsmere", "NC", "286"),
    ("Lark Valley", "CA", "959"),
    ("Millbrook Rise", "NY", "127"),
    ("Northwick", "MN", "566"),
    ("Oakmont Springs", "TX", "769"),
    ("Pinecrest Landing", "GA", "305"),
    ("Quillon", "NM", "880"),
    ("Ravensford", "WI", "549"),
    ("Silverlake Point", "UT", "847"),
    ("Thornbury", "VA", "243"),
)

STREETS = (
    "Juniper Lane",
    "Quarry Road",
    "Lantern Way",
    "Heron Court",
    "Foxglove Avenue",
    "Millrace Street",
    "Orchard Row",
    "Saltmarsh Drive",
    "Copperleaf Boulevard",
    "Bellwether Place",
    "Kestrel Street",
    "Windmill Terrace",
    "Starling Road",
    "Tamarack Drive",
    "Ember Lane",
    "Gristmill Road",
    "Lamplighter Avenue",
)


def unique_digits(rng: random.Random, digits: int, used: set[str]) -> str:
    """A fresh string of ``digits`` digits (no leading zero) not yet in ``used``."""
    low, high = 10 ** (digits - 1), 10**digits - 1
    while True:
        text = str(rng.randint(low, high))
        if text not in used:
            used.add(text)
            return text


def person(rng: random.Random) -> tuple[str, str]:
    """A fictional first and last name."""
    return rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)


def user_id(rng: random.Random, first: str, last: str, used: set[str]) -> str:
    """A τ-bench-style user id ``first_last_1234``, unique within ``used``."""
    while True:
        uid = f"{first.lower()}_{last.lower()}_{rng.randint(1000, 9999)}"
        if uid not in used:
            used.add(uid)
            return uid


def email(rng: random.Random, first: str, last: str) -> str:
    """An address at example.com."""
    return f"{first.lower()}.{last.lower()}{rng.randint(1000, 9999)}@example.com"


def address(rng: random.Random) -> Address:
    """A fictional street address with τ-bench's keys in τ-bench's order."""
    city, state, prefix = rng.choice(CITIES)
    return {
        "address1": f"{rng.randint(10, 999)} {rng.choice(STREETS)}",
        "address2": f"Suite {rng.randint(100, 999)}",
        "city": city,
        "country": "USA",
        "state": state,
        "zip": f"{prefix}{rng.randint(0, 99):02d}",
    }


def dob(rng: random.Random, first_year: int = 1950, last_year: int = 2004) -> str:
    """A date of birth ``YYYY-MM-DD``."""
    return f"{rng.randint(first_year, last_year)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def money_text(amount: float) -> str:
    """The shortest decimal text of an amount: ``1234.5`` for 1234.50, ``80`` for 80.00.

    τ-bench checks a required output by substring after removing commas, so the
    shortest form is found in "$1,234.50" as well as in "1234.5".
    """
    text = f"{amount:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def card_text(method: Mapping[str, object]) -> str:
    """How a user names one of their payment methods."""
    source = method["source"]
    if source == "credit_card":
        return f"{method['brand']} credit card ending in {method['last_four']} ({method['id']})"
    if source == "gift_card":
        return f"gift card {method['id']}"
    if source == "certificate":
        return f"travel certificate {method['id']} worth ${method['amount']}"
    if source == "paypal":
        return f"PayPal account {method['id']}"
    return str(method["id"])


def make_task(
    domain: str,
    index: int,
    user_id_: str,
    instruction: str,
    intent: dict[str, Any],
    actions: list[tuple[str, dict[str, Any]]],
    outputs: list[str] | None = None,
) -> Task:
    """A :class:`Task` with id ``gen/<index>``."""
    return Task(
        task_id=f"gen/{index}",
        domain=domain,
        user_id=user_id_,
        instruction=instruction,
        actions=tuple(Action(name=name, kwargs=kwargs) for name, kwargs in actions),
        outputs=tuple(outputs or ()),
        intent=intent,
    )
