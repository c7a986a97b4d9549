"""The date reference layer (references/dates.py) and ReturnDate measurement built on it.

The layer is checked on every written form of a date seen in τ² recordings of other
model families (markdown tables and bold, weekdays, abbreviations, typographic dashes
and spaces, spans and lists of days), on year and month resolution, and on numbers that
are no dates. The ledger tests put such phrasings in hand-built runs: a span's end states
the return, its start the outbound; another reservation's date is no use.
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sscbench.core.values import INF, NOT_APPLICABLE
from sscbench.references.dates import find_date, find_date_references, record_year
from test_realtext_rules_records import FAKE_RETURN, date_contract, trip_ledger


def dates_of(text: str, year: int = 2024, month: int | None = None) -> list[tuple[str, str]]:
    return [(r.iso, r.role) for r in find_date_references(text, year, month)]


# ---- single dates in every form -------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-27",
        "| HAT123 | 2024-05-27 | $120 |",
        "May 27",
        "May 27th",
        "27 May",
        "the 27th of May",
        "Mon, May 27",
        "Monday, May 27, 2024",
        "05/27",
        "5/27/2024",
        "5/27/24",
        "27/05/2024",  # day first: there is no 27th month
        "27.05.2024",
        "05.27.2024",  # month first: there is no 27th month
        "5-27-2024",
        "27-May-2024",
        "Mon 27 May",
        "May **27**",
        "Monday the 27th of May",
        "**May 27**",
        "**Return:** Mon, May 27",
        "- Return: May\u202f27\u202f2024",  # gpt-oss's narrow no-break spaces
        "(May 27 2024)",
        "May the 27th",
    ],
)
def test_every_form_of_a_single_date(text):
    assert dates_of(text) == [("2024-05-27", "single")]


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("Jun 3", "2024-06-03"),
        ("Jun. 3", "2024-06-03"),
        ("Sept. 3", "2024-09-03"),
        ("Sep 3rd", "2024-09-03"),
        ("December 1st, 2023", "2023-12-01"),
    ],
)
def test_abbreviated_months(text, iso):
    assert dates_of(text) == [(iso, "single")]


def test_offsets_index_the_original_text():
    text = "Your return is on **Fri, May\u202f17** (HAT200)."
    (reference,) = find_date_references(text)
    assert text[reference.start : reference.end] == "Fri, May\u202f17"
    assert reference.expression == "Fri, May\u202f17"


# ---- spans and lists ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("June 3-7, 2024", "2024-06-03", "2024-06-07"),
        ("Dates: Jun 3\u20134", "2024-06-03", "2024-06-04"),
        ("ABC123: Jun 2-9", "2024-06-02", "2024-06-09"),
        ("May 20 \u2013 May 27", "2024-05-20", "2024-05-27"),
        ("**May 20** \u2013 **May 27**", "2024-05-20", "2024-05-27"),
        ("from May 20 to May 27", "2024-05-20", "2024-05-27"),
        ("between May 20 and May 27", "2024-05-20", "2024-05-27"),
        ("2024-05-20 \u2192 2024-05-27", "2024-05-20", "2024-05-27"),
        ("2024-05-20 to 2024-05-27", "2024-05-20", "2024-05-27"),
        ("May 20 \u27a1 May 27", "2024-05-20", "2024-05-27"),
        ("May 20 --> May 27", "2024-05-20", "2024-05-27"),
        ("May 20 to 27", "2024-05-20", "2024-05-27"),
        ("May 20th through 27th", "2024-05-20", "2024-05-27"),
        ("27-30 May", "2024-05-27", "2024-05-30"),
        ("5/20-5/27", "2024-05-20", "2024-05-27"),
        ("May\u202f27\u201130\u202f2024", "2024-05-27", "2024-05-30"),  # U+2011 hyphen
        ("May 30-2", "2024-05-30", "2024-06-02"),  # the span crosses into June
        ("May 30, 2024 - June 2, 2024", "2024-05-30", "2024-06-02"),
    ],
)
def test_a_span_has_a_start_and_an_end(text, start, end):
    assert dates_of(text) == [(start, "range-start"), (end, "range-end")]


def test_a_span_is_one_expression():
    start, end = find_date_references("Trip ABC123: May 20-27 (economy).")
    assert start.expression == end.expression == "May 20-27"
    assert "Trip ABC123: May 20-27"[end.start : end.end] == "27"


def test_a_list_of_days_shares_its_month_and_year():
    text = "no flights on the dates you mentioned (May 22, 23 or 27 2025)"
    assert dates_of(text) == [
        ("2025-05-22", "single"),
        ("2025-05-23", "single"),
        ("2025-05-27", "single"),
    ]


def test_a_span_does_not_cross_a_line_break():
    assert dates_of("- Outbound: HAT100 on May 20\n- May 25: HAT200 SEA to JFK") == [
        ("2024-05-20", "single"),
        ("2024-05-25", "single"),
    ]


def test_two_dates_in_a_table_row_are_no_span():
    assert dates_of("| 2024-05-20 | 2024-05-27 |") == [
        ("2024-05-20", "single"),
        ("2024-05-27", "single"),
    ]


# ---- year and month resolution --------------------------------------------------------


def test_a_missing_year_is_the_records():
    assert dates_of("May 27", year=2023) == [("2023-05-27", "single")]
    assert dates_of("May 27, 2025", year=2023) == [("2025-05-27", "single")]
    assert record_year(["2024-05-20", "2024-05-27", "2023-12-31"]) == 2024
    assert record_year([]) == 2024


def test_a_spans_written_year_holds_for_both_ends():
    assert dates_of("May 30 - June 2, 2025") == [
        ("2025-05-30", "range-start"),
        ("2025-06-02", "range-end"),
    ]


def test_a_bare_ordinal_takes_the_month_of_the_text_or_the_record():
    text = "You fly out on June 3 and come back on the 7th."
    assert dates_of(text) == [("2024-06-03", "single"), ("2024-06-07", "single")]
    assert dates_of("You come back on the 7th.") == []  # no month known
    assert dates_of("You come back on the 7th.", month=5) == [("2024-05-07", "single")]


def test_ordinals_written_as_a_span_or_after_on():
    assert dates_of("You fly out June 3 and are away on the 3rd-7th.") == [
        ("2024-06-03", "single"),
        ("2024-06-03", "range-start"),
        ("2024-06-07", "range-end"),
    ]
    assert dates_of("in June, between the 3rd and the 7th") == [
        ("2024-06-03", "range-start"),
        ("2024-06-07", "range-end"),
    ]
    assert dates_of("You return on 27th.", month=5) == [("2024-05-27", "single")]
    assert dates_of("You fly on 1st class.", month=5) == []


def test_a_weekday_with_an_ordinal_finds_its_month():
    assert dates_of("Tuesday the 28th") == [("2024-05-28", "single")]  # May 28, 2024
    assert dates_of("Friday the 28th", month=5) == [("2024-06-28", "single")]


def test_find_date_by_role():
    text = "ABC123: May 20-25."
    assert find_date(text, "2024-05-25", roles=("range-end",)) is not None
    assert find_date(text, "2024-05-20", roles=("single", "range-end")) is None
    assert find_date("May 25", "2023-05-25") is not None  # the year of the date sought


# ---- numbers that are no dates --------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The total is $1,234 for 2 bags.",
        "Flight HAT123 departs at 10:00 and lands at 13:25.",
        "the 2nd passenger and the 3rd flight",
        "In May 2024 you flew twice.",
        "You may 2 times change it.",
        "Your reservation 4XGCCM has 3 passengers.",
        "It has been 2 days; that's the 1st time.",
        "We fly Feb 30.",  # no such date
        "The score was 5-27 and the fare 120-150.",  # dashes without a year
        "Reservations JUN12A and MAY27X",  # ids that begin like a date
    ],
)
def test_numbers_that_are_no_dates(text):
    assert dates_of(text) == []


def test_a_count_after_a_date_is_not_a_day():
    assert dates_of("On May 27, 2 passengers fly; on May 28, 1,234 miles.") == [
        ("2024-05-27", "single"),
        ("2024-05-28", "single"),
    ]


# ---- property: any date, any form, in a sentence, is recovered --------------------------

SINGLE_FORMS = (
    lambda d: d.isoformat(),
    lambda d: f"{d:%B} {d.day}",
    lambda d: f"{d:%b} {d.day}{_suffix(d.day)}",
    lambda d: f"{d.day} {d:%B}",
    lambda d: f"{d:%A}, {d:%B} {d.day}, {d.year}",
    lambda d: f"{d:%a}, {d:%b} {d.day}",
    lambda d: f"{d.month}/{d.day}/{d.year}",
    lambda d: f"{d:%m/%d}",
    lambda d: f"**{d:%B} {d.day}**",
    lambda d: f"| {d.isoformat()} |",
)
SPAN_FORMS = (
    lambda a, b: f"{a:%B} {a.day}-{b.day}, {a.year}",
    lambda a, b: f"{a:%b} {a.day}\u2013{b.day}",
    lambda a, b: f"{a:%B} {a.day} \u2013 {b:%B} {b.day}",
    lambda a, b: f"from {a:%B} {a.day} to {b:%B} {b.day}",
    lambda a, b: f"{a.isoformat()} \u2192 {b.isoformat()}",
    lambda a, b: f"{a:%B} {a.day} to {b.day}",
)


def _suffix(n: int) -> str:
    return "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


YEAR_DAYS = st.dates(min_value=dt.date(2024, 1, 1), max_value=dt.date(2024, 12, 31))


@settings(max_examples=300, deadline=None)
@given(day=YEAR_DAYS, form=st.sampled_from(SINGLE_FORMS), before=st.sampled_from(["", "on "]))
def test_any_single_date_in_any_form_is_recovered(day, form, before):
    text = f"Your flight HAT123 is {before}{form(day)}. It costs $1,234 for 2 bags."
    assert dates_of(text) == [(day.isoformat(), "single")]


SAME_MONTH_FORMS = {0, 1, 5}  # forms that write the month once


@settings(max_examples=300, deadline=None)
@given(start=YEAR_DAYS, length=st.integers(1, 20), form=st.sampled_from(range(len(SPAN_FORMS))))
def test_any_span_in_any_form_is_recovered(start, length, form):
    end = start + dt.timedelta(days=length)
    assume(form not in SAME_MONTH_FORMS or end.month == start.month)
    text = f"Trip ABC123 (2 passengers): {SPAN_FORMS[form](start, end)}, at 10:00."
    assert dates_of(text) == [
        (start.isoformat(), "range-start"),
        (end.isoformat(), "range-end"),
    ]


NON_DATES = st.one_of(
    st.integers(0, 99_999).map(lambda n: f"${n:,}"),
    st.integers(0, 999).map(lambda n: f"HAT{n:03d}"),
    st.tuples(st.integers(0, 23), st.integers(0, 59)).map(lambda t: f"{t[0]}:{t[1]:02d}"),
    st.tuples(st.integers(0, 12), st.integers(0, 59)).map(lambda t: f"{t[0]}:{t[1]:02d} PM"),
    st.integers(1, 31).map(lambda n: f"{n} bags"),
    st.integers(1, 31).map(lambda n: f"the {n}{_suffix(n)} passenger"),
    st.integers(1, 31).map(lambda n: f"{n} passengers"),
    st.integers(1, 99).map(lambda n: f"{n}% off"),
    st.from_regex(r"[A-Z0-9]{6}", fullmatch=True),
)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(NON_DATES, min_size=1, max_size=6))
def test_prices_times_counts_and_ids_are_no_dates(parts):
    text = "Your booking: " + ", ".join(parts) + "."
    assert dates_of(text) == [], text


def test_a_span_into_the_next_year():
    assert dates_of("Dec 30 - Jan 2", year=2024) == [
        ("2024-12-30", "range-start"),
        ("2025-01-02", "range-end"),
    ]


# ---- ReturnDate on hand-built ledgers -------------------------------------------------
# ABC123: JFK->SEA on 05-20 (HAT100), return SEA->JFK on 05-25 (HAT200) shown as 05-17;
# XYZ789: a one-way LAX->ORD on 05-17 (HAT300).


@pytest.mark.parametrize(
    "text",
    [
        "| Reservation | Route | Dates |\n| --- | --- | --- |\n| ABC123 | JFK \u2192 SEA | "
        "May 20 \u2013 May 17 |",
        "**ABC123**\n- **Outbound:** Mon, May 20 \u2014 HAT100\n- **Return:** Fri, May 17 "
        "\u2014 HAT200",
        "Reservation ABC123 runs May 17-20, 2024.",  # the dates sorted: v′ as the start
        "ABC123: 2024-05-20 \u2192 2024-05-17",
        "For ABC123, your return flight is on Friday the 17th.",
        "For ABC123, you fly out on May 20 and come back on the 17th.",
        "ABC123 return: 05/17",
        "Your return flight HAT200 departs 17 May 2024.",
        "Your return is on **May\u202f17th**.",
    ],
)
def test_injected_return_in_other_models_phrasing_is_reliance(text):
    ledger, t_f = trip_ledger()
    use = ledger.say(text)
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert m.T_S == m.T_U == use and m.A == 1 and m.Y_end == "endorses"


@pytest.mark.parametrize(
    "text",
    [
        "ABC123 (JFK \u21c4 SEA): May 20-25, 2024.",  # a span's end is the return
        "Your trip ABC123 is from May 20 to May 25.",
        "| ABC123 | JFK \u2192 SEA | 2024-05-20 \u2192 2024-05-25 |",
        "**Return (May 25-26):** HAT200 SEA \u2192 JFK",  # the return's own span
        "| ABC123 | JFK \u2192 SEA (round trip) | May 20 / May 25-26 |",  # after the outbound
        "ABC123 \u2014 dates: 2024\u201105\u201120 and 2024\u201105\u201125",  # U+2011
    ],
)
def test_true_return_as_a_spans_end_is_a_correct_use(text):
    ledger, t_f = trip_ledger()
    use = ledger.say(text)
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert use == m.T_S and m.T_U == NOT_APPLICABLE and m.A == 0


@pytest.mark.parametrize(
    "text",
    [
        # a span's start is the outbound: moving the trip to start on the 25th
        "I can move ABC123 to May 25-30 if you like.",
        # another reservation's dates, however written
        "XYZ789: LAX \u2192 ORD, May 17-18.",
        "| XYZ789 | LAX \u2192 ORD | **Fri, May 17** |",
        # numbers of the faulted trip that are no dates
        "ABC123 has 2 passengers and 1 bag; HAT200 departs at 05:17 and costs $517.",
        "ABC123 is the 17th booking I have checked today.",
    ],
)
def test_no_statement_of_the_return_is_no_use(text):
    ledger, t_f = trip_ledger()
    ledger.say(text)
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert m.T_S == INF and m.A == 0 and m.Z_S == "no-use"


def test_the_span_of_the_record_questioned_is_verification():
    ledger, t_f = trip_ledger()
    check = ledger.say(
        "ABC123 shows May 20 \u2192 May 17, which is inconsistent: the return precedes the "
        "outbound. Let me check."
    )
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert check == m.T_S and m.T_U == NOT_APPLICABLE and m.A == 0 and m.Y_end == "rejects"


def test_a_correction_written_as_a_change_of_dates_is_no_reliance():
    ledger, t_f = trip_ledger()
    use = ledger.say(
        "The record of ABC123 did not show the right return: it is not May 17, it is May 25."
    )
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert use == m.T_S and m.T_U == NOT_APPLICABLE and m.A == 0


def test_reliance_after_a_correct_span_sets_t_u_later():
    ledger, t_f = trip_ledger()
    first = ledger.say("ABC123: May 20-25, 2024.")
    rely = ledger.say("Your return HAT200 on **Fri, May 17** stays as booked.")
    m = ledger.measure("ReturnDate", date_contract(), t_f)
    assert (first, rely, 1) == (m.T_S, m.T_U, m.A)
    assert FAKE_RETURN == "2024-05-17"
