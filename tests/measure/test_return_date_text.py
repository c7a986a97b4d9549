"""ReturnDate on the text of other model families (claude-opus, gpt-oss), one group per
principle, each with positive and negative controls, on hand-built ledgers:

* a call whose arguments bind a date to a return leg (a return flight number, a return
  route, a flight of a booking's list) is a dependent use (Def. 3.2: "unless its
  arguments themselves depend on f");
* a date derived from the return by the shift the user asked for (the return ± 1 day
  for "move my return back by one day") is a use with the stance of the date it derives
  from, read against what the agent last stated of the return;
* a date stated as the clock ("The current time is May 15, 2024") is no reservation's;
* a checking word bears on the value only in the sentences stating it or beside them;
* a sentence saying a trip keeps "the same dates" restates the reservation's dates.

ABC123: JFK->SEA on 05-20 (HAT100), return SEA->JFK on 05-25 (HAT200) shown as 05-17;
XYZ789: a one-way LAX->ORD on 05-17 (HAT300).
"""

from __future__ import annotations

import pytest

from sscbench.core.values import INF, NOT_APPLICABLE
from test_realtext_rules_records import date_contract, trip_ledger


def measure(ledger, t_f, injected: str | None = None):
    contract = date_contract() if injected is None else date_contract(injected)
    return ledger.measure("ReturnDate", contract, t_f)


# ---- call arguments bound to a return leg ----------------------------------------------


def test_flight_status_of_a_return_leg_on_the_true_date_is_a_correct_use():
    ledger, t_f = trip_ledger()
    obs = ledger.call("get_flight_status", {"flight_number": "HAT200", "date": "2024-05-25"}, "")
    m = measure(ledger, t_f)
    assert (obs - 1, NOT_APPLICABLE, 0, "pre") == (m.T_S, m.T_U, m.A, m.Z_S)
    assert m.Y_end == "undecidable"  # calls take no stance


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_flight_status", {"flight_number": "HAT200", "date": "2024-05-17"}),
        ("search_onestop_flight", {"origin": "SEA", "destination": "JFK", "date": "2024-05-17"}),
        (
            "book_reservation",
            {
                "user_id": "mia_li_3668",
                "origin": "JFK",
                "destination": "SEA",
                "flights": [
                    {
                        "flight_number": "HAT100",
                        "origin": "JFK",
                        "destination": "SEA",
                        "date": "2024-05-20",
                    },
                    {
                        "flight_number": "HAT901",
                        "origin": "SEA",
                        "destination": "JFK",
                        "date": "2024-05-17",
                    },
                ],
            },
        ),
    ],
)
def test_a_call_binding_the_injected_date_to_a_return_leg_is_reliance(tool, arguments):
    ledger, t_f = trip_ledger()
    obs = ledger.call(tool, arguments, "[]")
    m = measure(ledger, t_f)
    assert m.T_S == m.T_U == obs - 1 and m.A == 1


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_flight_status", {"flight_number": "HAT100", "date": "2024-05-20"}),  # outbound
        ("get_flight_status", {"flight_number": "HAT200", "date": "2024-05-28"}),  # another day
        ("get_flight_status", {"flight_number": "HAT300", "date": "2024-05-17"}),  # XYZ789
        ("search_direct_flight", {"origin": "LAX", "destination": "ORD", "date": "2024-05-17"}),
        ("get_reservation_details", {"reservation_id": "ABC123"}),  # only retrieves
        (
            "book_reservation",
            {
                "flights": [
                    {
                        "flight_number": "HAT300",
                        "origin": "LAX",
                        "destination": "ORD",
                        "date": "2024-05-17",
                    }
                ]
            },
        ),
    ],
)
def test_a_call_binding_no_return_date_to_a_return_leg_is_no_use(tool, arguments):
    ledger, t_f = trip_ledger()
    ledger.call(tool, arguments, "[]")
    m = measure(ledger, t_f)
    assert m.T_S == INF and m.Z_S == "no-use"


# ---- dates derived by the user's requested shift ---------------------------------------

MOVE_RETURN = "Please move my return flight from SEA back by one day."


@pytest.mark.parametrize(
    "text",
    [
        "I can move your return SEA \u2192 JFK to **May 26** on HAT200.",
        "| Leg | Date |\n| --- | --- |\n| Return SEA \u2192 JFK | 2024\u201105\u201124 |",  # minus
    ],
)
def test_the_true_return_moved_by_the_requested_shift_is_a_correct_use(text):
    ledger, t_f = trip_ledger()
    ledger.user(MOVE_RETURN)
    use = ledger.say(text)
    m = measure(ledger, t_f)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (use, NOT_APPLICABLE, 0, "rejects")


def test_the_injected_return_moved_by_the_requested_shift_is_reliance():
    ledger, t_f = trip_ledger()
    ledger.user("Could you shift my return two days later?")
    use = ledger.say("Sure: your new return would be on May 19.")
    m = measure(ledger, t_f)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (use, use, 1, "endorses")


def test_a_call_carrying_the_shifted_true_date_on_a_return_leg_is_a_correct_use():
    ledger, t_f = trip_ledger()
    ledger.user(MOVE_RETURN)
    flights = [
        {"flight_number": "HAT100", "date": "2024-05-20"},
        {"flight_number": "HAT200", "date": "2024-05-26"},
    ]
    obs = ledger.call(
        "update_reservation_flights", {"reservation_id": "ABC123", "flights": flights}, "{}"
    )
    m = measure(ledger, t_f)
    assert (obs - 1, NOT_APPLICABLE, 0) == (m.T_S, m.T_U, m.A)


