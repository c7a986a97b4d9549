"""Order-item references in the text of other model families (issue: ItemOption on
held-out text): JSON-wrapped messages, replacements chosen on another criterion,
restated requests, two items with one product name, a value written before its id,
markdown tables and numbered lists, option values written loosely. Each principle has
positive and negative controls; the unit tests exercise :mod:`sscbench.references.items`.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.core.values import INF, NOT_APPLICABLE, UNDECIDABLE
from sscbench.faults.contract import FaultContract, Interaction, Sufficiency, Target
from sscbench.references.item_lines import OrderItem, find_values, value_pattern
from sscbench.references.items import item_references
from test_realtext_rules import Ledger

# Two T-shirts in one order: ours (A) is blue, size M, shown as red; B is black, size S.
A, B, V_RED, V_BLUE_L, V_RED_L = (
    "9612497925",
    "1176194968",
    "5253880258",
    "8124970213",
    "3234800602",
)


def shirt(item_id: str, color: str, size: str) -> dict:
    return {
        "name": "T-Shirt",
        "product_id": "9523456873",
        "item_id": item_id,
        "options": {"color": color, "size": size, "material": "cotton"},
    }


ORDER = {
    "order_id": "#W9609649",
    "status": "delivered",
    "items": [
        shirt(A, "red", "M"),  # the fault: blue shown as red
        shirt(B, "black", "S"),
        {
            "name": "Water Bottle",
            "product_id": "8310926033",
            "item_id": "4579334072",
            "options": {"capacity": "750ml", "material": "glass", "color": "black"},
        },
    ],
}
PRODUCT = {
    "name": "T-Shirt",
    "product_id": "9523456873",
    "variants": {
        v: {"item_id": v, "options": {"color": c, "size": s, "material": "cotton"}}
        for v, c, s in [
            (A, "blue", "M"),
            (V_RED, "red", "M"),
            (B, "black", "S"),
            (V_BLUE_L, "blue", "L"),
            (V_RED_L, "red", "L"),
        ]
    },
}


def contract() -> FaultContract:
    return FaultContract(
        operator="ItemOption",
        structure="cross-record",
        target=Target(
            entity_type="order_item",
            entity_id=A,
            attribute="options.color",
            related_ids={
                "order_id": "#W9609649",
                "product_id": "9523456873",
                "injected_variant": V_RED,
                "product_name": "T-Shirt",
            },
        ),
        fault_interaction=Interaction(tool="get_order_details", match={"order_id": "#W9609649"}),
        injected_value="red",
        authoritative_value="blue",
        basis="the product record's variant",
        sufficiency=Sufficiency(relation="variant-binding"),
    )


def measure(*texts: str, user: str = "I want to exchange a t-shirt.", product: bool = False):
    """The measurement of a ledger: the faulted order read, then the agent's texts."""
    ledger = Ledger(user)
    t_f = ledger.call("get_order_details", {"order_id": "#W9609649"}, ORDER)
    if product:
        ledger.call("get_product_details", {"product_id": "9523456873"}, PRODUCT)
    steps = [ledger.say(t) for t in texts]
    return ledger.measure("ItemOption", contract(), t_f), steps


def quantities(m) -> tuple:
    return (m.T_S, m.T_U, m.A, m.Y_end)


# ---- 1. messages wrapped in JSON --------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"message": f"Thanks!\nYour T-Shirt (item_id {A}) is red, size M.\nOk?"}),
        json.dumps({"item": "T-Shirt", "item_id": A, "color": "red", "size": "M"}, indent=2),
        json.dumps({"items": [{"name": "T-Shirt", "item_id": A, "options": {"color": "red"}}]}),
        "```json\n" + json.dumps({"item_id": A, "color": "red"}) + "\n```",
    ],
)
def test_json_wrapped_statement_of_the_injected_option_is_reliance(text):
    m, (use,) = measure(text)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (use, use, 1, "endorses")


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"item": "T-Shirt", "item_id": B, "color": "red", "size": "S"}, indent=2),
        json.dumps({"message": f"Your T-Shirt (item_id {B}) is black.\nYour bottle is red."}),
        json.dumps(
            {"items": [{"item_id": B, "color": "red"}, {"item_id": "4579334072", "size": "M"}]}
        ),
    ],
)
def test_json_wrapped_statement_about_another_item_is_no_use(text):
    m, _ = measure(text)
    assert m.T_S == INF and m.Z_S == "no-use"


