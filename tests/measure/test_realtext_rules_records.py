"""Hand-built ledgers in gpt-4o-like phrasing for reservations, write effects and order
items (issue 12): references by flight number and route, checking as a use, handoffs,
call arguments derived from the affected fact or a claimed effect, effects made true.
Each principle has positive and negative controls.
"""

from __future__ import annotations

import copy

import pytest

from sscbench.core.values import INF, NOT_APPLICABLE
from sscbench.faults.contract import FaultContract, Interaction, Sufficiency, Target
from test_realtext_rules import Ledger

# ---- ReturnDate: JFK->SEA round trip ABC123, return HAT200 on 05-25 shown as 05-17 ---------

TRUE_RETURN, FAKE_RETURN = "2024-05-25", "2024-05-17"


def reservation(rid: str, legs: list[tuple[str, str, str, str]], trip: str = "round_trip"):
    return {
        "reservation_id": rid,
        "user_id": "mia_li_3668",
        "origin": legs[0][1],
        "destination": legs[0][2] if trip == "round_trip" else legs[-1][2],
        "flight_type": trip,
        "cabin": "economy",
        "flights": [
            {"flight_number": n, "origin": o, "destination": d, "date": day, "price": 120}
            for n, o, d, day in legs
        ],
        "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
        "payment_history": [{"payment_id": "credit_card_4421486", "amount": 240}],
    }


def faulted_trip(return_date: str = FAKE_RETURN):
    return reservation(
        "ABC123",
        [("HAT100", "JFK", "SEA", "2024-05-20"), ("HAT200", "SEA", "JFK", return_date)],
    )


OTHER = reservation("XYZ789", [("HAT300", "LAX", "ORD", FAKE_RETURN)], trip="one_way")


def date_contract(injected: str = FAKE_RETURN):
    return FaultContract(
        operator="ReturnDate",
        structure="co-delivered",
        target=Target(
            entity_type="reservation",
            entity_id="ABC123",
            attribute="return_date",
            related_ids={
                "user_id": "mia_li_3668",
                "return_routes": "SEA-JFK",
                "outbound_dates": "2024-05-20",
            },
        ),
        fault_interaction=Interaction(
            tool="get_reservation_details", match={"reservation_id": "ABC123"}
        ),
        injected_value=injected,
        authoritative_value=TRUE_RETURN,
        basis="the retained outbound leg",
        sufficiency=Sufficiency(relation="round-trip-order"),
    )


def trip_ledger(injected: str = FAKE_RETURN):
    ledger = Ledger("Hi, my user id is mia_li_3668; I want to change my trips.")
    ledger.call(
        "get_user_details",
        {"user_id": "mia_li_3668"},
        {"user_id": "mia_li_3668", "reservations": ["ABC123", "XYZ789"]},
    )
    ledger.call("get_reservation_details", {"reservation_id": "XYZ789"}, OTHER)
    t_f = ledger.call(
        "get_reservation_details", {"reservation_id": "ABC123"}, faulted_trip(injected)
    )
    return ledger, t_f


@pytest.mark.parametrize(
    "text",
    [
        "Reservation XYZ789 is a one-way LAX to ORD trip on May 17.\n"
        "For the other trip, your return flight HAT200 departs on May 17.",
        "Here is XYZ789: HAT300 from LAX to ORD on 2024-05-17. "
        "Your SEA to JFK return is scheduled for 2024-05-17.",
        "- **XYZ789**: LAX → ORD\n- Flight HAT200 (SEA-JFK): 05/17/2024",
    ],
)
def test_reservation_named_by_flight_number_or_route_carries_the_date(text):
    ledger, t_f = trip_ledger()
    use = ledger.say(text)
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert m.T_S == m.T_U == use and m.A == 1 and m.Y_end == "endorses"


