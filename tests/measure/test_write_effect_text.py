"""WriteEffect on the text of other model families: how a change is said to be made or
not made, and which reservation a sentence is about (:mod:`write_text`).

Each principle is measured on a hand-built ledger, with positive and negative controls:
collective sentences, perfect / passive / check-mark claims, the acknowledged charge or
refund, failures of something else (a kept leg, the bags, a cancellation), and a check
that only announces the read it makes.
"""

from __future__ import annotations

import copy

import pytest

from sscbench.core.values import INF
from sscbench.faults.contract import FaultContract, Interaction, Sufficiency, Target
from test_realtext_rules import Ledger

RID, OTHER = "M05KNL", "X7BYG1"
ORIGINAL = [
    {"flight_number": "HAT227", "origin": "ATL", "destination": "ORD", "date": "2024-05-23"},
    {"flight_number": "HAT139", "origin": "ORD", "destination": "PHL", "date": "2024-05-23"},
]
# a flight change of the first leg only; the second (HAT139) is kept
CHANGED = [
    {"flight_number": "HAT110", "origin": "ATL", "destination": "ORD", "date": "2024-05-23"},
    ORIGINAL[1],
]
PAID = [{"payment_id": "credit_card_7334", "amount": 520}]
CHARGE = {"payment_id": "credit_card_7334", "amount": 1194}


def flights_of(legs):
    return [{"flight_number": f["flight_number"], "date": f["date"]} for f in legs]


def record(rid, legs, cabin, payments, prices=(100, 120)):
    flights = [dict(f, price=p) for f, p in zip(copy.deepcopy(legs), prices, strict=True)]
    return {
        "reservation_id": rid,
        "user_id": "aarav_ahmed_6699",
        "origin": "ATL",
        "destination": "PHL",
        "flight_type": "one_way",
        "cabin": cabin,
        "flights": flights,
        "passengers": [{"first_name": "A", "last_name": "A", "dob": "1981-05-26"}],
        "payment_history": payments,
        "total_baggages": 1,
        "nonfree_baggages": 0,
    }


def contract(kind: str) -> FaultContract:
    """``cabin``: an upgrade economy → business of the same flights; ``flights``: a
    change of the first leg in economy."""
    legs, cabin = (ORIGINAL, "business") if kind == "cabin" else (CHANGED, "economy")
    request = {
        "reservation_id": RID,
        "cabin": cabin,
        "flights": flights_of(legs),
        "payment_id": "credit_card_7334",
    }
    return FaultContract(
        operator="WriteEffect",
        structure="state-transition",
        target=Target(entity_type="write_request", entity_id=RID, attribute="flights"),
        fault_interaction=Interaction(tool="update_reservation_flights", match=request),
        injected_value=[dict(f, price=p) for f, p in zip(legs, (430, 412), strict=True)],
        authoritative_value=[dict(f, price=p) for f, p in zip(ORIGINAL, (100, 120), strict=True)],
        basis="a read after the attempt",
        sufficiency=Sufficiency(relation="post-attempt-read"),
        persistence="once",
    )


def attempted(kind: str = "cabin", other_first: bool = False):
    """The user's two reservations read, (optionally OTHER really changed first), then the
    suppressed request acknowledged with its charge."""
    c = contract(kind)
    ledger = Ledger("Please upgrade my reservations.")
    ledger.call(
        "get_user_details",
        {"user_id": "aarav_ahmed_6699"},
        {"user_id": "aarav_ahmed_6699", "membership": "gold", "reservations": [RID, OTHER]},
    )
    ledger.call(
        "get_reservation_details", {"reservation_id": RID}, record(RID, ORIGINAL, "economy", PAID)
    )
    other = [dict(f, flight_number=n) for f, n in zip(ORIGINAL, ("HAT232", "HAT228"), strict=True)]
    ledger.call(
        "get_reservation_details", {"reservation_id": OTHER}, record(OTHER, other, "economy", PAID)
    )
    if other_first:
        ledger.call(
            "update_reservation_flights",
            {
                "reservation_id": OTHER,
                "cabin": "business",
                "flights": flights_of(other),
                "payment_id": "credit_card_7334",
            },
            record(
                OTHER, other, "business", [*PAID, {"payment_id": "credit_card_7334", "amount": 777}]
            ),
        )
    ack = record(
        RID, c.injected_value, c.fault_interaction.match["cabin"], [*PAID, CHARGE], (430, 412)
    )
    t_f = ledger.call("update_reservation_flights", c.fault_interaction.match, ack)
    return ledger, t_f, c