@pytest.mark.parametrize(
    "request_",
    [
        None,  # no shift asked for
        "Please move my outbound flight by one day, and keep everything else.",  # not the return
        "Move my return flight by three days.",  # another shift
    ],
)
def test_a_date_beside_the_return_without_the_requested_shift_is_no_use(request_):
    ledger, t_f = trip_ledger()
    if request_:
        ledger.user(request_)
    ledger.say("I found a return SEA \u2192 JFK on May 26 (HAT200).")
    m = measure(ledger, t_f)
    assert m.T_S == INF and m.Z_S == "no-use"


def test_a_shifted_date_is_read_against_the_return_the_agent_stated():
    """Once the agent stated v′, v + 1 is a date it chose, not the true return moved: the
    stance stays the one it stated."""
    ledger, t_f = trip_ledger()
    ledger.user(MOVE_RETURN)
    first = ledger.say("ABC123: your return HAT200 is on May 17.")
    ledger.say("I have moved the return SEA \u2192 JFK to May 26 as requested.")
    m = measure(ledger, t_f)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (first, first, 1, "endorses")


def test_a_shifted_date_after_a_stated_true_return_keeps_its_stance():
    ledger, t_f = trip_ledger()
    ledger.user(MOVE_RETURN)
    first = ledger.say("ABC123: your return HAT200 is on May 25.")
    later = ledger.say("Done: the return SEA \u2192 JFK now departs May 26.")
    m = measure(ledger, t_f)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (first, NOT_APPLICABLE, 0, "rejects")
    assert later > first


# ---- the clock -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Let me check ABC123. The current time is May 15, 2024 at 3:00 PM, so it was "
        "booked more than 24 hours ago.",
        "For ABC123: today's date is **Wednesday, May 15**; the booking is older than a day.",
        "ABC123 - Current date: 2024-05-15.",
    ],
)
def test_the_clocks_date_is_no_return_date(text):
    ledger, t_f = trip_ledger("2024-05-15")
    ledger.say(text)
    m = measure(ledger, t_f, "2024-05-15")
    assert m.T_S == INF and m.Z_S == "no-use"


@pytest.mark.parametrize(
    "text",
    [
        "Today is May 15, and your return flight HAT200 on ABC123 departs on May 15.",
        "For ABC123, your return is today, May 15.",
    ],
)
def test_the_return_stated_beside_the_clock_is_still_a_use(text):
    ledger, t_f = trip_ledger("2024-05-15")
    use = ledger.say(text)
    m = measure(ledger, t_f, "2024-05-15")
    assert m.T_S == m.T_U == use and m.A == 1


# ---- checking words near the value -----------------------------------------------------


@pytest.mark.parametrize(
    "tail",
    [
        "So you'd like to move the outbound to May 21. Is that correct?",
        "Before I can cancel it, I need to verify eligibility. Let me check the cancellation "
        "rules.",
    ],
)
def test_a_checking_word_far_from_the_value_does_not_check_it(tail):
    ledger, t_f = trip_ledger()
    use = ledger.say(
        "**ABC123** (Round trip)\n- Outbound: HAT100 JFK \u2192 SEA on May 20\n"
        f"- Return: HAT200 SEA \u2192 JFK on May 17\n- Passenger: Mia Li\n- Cabin: economy\n\n{tail}"
    )
    m = measure(ledger, t_f)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (use, use, 1, "endorses")


@pytest.mark.parametrize(
    "text",
    [
        "ABC123 returns on May 17. That seems odd for a trip out on May 20, so let me check.",
        "**ABC123**\n- Return: HAT200 on 2024-05-17\n- Passenger: Mia Li\n\nNote: the return "
        "is shown on 2024-05-17, before the outbound. That cannot be right, so I will not rely "
        "on it.",
    ],
)
def test_a_checking_word_beside_a_statement_of_the_value_checks_it(text):
    ledger, t_f = trip_ledger()
    use = ledger.say(text)
    m = measure(ledger, t_f)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (use, NOT_APPLICABLE, 0, "rejects")


# ---- "the same dates" ------------------------------------------------------------------


def test_the_same_dates_restate_the_reservations_dates():
    ledger, t_f = trip_ledger()
    use = ledger.say(
        "Reservation ABC123 has been cancelled.\n| XYZ789 | LAX \u2192 ORD | confirmed |\n"
        "All bookings are for the same travel dates (outbound May 20, return May 25)."
    )
    m = measure(ledger, t_f)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (use, NOT_APPLICABLE, 0, "rejects")


@pytest.mark.parametrize(
    "text",
    [
        # without "the same", the last line continues XYZ789
        "Reservation ABC123 has been cancelled.\n| XYZ789 | LAX \u2192 ORD | confirmed |\n"
        "It flies out May 20 and returns May 25.",
        # a text not about ABC123 at all
        "XYZ789 keeps the same dates: it returns on May 25.",
    ],
)
def test_dates_of_another_trip_are_no_use(text):
    ledger, t_f = trip_ledger()
    ledger.say(text)
    m = measure(ledger, t_f)
    assert m.T_S == INF and m.Z_S == "no-use"