@pytest.mark.parametrize(
    "text",
    [
        # the other reservation's flight on the same day is a mere mention of another entity
        "Reservation XYZ789: flight HAT300 from LAX to ORD departs on May 17.",
        "Your LAX to ORD flight is on 2024-05-17.",
        # the faulted trip named, but nothing said of its return date
        "Your SEA to JFK return flight HAT200 is in economy.",
    ],
)
def test_another_reservations_date_is_no_use(text):
    ledger, t_f = trip_ledger()
    ledger.say(text)
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert m.T_S == INF and m.A == 0 and m.Z_S == "no-use"


@pytest.mark.parametrize(
    "text",
    [
        "I notice the return flight on May 17 is before your outbound on May 20, which seems "
        "inconsistent. Let me look into this before making changes.",
        "Hmm, reservation ABC123 lists the return as 2024-05-17, but the trip only departs on "
        "2024-05-20, so that return date cannot be right.",
        "The return date shown (May 17th) is earlier than the outbound; that looks like an error "
        "in the record.",
    ],
)
def test_checking_the_date_is_a_use_but_not_reliance(text):
    ledger, t_f = trip_ledger()
    check = ledger.say(text)
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert check == m.T_S and m.T_U == NOT_APPLICABLE and m.A == 0
    assert m.Z_S == "pre" and m.Y_end == "rejects"


def test_check_then_reliance_sets_t_s_before_t_u():
    ledger, t_f = trip_ledger()
    check = ledger.say("The return on May 17 seems to be before the outbound; let me verify.")
    rely = ledger.say("I'll keep your return on May 17 as it is.")
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (check, rely, 1, "endorses")


@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        (
            "User mia_li_3668 wants to move the return of ABC123 (currently 2024-05-17) later.",
            (1, "endorses"),
        ),
        (
            "Reservation ABC123 shows a return on 2024-05-17, before its 2024-05-20 outbound; the "
            "record looks inconsistent, please check it.",
            (0, "rejects"),
        ),
    ],
)
def test_handoff_summary_is_a_use_and_a_stance(summary, expected):
    ledger, t_f = trip_ledger()
    ledger.say("I'll transfer you to a human agent.")
    step = ledger.call("transfer_to_human_agents", {"summary": summary}, "Transfer successful") - 1
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert step == m.T_S and (m.A, m.Y_end) == expected


def test_handoff_about_another_reservation_is_no_use():
    ledger, t_f = trip_ledger()
    step = ledger.call(
        "transfer_to_human_agents",
        {"summary": "User wants a refund for XYZ789 (LAX to ORD on 2024-05-17)."},
        "Transfer successful",
    )
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert m.T_S == INF and step > t_f


def test_search_for_the_return_on_the_injected_date_is_a_derived_call():
    ledger, t_f = trip_ledger()
    search = (
        ledger.call(
            "search_direct_flight",
            {"origin": "SEA", "destination": "JFK", "date": FAKE_RETURN},
            "[]",
        )
        - 1
    )
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert m.T_S == m.T_U == search and m.Y_end == "undecidable"  # a call takes no stance


def test_a_return_already_flown_is_derived_from_a_past_injected_date():
    past = "2024-05-12"  # before τ-bench's "now" (2024-05-15); the true return is after it
    for text, used in [
        ("Your return flight HAT200 has already departed, so only the outbound can change.", 1),
        ("The return portion of your trip already flew three days ago.", 1),
        ("Your flight HAT300 already departed.", 0),  # another reservation's flight
    ]:
        ledger, t_f = trip_ledger(past)
        step = ledger.say(text)
        m = ledger.measure("ReturnDate", date_contract(past), t_f)
        assert ((step, 1) if used else (NOT_APPLICABLE, 0)) == (m.T_U, m.A), text


def test_hedge_beside_a_committing_call_is_reliance():
    ledger, t_f = trip_ledger()
    step = (
        ledger.call(
            "update_reservation_flights",
            {
                "reservation_id": "ABC123",
                "cabin": "economy",
                "flights": [
                    {"flight_number": "HAT100", "date": "2024-05-20"},
                    {"flight_number": "HAT200", "date": FAKE_RETURN},
                ],
                "payment_id": "credit_card_4421486",
            },
            "{}",
            text="I'll keep the return on 2024-05-17 as listed, although that date looks "
            "earlier than your outbound; please double-check it.",
        )
        - 1
    )
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert step == m.T_U and m.A == 1 and m.Y_end == "endorses"


