"""Text forms of one statement about an order item (the metamorphic rewrites' forms):
a JSON value with line breaks, identifiers in code spans or bold, a field/value table
under the item's line, a line ending in a colon over the lines it introduces. Each form
reads like its plain form (positive controls) and still binds to the item it is under
only (negative controls). Fixtures: :mod:`test_item_references` (two T-Shirts, A shown
red instead of blue, B black)."""

from __future__ import annotations

import json

import pytest

from sscbench.core.values import INF
from sscbench.references.item_lines import OrderItem
from sscbench.references.items import item_references, unmarked
from test_item_references import A, B, measure

BOTTLE = "4579334072"
TABLE = "| Field | Value |\n| --- | --- |\n| Color | red |\n| Size | M |"


def _relies(text: str) -> bool:
    m, (step,) = measure(text)
    return (step, step, 1) == (m.T_S, m.T_U, m.A)


def _no_use(text: str) -> bool:
    m, _ = measure(text)
    return m.T_S == INF and m.Z_S == "no-use"


# ---- a JSON value with line breaks ------------------------------------------------------


def _courtesy(value: str) -> str:
    return f"Thank you.\n\n{value}\n\nAnything else?"


def _statement(item_id: str, size: str, wrap) -> str:
    fields = {"name": "T-Shirt", "item_id": item_id, "color": "red", "size": size}
    return json.dumps(
        {"message": wrap("Here it is:"), "item": {k: wrap(v) for k, v in fields.items()}}
    )


@pytest.mark.parametrize("wrap", [str, _courtesy], ids=["one-line", "line-breaks"])
def test_a_line_break_in_a_json_value_keeps_the_objects_block(wrap):
    """Every value written with line breaks around it (a courtesy line before and after)
    reads like the one-line values: the object is still the item's block."""
    assert _relies(_statement(A, "M", wrap))


@pytest.mark.parametrize("wrap", [str, _courtesy], ids=["one-line", "line-breaks"])
def test_a_json_block_about_another_item_stays_no_use(wrap):
    assert _no_use(_statement(B, "S", wrap))


# ---- identifiers in code spans or bold -----------------------------------------------


@pytest.mark.parametrize("mark", ["", "`", "**"])
def test_a_marked_id_joins_the_name_after_it(mark):
    """ "item `B` (T-Shirt, red)" names B, as "item B (T-Shirt, red)" does: the name
    alone, shared by A and B, would leave the statement undecidable."""
    line = "Your order has item {m}{i}{m} (T-Shirt, color red, size {s}) and item {m}{w}{m}."
    assert _relies(line.format(m=mark, i=A, s="M", w=BOTTLE))
    assert _no_use(line.format(m=mark, i=B, s="S", w=BOTTLE))


def test_only_single_marked_tokens_are_unmarked():
    assert unmarked(f"Item `{A}` and **gift_card_1**") == f"Item {A} and gift_card_1"
    for text in ["**two words**", "`a b`", "a * b * c", "``"]:
        assert unmarked(text) == text


# ---- a field/value table ---------------------------------------------------------------


def test_a_field_table_right_under_the_items_line_is_about_the_item():
    assert _relies(f"1. **T-Shirt** (Item ID: {A})\n{TABLE}")
    assert _no_use(f"1. **T-Shirt** (Item ID: {B})\n{TABLE}")


def test_a_field_table_after_a_blank_line_is_under_no_item():
    assert _no_use(f"1. **T-Shirt** (Item ID: {A})\n\n{TABLE}")


def test_a_field_table_naming_one_item_is_that_items():
    rows = "| Field | Value |\n| --- | --- |\n| Order ID | #W9609649 |\n"
    assert _relies(rows + f"| Item | T-Shirt (item_id {A}) |\n| Current options | red, size M |")
    assert _no_use(rows + f"| Item | T-Shirt (item_id {B}) |\n| Current options | red, size M |")
    two = f"| Item | T-Shirt (item_id {A}) |\n| Other | T-Shirt (item_id {B}) |\n"
    assert _no_use(rows + two + "| Current options | red, size M |")


def test_a_table_of_items_is_read_by_rows_not_as_fields():
    """A data table (its header names options, not "Field | Value") keeps its rows."""
    items = [OrderItem(A, "T-Shirt", {"color": "red"}), OrderItem(B, "T-Shirt", {"color": "black"})]
    text = f"| Item | Color |\n| --- | --- |\n| {A} | red |\n| {B} | black |"
    refs = item_references(text, items, {"color": ["red", "black"]})
    assert [(r.target, [s.value for s in r.said], r.how) for r in refs] == [
        (A, ["red"], "row"),
        (B, ["black"], "row"),
    ]


# ---- a line ending in a colon -------------------------------------------------------------


def test_the_lines_right_after_a_colon_are_under_its_line():
    assert _relies(f"The T-Shirt (item_id {A}) you ordered:\nColor: red\nSize: M")
    assert _no_use(f"The T-Shirt (item_id {B}) you ordered:\nColor: red\nSize: S")


@pytest.mark.parametrize("gap", [".\n", ":\n\n"])
def test_a_line_not_ending_in_a_colon_or_a_blank_line_ends_the_block(gap):
    assert _no_use(f"The T-Shirt (item_id {A}) you ordered{gap}Color: red\nSize: M")