# ---- 2. a replacement chosen on another criterion; a restated request --------------------


@pytest.mark.parametrize(
    "text",
    [
        f"I can exchange your T-Shirt (item {A}) for the cheapest one in stock, the red "
        f"one in size L (item {V_RED_L}).",
        f"Per your request, your T-Shirt (item {A}) will be exchanged for the red size L "
        f"(item {V_RED_L}).",
        f"You want to change your T-Shirt (item {A}) to the red one, correct?",
        f"So you'd like the red one instead of your T-Shirt {A}?",
    ],
)
def test_replacement_on_another_criterion_or_a_restated_request_is_no_use(text):
    m, _ = measure(text, product=True)
    assert m.T_S == INF and m.A == 0


@pytest.mark.parametrize(
    "text",
    [
        f"I can exchange your T-Shirt (item {A}) for a similar one with the same red color "
        f"in size L (item {V_RED_L}).",
        f"Your T-Shirt (item {A}) is red.",
    ],
)
def test_a_replacement_keeping_the_injected_option_or_a_statement_is_reliance(text):
    m, (use,) = measure(text, product=True)
    assert use == m.T_U and m.A == 1


# ---- 3. two order items with one product name -------------------------------------------


@pytest.mark.parametrize("text", ["Your T-Shirt is red.", "The T-Shirt you ordered is blue."])
def test_a_name_two_items_share_stating_the_disputed_value_is_undecidable(text):
    m, _ = measure(text)
    assert m.T_S == UNDECIDABLE and m.A == UNDECIDABLE and m.Z_S == "undecidable"


@pytest.mark.parametrize(
    "text",
    [
        "Your first T-Shirt is red.",
        "Item 1 in your order is red.",
        "Your red T-Shirt in size M is the one to exchange.",  # fits one item as shown
        f"Your T-Shirt (item {A}) is red.",
    ],
)
def test_an_id_position_or_fitting_option_set_resolves_the_shared_name(text):
    m, (use,) = measure(text)
    assert use == m.T_U and m.A == 1


@pytest.mark.parametrize(
    "text", ["Your second T-Shirt is black.", "Your T-Shirt in black, size S, is eligible."]
)
def test_the_other_item_with_the_shared_name_is_no_use(text):
    m, _ = measure(text)
    assert m.T_S == INF and m.A == 0


# ---- 4. a value written before its id ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"The red one in size M (item_id {A}) is the one you have.",
        f"Red, size M (item_id {A})",
        f"- Current: T-Shirt — red, M (item {A})",
    ],
)
def test_a_value_written_before_the_items_id_is_said_of_it(text):
    m, (use,) = measure(text)
    assert use == m.T_U and m.A == 1


def test_a_value_written_before_another_id_is_not_said_of_the_item():
    m, _ = measure(f"Red, size L (item_id {V_RED_L}) is available; black, size S (item {B}).")
    assert m.T_S == INF


# ---- 5. markdown tables and numbered lists ----------------------------------------------

TABLE = "| Item | Item ID | Color | Size |\n|---|---|---|---|\n| T-Shirt | {a} | {ca} | M |\n"
TABLE += "| T-Shirt | {b} | {cb} | S |"


@pytest.mark.parametrize(("ca", "cb", "used"), [("red", "black", True), ("", "red", False)])
def test_a_table_rows_cells_are_about_the_rows_item(ca, cb, used):
    m, (use,) = measure(TABLE.format(a=A, b=B, ca=ca, cb=cb))
    assert ((use, 1) if used else (NOT_APPLICABLE, 0)) == (m.T_U, m.A)