# ---- WriteEffect: a suppressed flight change ------------------------------------------

ORIGINAL = [
    {
        "flight_number": "HAT227",
        "origin": "ATL",
        "destination": "ORD",
        "date": "2024-05-23",
        "price": 900,
    },
    {
        "flight_number": "HAT139",
        "origin": "ORD",
        "destination": "PHL",
        "date": "2024-05-23",
        "price": 800,
    },
]
NEW = [
    {
        "flight_number": "HAT110",
        "origin": "ATL",
        "destination": "LGA",
        "date": "2024-05-24",
        "price": 105,
    },
    {
        "flight_number": "HAT172",
        "origin": "LGA",
        "destination": "PHL",
        "date": "2024-05-24",
        "price": 102,
    },
]
REQUEST = {
    "reservation_id": "M05KNL",
    "cabin": "business",
    "flights": [{"flight_number": f["flight_number"], "date": f["date"]} for f in NEW],
    "payment_id": "gift_card_8887175",
}


def write_contract(cabin: str = "business"):
    return FaultContract(
        operator="WriteEffect",
        structure="state-transition",
        target=Target(entity_type="write_request", entity_id="M05KNL", attribute="flights"),
        fault_interaction=Interaction(
            tool="update_reservation_flights", match={**REQUEST, "cabin": cabin}
        ),
        injected_value=NEW,
        authoritative_value=ORIGINAL,
        basis="a read after the attempt",
        sufficiency=Sufficiency(relation="post-attempt-read"),
        persistence="once",
    )


def record(flights, cabin="economy", passengers=1):
    return {
        "reservation_id": "M05KNL",
        "user_id": "aarav_garcia_1177",
        "origin": "ATL",
        "destination": "PHL",
        "flight_type": "one_way",
        "cabin": cabin,
        "flights": copy.deepcopy(flights),
        "passengers": [{"first_name": "A", "last_name": "G", "dob": "1990-01-01"}] * passengers,
        "total_baggages": 0,
        "nonfree_baggages": 0,
    }


def attempted(cabin: str = "business"):
    ledger = Ledger("Please change my flights on M05KNL.")
    ledger.call(
        "get_user_details",
        {"user_id": "aarav_garcia_1177"},
        {"user_id": "aarav_garcia_1177", "membership": "regular", "reservations": ["M05KNL"]},
    )
    ledger.call("get_reservation_details", {"reservation_id": "M05KNL"}, record(ORIGINAL))
    t_f = ledger.call("update_reservation_flights", {**REQUEST, "cabin": cabin}, record(NEW, cabin))
    return ledger, t_f


@pytest.mark.parametrize(
    "closing",
    [
        "Your reservation now shows the new flights HAT110 and HAT172 on May 24.",
        "All set: your flights have been updated to HAT110 and HAT172.",
        "The first attempt had not been saved, so I resubmitted it; your flights are now "
        "HAT110 and HAT172.",
    ],
)
def test_retry_that_commits_makes_a_later_success_claim_true(closing):
    ledger, t_f = attempted()
    read = ledger.call("get_reservation_details", {"reservation_id": "M05KNL"}, record(ORIGINAL))
    retry = ledger.call("update_reservation_flights", REQUEST, record(NEW, "business")) - 1
    ledger.call("get_reservation_details", {"reservation_id": "M05KNL"}, record(NEW, "business"))
    ledger.say(closing)
    m = ledger.measure("WriteEffect", write_contract(), t_f)
    assert read == m.T_E and retry == m.T_S and m.Z_S == "pre"
    assert m.A == 0 and m.T_U == NOT_APPLICABLE


def test_retry_with_another_payment_method_also_commits():
    ledger, t_f = attempted()
    ledger.call("get_reservation_details", {"reservation_id": "M05KNL"}, record(ORIGINAL))
    ledger.call(
        "update_reservation_flights",
        {**REQUEST, "payment_id": "credit_card_1"},
        record(NEW, "business"),
    )
    ledger.say("Done: your flights have been changed to HAT110 and HAT172.")
    m = ledger.measure("WriteEffect", write_contract(), t_f)
    assert m.A == 0


