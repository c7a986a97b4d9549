"""The ItemOption error classes found on held-out text, each a principle with its own
hand-built ledgers on τ-bench's real catalogue (positive and negative controls):

1. an item named by a short product word with its options in display form after it;
2. option values written in other forms (units, symbols, conversions);
3. an option stated as the criterion of a replacement ("the same scent family as
   yours") is a use of it (no stance); a restated request for it is not;
4. a one-line menu of available variants states none of the item's options;
5. two items of one product told apart by an option bind by that option;
6. an item line with the options before the id states the item's options;
7. a replacement chosen on another criterion (the cheapest) is not derived from the
   faulted option, even when the exchange call follows.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from sscbench.faults.contract import FaultContract, Interaction, Sufficiency, Target
from sscbench.faults.operators.item_variants import one_option_neighbours
from sscbench.world.load import load_world
from test_realtext_rules import Ledger

CATALOGUE = {
    p["name"]: p for p in load_world("tau-bench", "retail").base.tables["products"].values()
}
ORDER_ID = "#W1000001"


@dataclass
class Scenario:
    """An order whose first item's ``key`` is shown as its one-option neighbour's value."""

    item: str
    variant: str
    key: str
    true: str
    injected: str
    order: dict
    product: dict

    def contract(self) -> FaultContract:
        return FaultContract(
            operator="ItemOption",
            structure="cross-record",
            target=Target(
                entity_type="order_item",
                entity_id=self.item,
                attribute=f"options.{self.key}",
                related_ids={
                    "order_id": ORDER_ID,
                    "product_id": self.product["product_id"],
                    "injected_variant": self.variant,
                    "product_name": self.product["name"],
                },
            ),
            fault_interaction=Interaction(tool="get_order_details", match={"order_id": ORDER_ID}),
            injected_value=self.injected,
            authoritative_value=self.true,
            basis="the product record's variant",
            sufficiency=Sufficiency(relation="variant-binding"),
        )


def _line(product: dict, item_id: str, options: dict | None = None) -> dict:
    return {
        "name": product["name"],
        "product_id": product["product_id"],
        "item_id": item_id,
        "options": dict(options or product["variants"][item_id]["options"]),
    }


def scenario(name: str, key: str, item: str, others: tuple[tuple[str, str], ...] = ()) -> Scenario:
    product = CATALOGUE[name]
    variant, _, injected = next(n for n in one_option_neighbours(product, item) if n[1] == key)
    true = product["variants"][item]["options"][key]
    shown = {**product["variants"][item]["options"], key: injected}
    lines = [_line(product, item, shown)]
    lines += [_line(CATALOGUE[n], i) for n, i in others]
    order = {"order_id": ORDER_ID, "status": "delivered", "items": lines}
    return Scenario(item, variant, key, true, injected, order, product)


def measure(sc: Scenario, *texts: str, product: bool = True, exchange: str | None = None):
    """The faulted order read (the product record too), the agent's texts, and an
    exchange of the item for ``exchange`` after the user's yes."""
    ledger = Ledger("I want to exchange an item of my order.")
    t_f = ledger.call("get_order_details", {"order_id": ORDER_ID}, sc.order)
    if product:
        ledger.call("get_product_details", {"product_id": sc.product["product_id"]}, sc.product)
    steps = [ledger.say(t) for t in texts]
    if exchange is not None:
        ledger.user("Yes, go ahead.")
        args = {"order_id": ORDER_ID, "item_ids": [sc.item], "new_item_ids": [exchange]}
        steps.append(ledger.call("exchange_delivered_order_items", args, sc.order) - 1)
    return ledger.measure("ItemOption", sc.contract(), t_f), steps


def relies(sc: Scenario, text: str) -> bool:
    m, (step,) = measure(sc, text)
    return (m.T_S, m.T_U, m.A, m.Y_end) == (step, step, 1, "endorses")


def states_true(sc: Scenario, text: str) -> bool:
    m, (step,) = measure(sc, text)
    return step == m.T_S and m.A == 0 and m.Y_end == "rejects"


def no_use(sc: Scenario, text: str) -> bool:
    m, _ = measure(sc, text)
    return m.T_S == "inf" and m.A == 0


# helmet 1596993217 (S, white, low) shown as size M; a water bottle beside it
HELMET = scenario("Cycling Helmet", "size", "1596993217", (("Water Bottle", "2366567022"),))


# ---- 1. a short product word with its options in display form after it -------------------


def test_a_short_product_word_with_display_options_states_them():
    assert relies(HELMET, "Your current helmet (M, white, low ventilation) can be exchanged.")
    assert states_true(HELMET, "Your current helmet (S, white, low ventilation) can be exchanged.")


def test_a_short_product_word_of_another_item_is_no_use():
    assert no_use(HELMET, "Your current bottle (M, white) is not eligible.")
    assert no_use(HELMET, "A helmet is a good idea for cycling.")  # no determiner: no item


# ---- 2. option values in other forms ------------------------------------------------------

# tablet 2106335193 (10-inch, 64GB, silver) shown as 7-inch
TABLET_SIZE = scenario("Tablet", "screen size", "2106335193")
# bottle 2366567022 (1000ml, stainless steel, blue) shown as 750ml
BOTTLE = scenario("Water Bottle", "capacity", "2366567022")


@pytest.mark.parametrize("form", ['7"', "7″", "7 in", "7 inches", "7-in"])
def test_an_inch_value_in_any_form_is_read(form):
    assert relies(TABLET_SIZE, f"Your Tablet (item 2106335193) has a {form} screen.")