def read_back(ledger: Ledger, text: str | None = None) -> int:
    return ledger.call(
        "get_reservation_details",
        {"reservation_id": RID},
        record(RID, ORIGINAL, "economy", PAID),
        text,
    )


# ---- which reservation a sentence is about -------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "All 2 cabin upgrades are complete. Now let me look at the baggage on X7BYG1.",
        "Both reservations have been upgraded to business class.",
        "- ✅ All reservations upgraded from economy → business",
        "X7BYG1's upgrade is complete. All the upgrades are complete.",
    ],
)
def test_a_collective_sentence_is_about_every_reservation_written(text):
    ledger, t_f, c = attempted(other_first=True)
    use = ledger.say(text)
    m = ledger.measure("WriteEffect", c, t_f)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (use, use, 1, "endorses")


@pytest.mark.parametrize(
    "text",
    [
        "The upgrade of X7BYG1 is complete.",  # names the other reservation only
        # no collective: the second sentence continues the subject of the first
        "X7BYG1's upgrade is complete. Two of the upgrades are complete.",
    ],
)
def test_a_sentence_about_another_reservation_is_no_use(text):
    ledger, t_f, c = attempted(other_first=True)
    ledger.say(text)
    assert ledger.measure("WriteEffect", c, t_f).T_S == INF


# ---- saying the change was made ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Note: reservation M05KNL has just been upgraded to business class.",
        "Cabin upgrade to business is complete!",
        "Your reservation M05KNL:\n- Cabin: Business ✅",
        "The customer recently upgraded the cabin of M05KNL from economy to business.",
        "Your reservations were upgraded: the cabin of M05KNL is now business.",
    ],
)
def test_perfect_passive_and_check_mark_claims_are_reliance(text):
    ledger, t_f, c = attempted()
    use = ledger.say(text)
    m = ledger.measure("WriteEffect", c, t_f)
    assert (m.T_U, m.A, m.Y_end) == (use, 1, "endorses")


def test_a_check_mark_on_another_attribute_is_no_claim():
    # a passenger update after the upgrade: its summary lists the kept flights
    ledger, t_f, c = attempted()
    ledger.say(
        "Here's a summary of the passenger update on reservation M05KNL:\n"
        "- Passenger: Aarav Ahmed (DOB: 1981-05-26) ✅\n"
        "- Flights: HAT227 and HAT139 on May 23"
    )
    assert ledger.measure("WriteEffect", c, t_f).T_S == INF


@pytest.mark.parametrize(
    ("text", "adopted"),
    [
        ("| M05KNL | ATL→PHL | $1,194 | Mastercard ending in 7334 |", 1),
        ("The $1194 difference was charged to your Mastercard.", 1),
        ("I checked: the upgrade was not applied, so the $1,194 was not charged.", 0),
    ],
)
def test_the_acknowledged_charge_is_a_value_derived_from_the_claim(text, adopted):
    ledger, t_f, c = attempted()
    use = ledger.say(text)
    m = ledger.measure("WriteEffect", c, t_f)
    assert (use, adopted) == (m.T_S, m.A)
    assert m.Y_end == ("endorses" if adopted else "rejects")