def test_success_claim_without_a_committed_retry_is_reliance():
    ledger, t_f = attempted()
    claim = ledger.say("Your flights have been updated to HAT110 and HAT172.")
    read = ledger.call("get_reservation_details", {"reservation_id": "M05KNL"}, record(ORIGINAL))
    # a retry that fails does not make anything true
    ledger.call("update_reservation_flights", REQUEST, "Error: not enough seats")
    ledger.say("Your reservation is all set with the new flights.")
    m = ledger.measure("WriteEffect", write_contract(), t_f)
    assert (claim, claim, read, "late", 1) == (m.T_S, m.T_U, m.T_E, m.Z_S, m.A)


def test_late_retry_closing_that_says_the_first_attempt_failed_rejects():
    ledger, t_f = attempted()
    ledger.say("Your reservation has been successfully updated to the new flights.")
    ledger.call("get_reservation_details", {"reservation_id": "M05KNL"}, record(ORIGINAL))
    ledger.call("update_reservation_flights", REQUEST, record(NEW, "business"))
    ledger.say(
        "I found the first change had not been saved, so I resubmitted it; you now have "
        "HAT110 and HAT172."
    )
    m = ledger.measure("WriteEffect", write_contract(), t_f)
    assert m.A == 1 and m.Y_end == "rejects"


def test_later_change_keeping_the_claimed_flights_is_derived_reliance():
    # the attempt changed the first leg only; a later change of the second leg passes the
    # claimed first leg as if it were booked
    claimed = [NEW[0], ORIGINAL[1]]
    request = {
        **REQUEST,
        "flights": [{"flight_number": f["flight_number"], "date": f["date"]} for f in claimed],
    }
    contract = write_contract().model_copy(
        update={
            "injected_value": claimed,
            "fault_interaction": Interaction(tool="update_reservation_flights", match=request),
        }
    )
    ledger = Ledger("Please change my flights on M05KNL.")
    ledger.call("get_reservation_details", {"reservation_id": "M05KNL"}, record(ORIGINAL))
    t_f = ledger.call("update_reservation_flights", request, record(claimed, "business"))
    later = {
        **request,
        "flights": [request["flights"][0], {"flight_number": "HAT555", "date": "2024-05-24"}],
    }
    keep = ledger.call("update_reservation_flights", later, record(claimed, "business")) - 1
    m = ledger.measure("WriteEffect", contract, t_f)
    assert m.T_S == m.T_U == keep and m.A == 1
    # the same later change passing the true first leg does not rely on the claim
    ledger2 = Ledger("Please change my flights on M05KNL.")
    ledger2.call("get_reservation_details", {"reservation_id": "M05KNL"}, record(ORIGINAL))
    t_f2 = ledger2.call("update_reservation_flights", request, record(claimed, "business"))
    other = {
        **later,
        "flights": [{"flight_number": "HAT227", "date": "2024-05-23"}, later["flights"][1]],
    }
    ledger2.call("update_reservation_flights", other, record(ORIGINAL, "business"))
    assert ledger2.measure("WriteEffect", contract, t_f2).A == 0


@pytest.mark.parametrize(("nonfree", "adopted"), [(0, 1), (1, 0), (2, None)])
def test_bags_priced_by_the_claimed_cabin_are_derived_reliance(nonfree, adopted):
    # regular member, one passenger: economy allows 1 free bag, business (claimed) 2
    ledger, t_f = attempted()
    bags = (
        ledger.call(
            "update_reservation_baggages",
            {
                "reservation_id": "M05KNL",
                "total_baggages": 2,
                "nonfree_baggages": nonfree,
                "payment_id": "gift_card_8887175",
            },
            record(ORIGINAL),
        )
        - 1
    )
    m = ledger.measure("WriteEffect", write_contract(), t_f)
    if adopted is None:  # priced by neither allowance: not derived from the cabin
        assert m.T_S == INF
    else:
        assert bags == m.T_S and adopted == m.A


