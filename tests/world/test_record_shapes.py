"""Every record of the shipped τ-bench data and of generated worlds has the shape its
table's TypedDict declares (``world/retail/tables.py``, ``world/airline/tables.py``):
the typed table handles hand records out under those shapes without checking them on
the hot path, so this test is what backs them."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from sscbench.world.airline import tables as airline
from sscbench.world.generated import generate_world
from sscbench.world.retail import tables as retail
from sscbench.world.taubench import load_taubench_world

SHAPES = {"retail": retail.RECORD_SHAPES, "airline": airline.RECORD_SHAPES}


def _check(domain: str, tables: dict) -> None:
    shapes = SHAPES[domain]
    assert set(tables) == set(shapes)
    for name, table in tables.items():
        # strict: no coercion (a "3" is not an int); the shapes refuse extra keys
        TypeAdapter(dict[str, shapes[name]]).validate_python(table, strict=True)


@pytest.mark.parametrize("domain", ["retail", "airline"])
def test_taubench_records_have_their_table_shape(taubench, domain):
    _check(domain, load_taubench_world(taubench, domain).base.tables)


@pytest.mark.parametrize("domain", ["retail", "airline"])
def test_generated_records_have_their_table_shape(domain):
    _check(domain, generate_world(domain, seed=3).base.tables)


def test_a_record_of_the_wrong_shape_is_refused():
    with pytest.raises(ValidationError):
        _check("retail", {"users": {}, "orders": {"#W1": {"order_id": "#W1"}}, "products": {}})
    with pytest.raises(ValidationError):
        _check("airline", {"users": {}, "flights": {}, "reservations": {"X": {"cabin": 3}}})