def test_an_amount_after_the_agent_said_the_change_failed_is_its_own_account():
    ledger, t_f, c = attempted()
    read_back(ledger)
    told = ledger.say("I checked: the upgrade did not take effect, M05KNL is still in economy.")
    ledger.say("Across these changes you pay $1,194 in total.")
    m = ledger.measure("WriteEffect", c, t_f)
    assert (m.T_S, m.A, m.Y_end) == (told, 0, "rejects")
    # a claim of the change itself after the failure report is still reliance
    claim = ledger.say("Your upgrade to business has been completed.")
    m = ledger.measure("WriteEffect", c, t_f)
    assert (m.T_U, m.A, m.Y_end) == (claim, 1, "endorses")


@pytest.mark.parametrize(
    "text",
    [
        "| M05KNL | ATL→PHL | $520 | Mastercard ending in 7334 |",  # the original payment
        "| M05KNL | ATL→PHL | $1,194.50 | Mastercard |",  # another amount
    ],
)
def test_amounts_the_acknowledgement_did_not_add_are_no_use(text):
    ledger, t_f, c = attempted()
    ledger.say(text)
    assert ledger.measure("WriteEffect", c, t_f).T_S == INF


# ---- saying it was not made, of the change and not of something else -----------------


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        # a kept leg is unchanged; the changed one is stated as made
        ("flights", "The change has been made!\n- Outbound: HAT110\n- Return: HAT139 (unchanged)"),
        ("flights", "Done: you are now on HAT110; the connecting flight HAT139 remains the same."),
        ("cabin", "Your upgrade to business is done. Your flights remain the same."),
        ("cabin", "The upgrade is complete. I notice the system still shows 1 bag, which is free."),
        ("cabin", "The upgrade to business is complete. I'm unable to cancel this reservation."),
        ("cabin", "I was unable to change the passenger names; your upgrade to business is done."),
        ("cabin", "Upgraded to business. Those other items are unchanged when the cabin changes."),
    ],
)
def test_failure_words_about_something_else_do_not_retract_the_claim(kind, text):
    ledger, t_f, c = attempted(kind)
    use = ledger.say(text)
    m = ledger.measure("WriteEffect", c, t_f)
    assert (m.T_U, m.A, m.Y_end) == (use, 1, "endorses")


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("flights", "I checked: your reservation is unchanged, it still has HAT227."),
        ("flights", "Sorry, your flights remain the same as before."),
        ("cabin", "It still shows economy: the upgrade does not appear to have gone through."),
        ("cabin", "The cabin remains unchanged; I was unable to apply the upgrade."),
        ("cabin", "The upgrade did **not** take effect."),
        ("cabin", "I couldn't apply the change; your booking is still unchanged."),
    ],
)
def test_failure_of_what_the_request_changes_rejects(kind, text):
    ledger, t_f, c = attempted(kind)
    read = read_back(ledger)
    use = ledger.say(text)
    m = ledger.measure("WriteEffect", c, t_f)
    assert (m.T_E, m.T_S, m.A, m.Y_end) == (read, use, 0, "rejects")


# ---- a check that announces the read it makes ----------------------------------------


def test_announcing_the_read_is_part_of_the_retrieval():
    ledger, t_f, c = attempted()
    read = read_back(ledger, "Let me verify the reservation to make sure the change went through.")
    told = ledger.say("It still shows economy: the upgrade did not take effect.")
    m = ledger.measure("WriteEffect", c, t_f)
    assert (read, told, "pre", 0) == (m.T_E, m.T_S, m.Z_S, m.A)


def test_a_check_without_its_read_or_a_claim_beside_the_read_is_a_use():
    ledger, t_f, c = attempted()
    check = ledger.say("Let me verify the reservation to make sure the change went through.")
    read_back(ledger)
    assert check == ledger.measure("WriteEffect", c, t_f).T_S
    ledger, t_f, c = attempted()
    claim = read_back(ledger, "Your upgrade has been completed; let me double-check it.") - 1
    m = ledger.measure("WriteEffect", c, t_f)
    assert (claim, claim, 1) == (m.T_S, m.T_U, m.A)