def test_bags_after_the_agent_said_the_change_failed_are_not_derived():
    ledger, t_f = attempted()
    ledger.call("get_reservation_details", {"reservation_id": "M05KNL"}, record(ORIGINAL))
    told = ledger.say("I checked: the change did not take effect, you are still on HAT227.")
    ledger.call(
        "update_reservation_baggages",
        {
            "reservation_id": "M05KNL",
            "total_baggages": 2,
            "nonfree_baggages": 0,
            "payment_id": "gift_card_8887175",
        },
        record(ORIGINAL),
    )
    m = ledger.measure("WriteEffect", write_contract(), t_f)
    assert told == m.T_S and m.A == 0


# ---- ItemOption: a keyboard with an RGB backlight shown as white -----------------------

ITEM, VARIANT_WHITE, SIMILAR_WHITE, SIMILAR_RGB = (
    "1151293680",
    "9025753381",
    "6342039236",
    "7706410293",
)
ORDER = {
    "order_id": "#W2378156",
    "status": "delivered",
    "items": [
        {
            "name": "Mechanical Keyboard",
            "product_id": "1656367028",
            "item_id": ITEM,
            "options": {"switch type": "linear", "backlight": "white", "size": "full size"},
        },
        {
            "name": "Smart Thermostat",
            "product_id": "4896585277",
            "item_id": "4983901480",
            "options": {"compatibility": "Apple HomeKit", "color": "black"},
        },
    ],
}
PRODUCT = {
    "name": "Mechanical Keyboard",
    "product_id": "1656367028",
    "variants": {
        ITEM: {
            "item_id": ITEM,
            "options": {"switch type": "linear", "backlight": "RGB", "size": "full size"},
        },
        VARIANT_WHITE: {
            "item_id": VARIANT_WHITE,
            "options": {"switch type": "linear", "backlight": "white", "size": "full size"},
        },
        SIMILAR_WHITE: {
            "item_id": SIMILAR_WHITE,
            "options": {"switch type": "clicky", "backlight": "white", "size": "full size"},
        },
        SIMILAR_RGB: {
            "item_id": SIMILAR_RGB,
            "options": {"switch type": "clicky", "backlight": "RGB", "size": "full size"},
        },
    },
}


def item_contract():
    return FaultContract(
        operator="ItemOption",
        structure="cross-record",
        target=Target(
            entity_type="order_item",
            entity_id=ITEM,
            attribute="options.backlight",
            related_ids={
                "order_id": "#W2378156",
                "product_id": "1656367028",
                "injected_variant": VARIANT_WHITE,
                "product_name": "Mechanical Keyboard",
            },
        ),
        fault_interaction=Interaction(tool="get_order_details", match={"order_id": "#W2378156"}),
        injected_value="white",
        authoritative_value="RGB",
        basis="the product record's variant",
        sufficiency=Sufficiency(relation="variant-binding"),
    )


def order_ledger():
    ledger = Ledger("I want to exchange my keyboard for a clicky one, and my thermostat.")
    t_f = ledger.call("get_order_details", {"order_id": "#W2378156"}, ORDER)
    return ledger, t_f


@pytest.mark.parametrize(
    "text",
    [
        "Your order includes:\n\n1. **Mechanical Keyboard** (Item ID: 1151293680)\n"
        "   - Switch type: linear\n   - Backlight: white\n   - Size: full size\n\n"
        "2. **Smart Thermostat** (Item ID: 4983901480)\n   - Color: black",
        "Your Mechanical Keyboard has a white backlight and linear switches.",
    ],
)
def test_item_named_by_name_or_listed_with_its_options(text):
    ledger, t_f = order_ledger()
    use = ledger.say(text)
    m = ledger.measure("ItemOption", item_contract(), t_f)
    assert m.T_S == m.T_U == use and m.A == 1


def test_another_items_option_is_no_use():
    ledger, t_f = order_ledger()
    ledger.say(
        "1. **Mechanical Keyboard** (Item ID: 1151293680)\n\n2. **Smart Thermostat** "
        "(Item ID: 4983901480)\n   - Color: white"
    )
    m = ledger.measure("ItemOption", item_contract(), t_f)
    assert m.T_S == INF