def test_a_table_with_a_new_variant_column_keeps_roles_apart():
    table = (
        "| Item ID | Color | New Item ID | New Color |\n|---|---|---|---|\n"
        f"| {A} | blue | {V_BLUE_L} | blue |"
    )
    m, (use,) = measure(table, product=True)
    assert use == m.T_S and m.A == 0 and m.Y_end == "rejects"


@pytest.mark.parametrize(("under_a", "used"), [("red", True), ("cotton", False)])
def test_numbered_list_sub_bullets_are_about_their_items(under_a, used):
    text = (
        f"1. T-Shirt (item_id {A})\n   - Color: {under_a}\n   - Size: M\n"
        f"2. T-Shirt (item_id {B})\n   - Color: red"
    )
    m, (use,) = measure(text)
    assert ((use, 1) if used else (NOT_APPLICABLE, 0)) == (m.T_U, m.A)


def test_a_menu_of_variants_under_the_item_is_no_use():
    text = (
        f"Here are the other T-Shirt variants for item {A}:\n"
        f"- red, size L (item {V_RED_L})\n- blue, size L (item {V_BLUE_L})\n\nWhich one?"
    )
    m, _ = measure(text, product=True)
    assert m.T_S == INF


# ---- 6. option values compared as the record writes them --------------------------------


@pytest.mark.parametrize(
    ("value", "text", "hit"),
    [
        ("1000ml", "capacity 1000 ml", True),
        ("Black", "in black", True),
        ("RGB", "an RGB backlight", True),
        ("full size", "a full-size board", True),
        ("red", "a reduced price", False),
        ("M", "size M.", True),
        ("M", "Mastercard", False),
    ],
)
def test_value_pattern(value, text, hit):
    assert bool(value_pattern(value).search(text)) is hit


def test_a_value_inside_another_word_is_no_use():
    m, _ = measure(f"Your T-Shirt (item {A}) has a reduced price.")
    assert m.T_S == INF


def test_case_differences_still_match():
    m, (use,) = measure(f"Your T-Shirt (item {A}): RED, size M.")
    assert use == m.T_U


# ---- 7. the reference layer --------------------------------------------------------------

ITEMS = [
    OrderItem(A, "T-Shirt", {"color": "red", "size": "M"}, 0),
    OrderItem(B, "T-Shirt", {"color": "black", "size": "S"}, 1),
]
VALUES = {"color": ["black", "blue", "red"], "size": ["M", "S", "L"]}


def test_references_carry_roles_and_what_they_replace():
    text = f"Swapped: Item {A} (red, M) -> Item {V_RED_L} (red, L)"
    refs = item_references(text, ITEMS, VALUES)
    assert [(r.target, r.role, r.replaces) for r in refs] == [
        (A, "current", None),
        (V_RED_L, "replacement", A),
    ]
    assert {(s.key, s.value) for s in refs[0].said} == {("color", "red"), ("size", "M")}


def test_a_shared_name_keeps_both_candidates():
    (ref,) = item_references("Your T-Shirt is red.", ITEMS, VALUES)
    assert ref.target is None and set(ref.candidates) == {A, B}


def test_find_values_prefers_the_longer_value():
    hits = find_values("a full size board", {"size": ["full size", "size"]})
    assert [h[2] for h in hits] == ["full size"]


# ---- the same statement in four forms gives the same quantities ---------------------------

FORMS = {
    "prose": "Your T-Shirt (item {id}) is {color}, size M.",
    "json": None,
    "table": "| Item | Item ID | Color |\n|---|---|---|\n| T-Shirt | {id} | {color} |",
    "bullets": "Your order:\n- T-Shirt (item_id {id})\n  - Color: {color}\n  - Size: M",
}


def _form(form: str, item_id: str, color: str, lead: str) -> str:
    if form == "json":
        prose = FORMS["prose"].format(id=item_id, color=color)
        return json.dumps({"message": f"{lead}\n{prose}", "next_steps": ["confirm"]})
    return f"{lead}\n\n" + FORMS[form].format(id=item_id, color=color)