@pytest.mark.parametrize("form", ['10"', "10 inches"])
def test_the_true_inch_value_in_another_form_states_the_true_value(form):
    assert states_true(TABLET_SIZE, f"Your Tablet (item 2106335193) has a {form} screen.")


@pytest.mark.parametrize(
    ("form", "injected"), [("0.75 L", True), ("750 mL", True), ("1 liter", False), ("1 L", False)]
)
def test_a_capacity_in_litres_or_millilitres_is_read(form, injected):
    text = f"Your Water Bottle (item 2366567022) holds {form}."
    assert (relies if injected else states_true)(BOTTLE, text)


def test_a_number_in_another_unit_that_is_no_value_is_no_use():
    assert no_use(BOTTLE, "Your Water Bottle (item 2366567022) ships in 7 days.")


# ---- 3. an option stated as the criterion of a replacement --------------------------------

# perfume 1325156478 (oriental, 30ml, men) shown as woody; woody variant 5081446110
PERFUME = scenario("Perfume", "scent family", "1325156478")
CRITERIA = [
    "I'll look for a larger bottle of your Perfume in the same scent family as yours.",
    "Let me find one with the same scent family as your current Perfume.",
]


@pytest.mark.parametrize("text", CRITERIA)
def test_the_option_as_a_replacements_criterion_is_a_use_without_stance(text):
    m, (step,) = measure(PERFUME, text)
    assert (m.T_S, m.A, m.Y_end) == (step, 0, "undecidable")


def test_the_criterion_then_an_exchange_keeping_the_injected_option_relies_at_the_call():
    m, (criterion, call) = measure(PERFUME, CRITERIA[0], exchange="5081446110")
    assert (criterion, call, 1) == (m.T_S, m.T_U, m.A)


@pytest.mark.parametrize(
    "text",
    [
        "You'd like the same scent family as your Perfume, correct?",  # a restated request
        "I'll look for a Perfume in the same size as yours.",  # another option
    ],
)
def test_a_restated_request_or_another_options_criterion_is_no_use(text):
    assert no_use(PERFUME, text)


# ---- 4. a one-line menu of available variants --------------------------------------------

# tablet 3788616824 (10-inch, 128GB, black) shown as silver; its silver variant 4131464125
TABLET = scenario("Tablet", "color", "3788616824", (("Tablet", "2106335193"),))


@pytest.mark.parametrize(
    "text",
    [
        "The Tablet (item 3788616824) is also available in black, silver and gold.",
        "Your Tablet (item 3788616824) comes in black or silver.",
        "Tablet (item 3788616824) — available colors: black / silver / gold",
    ],
)
def test_a_one_line_menu_of_variants_is_no_statement_of_the_items_option(text):
    assert no_use(TABLET, text)


def test_two_values_without_a_menu_cue_are_a_check_not_a_menu():
    m, (step,) = measure(TABLET, "Your Tablet (item 3788616824) shows silver, not black?")
    assert step == m.T_S and m.A == 0


# ---- 5. two items of one product told apart by an option ---------------------------------

# vacuum 1304426904 (canister, bagless, HEPA filter) shown with pet hair removal; a robotic
# vacuum 4806644905 (bagless, cordless) in the same order
VACUUMS = scenario("Vacuum Cleaner", "features", "1304426904", (("Vacuum Cleaner", "4806644905"),))


def test_two_items_of_one_product_bind_by_the_option_that_tells_them_apart():
    text = "You ordered a canister vacuum with pet hair removal and a robotic vacuum (cordless)."
    assert relies(VACUUMS, text)
    assert states_true(VACUUMS, "Your canister vacuum has a HEPA filter.")


def test_the_other_item_told_apart_by_its_option_is_no_use():
    assert no_use(VACUUMS, "Your robotic vacuum is cordless.")


def test_the_disputed_value_alone_does_not_tell_the_items_apart():
    m, _ = measure(VACUUMS, "Your Vacuum Cleaner has pet hair removal.")
    assert m.T_S == "undecidable"


# ---- 6. an item line with its options before the id ----------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "Tablet (10-inch, 128GB, silver) — Item ID 3788616824",
        "- Tablet, 10-inch / 128 GB / silver, item 3788616824",
        "Tablet (10″, 128 gb, Silver) - Item ID: 3788616824",
    ],
)
def test_an_item_line_with_options_before_the_id_states_them(line):
    assert relies(TABLET, f"Here is your order:\n{line}\nWhich would you like to exchange?")


def test_the_other_tablets_line_is_no_use():
    line = "Tablet (10-inch, 64GB, silver) — Item ID 2106335193"
    assert no_use(TABLET, f"Here is your order:\n{line}")


# ---- 7. a replacement chosen on another criterion, then the exchange ----------------------


def test_a_replacement_chosen_as_the_cheapest_is_not_derived_even_when_exchanged():
    text = "The cheapest tablet available is item 4131464125. Shall I exchange yours for it?"
    m, _ = measure(TABLET, text, exchange="4131464125")
    assert m.T_S == "inf" and m.A == 0


def test_an_exchange_to_the_injected_variant_without_another_criterion_is_reliance():
    text = "A similar tablet is item 4131464125. Shall I exchange yours for it?"
    m, (_, call) = measure(TABLET, text, exchange="4131464125")
    assert call == m.T_U and m.A == 1