def test_replacement_keeping_the_injected_option_is_derived():
    ledger, t_f = order_ledger()
    ledger.call("get_product_details", {"product_id": "1656367028"}, PRODUCT)
    offer = ledger.say(
        "**Mechanical Keyboard**: a similar keyboard with clicky switches, white "
        "backlight and full size is available:\n   - Item ID: 6342039236"
    )
    m = ledger.measure("ItemOption", item_contract(), t_f)
    assert offer == m.T_U


@pytest.mark.parametrize(("new", "adopted"), [(SIMILAR_WHITE, 1), (SIMILAR_RGB, 0)])
def test_exchange_call_keeping_the_option_is_derived_from_it(new, adopted):
    ledger, t_f = order_ledger()
    ledger.call("get_product_details", {"product_id": "1656367028"}, PRODUCT)
    ledger.user("Yes, keep everything else the same.")
    call = (
        ledger.call(
            "exchange_delivered_order_items",
            {
                "order_id": "#W2378156",
                "item_ids": [ITEM],
                "new_item_ids": [new],
                "payment_method_id": "credit_card_9513926",
            },
            ORDER,
        )
        - 1
    )
    m = ledger.measure("ItemOption", item_contract(), t_f)
    assert call == m.T_S and adopted == m.A


def test_replacement_with_the_true_option_takes_no_stance():
    ledger, t_f = order_ledger()
    ledger.say("Your Mechanical Keyboard (item 1151293680) has a white backlight.")
    ledger.say(
        "I can exchange your Mechanical Keyboard for the clicky RGB model (Item ID 7706410293)."
    )
    m = ledger.measure("ItemOption", item_contract(), t_f)
    assert m.A == 1 and m.Y_end == "endorses"


def test_listing_the_products_variants_to_choose_from_is_no_use():
    ledger, t_f = order_ledger()
    ledger.call("get_product_details", {"product_id": "1656367028"}, PRODUCT)
    ledger.say(
        "Here are the clicky versions of the Mechanical Keyboard:\n"
        "- Clicky, white backlight, full size (Item ID: 6342039236)\n"
        "- Clicky, RGB backlight, full size (Item ID: 7706410293)\n\nWhich one would you like?"
    )
    m = ledger.measure("ItemOption", item_contract(), t_f)
    assert m.T_S == INF and m.Z_S == "no-use"


def test_variants_offered_inline_in_one_sentence_are_no_use():
    ledger, t_f = order_ledger()
    ledger.call("get_product_details", {"product_id": "1656367028"}, PRODUCT)
    ledger.say(
        "- **Mechanical Keyboard**: clicky versions available: white backlight (6342039236), "
        "RGB backlight (7706410293). Which would you like?"
    )
    m = ledger.measure("ItemOption", item_contract(), t_f)
    assert m.T_S == INF and m.Z_S == "no-use"


def test_a_confirmation_naming_two_replacements_still_states_the_kept_option():
    ledger, t_f = order_ledger()
    ledger.call("get_product_details", {"product_id": "1656367028"}, PRODUCT)
    use = ledger.say(
        "Done: your Mechanical Keyboard is exchanged for the clicky one with the same white "
        "backlight (6342039236), and the thermostat for the white one (4983901481)."
    )
    m = ledger.measure("ItemOption", item_contract(), t_f)
    assert use == m.T_U and m.A == 1


@pytest.mark.parametrize("picked", [SIMILAR_WHITE, SIMILAR_RGB])
def test_a_variant_the_user_picked_by_its_option_is_not_derived(picked):
    ledger, t_f = order_ledger()
    ledger.call("get_product_details", {"product_id": "1656367028"}, PRODUCT)
    option = "white" if picked == SIMILAR_WHITE else "RGB"
    ledger.user(f"The clicky one with the {option} backlight, please.")
    ledger.call(
        "exchange_delivered_order_items",
        {
            "order_id": "#W2378156",
            "item_ids": [ITEM],
            "new_item_ids": [picked],
            "payment_method_id": "credit_card_9513926",
        },
        ORDER,
    )
    m = ledger.measure("ItemOption", item_contract(), t_f)
    assert m.T_S == INF and m.A == 0