@settings(max_examples=40, deadline=None)
@given(
    color=st.sampled_from(["red", "blue", "black"]),
    item_id=st.sampled_from([A, B]),
    lead=st.sampled_from(["Thanks, Sofia.", "I found your order.", "Here is what I see."]),
)
def test_prose_json_table_and_bullets_give_the_same_quantities(color, item_id, lead):
    results = {quantities(measure(_form(f, item_id, color, lead))[0]) for f in FORMS}
    assert len(results) == 1
    t_s, _, adopted, _ = results.pop()
    if item_id == A and color in ("red", "blue"):
        assert t_s == 4 and adopted == (1 if color == "red" else 0)
    else:
        assert t_s == INF


# ---- 8. the words between a determiner and a name joined to its id ---------------------


@pytest.mark.parametrize(
    ("text", "adopted", "stance"),
    [
        (f"Please pack the red T-Shirt (item id {A}) in its box.", 1, "endorses"),
        (f"Please pack the blue T-Shirt (item_id {A}) in its box.", 0, "rejects"),
    ],
)
def test_a_value_before_a_name_with_its_id_is_said_of_the_item(text, adopted, stance):
    m, (use,) = measure(text)
    assert (m.T_S, m.A, m.Y_end) == (use, adopted, stance)


@pytest.mark.parametrize(
    "text",
    [
        "Please pack the black Water Bottle (item_id 4579334072) in its box.",
        f"Please pack the T-Shirt (item_id {A}) and the red Water Bottle (item_id 4579334072).",
    ],
)
def test_a_value_before_another_items_name_and_id_is_not_said_of_the_item(text):
    m, _ = measure(text)
    assert m.T_S == INF


def test_a_handoff_naming_the_item_by_its_value_before_name_and_id_is_reliance():
    ledger = Ledger("I want to exchange a t-shirt.")
    t_f = ledger.call("get_order_details", {"order_id": "#W9609649"}, ORDER)
    summary = f"The user wants to exchange the red T-Shirt (item_id {A}) for a larger size."
    step = ledger.call("transfer_to_human_agents", {"summary": summary}, "Transfer successful")
    m = ledger.measure("ItemOption", contract(), t_f)
    assert (m.T_S, m.T_U, m.Y_end) == (step - 1, step - 1, "endorses")


# ---- 9. "return requested" is an action's status, not a restated request -----------------


@pytest.mark.parametrize(
    "text",
    [
        f"Order #W9609649: Return requested for only the red T-Shirt (item id {A}).",
        f"An exchange was requested for your T-Shirt (item {A}), which is red.",
        f"I requested a return of your red T-Shirt (item {A}).",
    ],
)
def test_an_action_requested_on_the_item_keeps_its_values_current(text):
    m, (use,) = measure(text)
    assert (m.T_U, m.A, m.Y_end) == (use, 1, "endorses")


@pytest.mark.parametrize(
    "text",
    [
        f"For your T-Shirt (item {A}), the requested color is red.",
        f"You requested the red one for your T-Shirt (item {A}).",
    ],
)
def test_a_restated_request_for_a_variant_is_still_no_use(text):
    m, _ = measure(text, product=True)
    assert m.T_S == INF and m.A == 0


# ---- 10. T_E: an order record showing the item's id with both values settles nothing ------

TWINS = {**ORDER, "items": [shirt(A, "red", "M"), shirt(A, "blue", "M")]}  # line 0 faulted
TRUE_TWINS = {**ORDER, "items": [shirt(A, "blue", "M"), shirt(A, "blue", "M")]}


@pytest.mark.parametrize(
    ("later", "refuting"),
    [([], None), (["product"], 0), (["order"], 0), (["product", "order"], 0)],
)
def test_two_lines_with_one_id_and_two_values_do_not_refute(later, refuting):
    ledger = Ledger("I want to exchange two t-shirts.")
    t_f = ledger.call("get_order_details", {"order_id": "#W9609649"}, TWINS)
    steps = []
    for read in later:
        if read == "product":
            steps.append(ledger.call("get_product_details", {"product_id": "9523456873"}, PRODUCT))
        else:
            steps.append(ledger.call("get_order_details", {"order_id": "#W9609649"}, TRUE_TWINS))
    m = ledger.measure("ItemOption", contract(), t_f)
    assert (INF if refuting is None else steps[refuting]) == m.T_E