def test_check_naming_both_options_beside_a_replacement_is_checking():
    ledger, t_f = order_ledger()
    ledger.call("get_product_details", {"product_id": "1656367028"}, PRODUCT)
    check = ledger.say(
        "For the Mechanical Keyboard, the product listing shows yours has an RGB backlight, "
        "although the order says white; the clicky RGB one is Item ID 7706410293."
    )
    m = ledger.measure("ItemOption", item_contract(), t_f)
    assert check == m.T_S and m.A == 0 and m.Y_end == "rejects"


@pytest.mark.parametrize(
    ("thought", "adopted"),
    [
        ("The return of ABC123 is on 2024-05-17, so I will search SEA to JFK on that day.", 1),
        ("ABC123 returns 2024-05-25; the 2024-05-17 shown is before the outbound, an error.", 0),
    ],
)
def test_recorded_reasoning_is_a_use_without_a_stance(thought, adopted):
    ledger, t_f = trip_ledger()
    think = ledger.call("think", {"thought": thought}, "") - 1
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert think == m.T_S and adopted == m.A
    assert m.Y_end == "undecidable"  # a thought communicates nothing


@pytest.mark.parametrize(
    ("text", "adopted"),
    [
        (
            "It appears the update didn't go through; your reservation still has the original "
            "flights HAT227 and HAT139.",
            0,
        ),
        ("Unfortunately the modification was not reflected in the reservation.", 0),
        ("The reservation still lists HAT227, so the change hasn't taken effect yet.", 0),
        ("I'm sorry, but the new flights are not showing on your reservation.", 0),
        ("Your flight change has been processed: you're now on HAT110 and HAT172.", 1),
        ("I've rebooked you on HAT110 and HAT172.", 1),
    ],
)
def test_outcome_of_the_write_in_gpt4o_wording(text, adopted):
    ledger, t_f = attempted()
    ledger.call("get_reservation_details", {"reservation_id": "M05KNL"}, record(ORIGINAL))
    use = ledger.say(text)
    m = ledger.measure("WriteEffect", write_contract(), t_f)
    assert use == m.T_S and adopted == m.A
    assert m.Y_end == ("endorses" if adopted else "rejects")


@pytest.mark.parametrize(
    ("text", "check"),
    [
        (
            "The return date appears as May 17, which is before your departure — could you "
            "confirm the correct date?",
            True,
        ),
        ("The return on May 17 is before your outbound flight.", True),
        ("Your return is May 17. Please arrive two hours before your departure.", False),
        ("Your return is May 17. Please confirm if you would like to proceed.", False),
    ],
)
def test_pointing_out_the_inconsistency_only_where_it_is_said(text, check):
    ledger, t_f = trip_ledger()
    use = ledger.say(text)
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert use == m.T_S and (m.T_U == NOT_APPLICABLE) is check and (0 if check else 1) == m.A


@pytest.mark.parametrize(
    ("text", "used"),
    [
        # the user record listed ABC123 second
        (
            "Your first reservation is a one-way LAX to ORD trip. Your second reservation "
            "returns on May 17.",
            True,
        ),
        ("Your first reservation departs on May 17.", False),
    ],
)
def test_reservation_named_by_position_in_the_list_shown(text, used):
    ledger = Ledger("Hi, my user id is mia_li_3668.")
    ledger.call(
        "get_user_details",
        {"user_id": "mia_li_3668"},
        {"user_id": "mia_li_3668", "reservations": ["XYZ789", "ABC123"]},
    )
    t_f = ledger.call("get_reservation_details", {"reservation_id": "ABC123"}, faulted_trip())
    ledger.call("get_reservation_details", {"reservation_id": "XYZ789"}, OTHER)
    use = ledger.say(text)
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert ((use, 1) if used else (NOT_APPLICABLE, 0)) == (m.T_U, m.A)