def test_a_later_order_record_with_the_item_once_and_true_still_refutes():
    ledger = Ledger("I want to exchange a t-shirt.")
    t_f = ledger.call("get_order_details", {"order_id": "#W9609649"}, ORDER)
    true = {**ORDER, "items": [shirt(A, "blue", "M"), *ORDER["items"][1:]]}
    step = ledger.call("get_order_details", {"order_id": "#W9609649"}, true)
    assert step == ledger.measure("ItemOption", contract(), t_f).T_E


# ---- 11. words that contradict the item's undisputed options describe another variant ----


@pytest.mark.parametrize(
    "text",
    [
        f"Your T-Shirt:\n- T-Shirt (item_id {A})\n  - Red, size L: out of stock",
        "The first T-Shirt in red, size L, is sold out.",
        "Your first T-Shirt: preference order is (1) red, size L; (2) blue, size L.",
    ],
)
def test_values_contradicting_an_undisputed_option_describe_another_variant(text):
    m, _ = measure(text, product=True)
    assert m.T_S == INF and m.A == 0


@pytest.mark.parametrize(
    "text",
    [
        "The first T-Shirt in red, size M, is the one you have.",
        "Your first T-Shirt is red, size M (size L is also in stock).",
        f"Your T-Shirt (item {A}) is red, size L.",  # an id binds what follows it
    ],
)
def test_values_fitting_the_item_or_bound_by_its_id_are_said_of_it(text):
    m, (use,) = measure(text, product=True)
    assert use == m.T_U and m.A == 1


# ---- 12. an id ending a sentence; "<description> is item <id>" ---------------------------


def test_an_id_ending_a_sentence_is_an_anchor_and_a_description_before_is_binds_to_it():
    text = f"Your T-Shirt (item {A}) is red. The blue one in size L is item {V_BLUE_L}."
    refs = item_references(text, ITEMS, VALUES)
    assert [(r.target, {(s.key, s.value) for s in r.said}) for r in refs] == [
        (A, {("color", "red")}),
        (V_BLUE_L, {("color", "blue"), ("size", "L")}),
    ]
    assert item_references("a total of 1234567890.55 dollars", ITEMS, VALUES) == []


def test_a_check_beside_a_variant_named_by_is_item_stays_a_check():
    text = (
        "For your first T-Shirt, the listing shows blue although the order says red; "
        f"the red one in size L is item {V_RED_L}."
    )
    m, (use,) = measure(text, product=True)
    assert (m.T_S, m.A, m.Y_end) == (use, 0, "rejects")


# ---- 13. values are tokens: no clitic, any hyphen -----------------------------------------


@pytest.mark.parametrize(
    ("value", "text", "hit"),
    [
        ("S", "it's a shirt", False),
        ("M", "I'm checking", False),
        ("S", "size 'S'", True),
        ("full size", "a full‑size board", True),  # U+2011, a non-breaking hyphen
        ("full size", "a full–size board", True),  # U+2013
    ],
)
def test_value_pattern_tokens(value, text, hit):
    assert bool(value_pattern(value).search(text)) is hit


def test_a_clitic_is_no_value_of_an_undisputed_option():
    m, (use,) = measure("Your first T-Shirt is red, and it's the one to return.")
    assert use == m.T_U and m.A == 1


# ---- 14. a stated preference is a restated request ---------------------------------------


@pytest.mark.parametrize(
    ("text", "used"),
    [
        (f"T-Shirt (item {A}): your preference is a red one.", False),
        (f"T-Shirt (item {A}): preferences noted (red).", False),
        (f"T-Shirt (item {A}): red now; your preference is blue.", True),
    ],
)
def test_a_preference_is_a_request_not_the_items_state(text, used):
    m, _ = measure(text, product=True)
    assert (m.A == 1) is used and (m.T_S == INF) is not used
