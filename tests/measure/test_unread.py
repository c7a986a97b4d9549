"""Unread marks on hand-built ledgers: one section per reason kind, each with positive and
negative controls, and the row format (``unread``, ``unread_steps`` last; older rows read
as "not checked").

Every made-up word here ("Zorvember", "zorpl", "Flumbrik", "glorbo") is one no reader
will ever learn, so these tests hold after the readers learn real languages and forms.
"""

from __future__ import annotations

import json

import pytest

from sscbench.faults.registry import get_measured_operator
from sscbench.measure.unread import UnreadMark, is_foreign
from sscbench.measure.vocabulary import Vocabulary
from sscbench.study.rows import UNREAD_KINDS, Measurement, MeasurementRow
from test_payment_references import faulted
from test_realtext_rules_records import trip_ledger

CARD = "gift_card_7156512"  # $90 gift card, shown flipped to a credit card


def pay_marks(*texts: str) -> tuple[list[int], Measurement]:
    ledger, t_f, contract = faulted(CARD)
    steps = [ledger.say(text) for text in texts]
    return steps, ledger.measure("PaySource", contract, t_f)


def date_marks(text: str) -> tuple[int, Measurement]:
    ledger, t_f = trip_ledger()
    from test_realtext_rules_records import date_contract

    step = ledger.say(text)
    return step, ledger.measure("ReturnDate", date_contract(), t_f)


def kinds(m: Measurement) -> list[str]:
    return [mark.kind for mark in m.unread_steps]


def test_the_kinds_are_a_fixed_documented_set():
    assert UNREAD_KINDS == (
        "unresolved-mention",
        "unparsed-value",
        "foreign-text",
        "unclassified-call",
    )


# ---- unparsed-value: a value-shaped token no reader consumed ------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Your return flight is on Zorvember 17.",
        "The return leg departs 17 Zorvember 2024.",
        "Return: 17-Zorvember",
    ],
)
def test_a_date_with_an_unknown_month_word_is_an_unparsed_value(text):
    step, m = date_marks(text)
    assert m.T_S == "inf"  # no reader could read it: the measurement says no use …
    assert "unparsed-value" in kinds(m)  # … and the mark says why that may be wrong
    assert all(mark.step == step for mark in m.unread_steps)


@pytest.mark.parametrize(
    "text",
    [
        "Your return flight is on May 17.",
        "I have 3 bags and 2 passengers on 17 May.",
        "It costs $90 and takes 2 hours.",
    ],
)
def test_values_the_readers_know_carry_no_mark(text):
    _, m = date_marks(text)
    assert m.unread_steps == []


@pytest.mark.parametrize("text", ["Your return is on 28-29 zorvem.", "The return is on 17 brumik."])
def test_a_day_beside_a_rare_word_is_an_unparsed_value(text):
    """A word no reader knows after a day may be a month in a form the date reader lacks:
    marked until the date reader reads it."""
    _, m = date_marks(text)
    assert kinds(m) == ["unparsed-value"]


@pytest.mark.parametrize("text", ["Your return is on 28-29 mai.", "The return is on 17 mayo."])
def test_a_foreign_month_the_date_reader_reads_is_consumed(text):
    """The residual principle: once the date reader reads a form (CLDR month names), its
    span is consumed and the same text carries no mark."""
    _, m = date_marks(text)
    assert m.unread_steps == []


def test_a_day_of_a_date_read_is_not_marked_by_the_word_after_it():
    _, m = date_marks("The return on May 28 unchanged, outbound 2024-05-20 outbound too.")
    assert m.unread_steps == []


def test_a_number_in_an_invented_unit_is_an_unparsed_value():
    _, m = pay_marks("The card holds 90 zorpl of credit.")
    assert "unparsed-value" in kinds(m)


# ---- unresolved-mention: the entity named beside a word no reader knows -------------


def test_the_entity_named_beside_an_unknown_word_is_an_unresolved_mention():
    steps, m = pay_marks("Your glorbo card ending in 512 has $90 left.")
    assert m.T_S == "inf"
    assert [(x.step, x.kind) for x in m.unread_steps] == [(steps[0], "unresolved-mention")]


def test_an_unknown_word_away_from_the_entity_is_no_mention():
    _, m = pay_marks("Thanks, Flumbrik is a lovely name for a dog.")
    assert "unresolved-mention" not in kinds(m)


def test_a_word_the_model_was_shown_is_known():
    """Context words (from observations, the user, the system prompt) are never unknown."""
    ledger, t_f, contract = faulted(CARD, opening="I want to book with my Zorbcard, please.")
    ledger.say("Your Zorbcard gift card ending in 512 has $90 left.")
    assert ledger.measure("PaySource", contract, t_f).unread_steps == []


# ---- foreign-text: a language the readers have no forms for --------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "Zorvak plimt du flarnesh ki votrumel gliss.",  # an invented language
        "Zorvak plimt du flarnesh 90 ki votrumel gliss 512.",
        "Ваш обратный рейс запланирован на семнадцатое.",  # another script
    ],
)
def test_a_sentence_in_a_language_without_forms_is_foreign(sentence):
    assert is_foreign(sentence, Vocabulary())
    _, m = pay_marks(sentence)
    assert kinds(m) == ["foreign-text"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Your gift card ending in 512 has $90 left.",
        "| HAT023 | JFK | SFO | $364 |",  # codes are not a language
        "Zorvak, thanks!",  # too short to tell
        "Flight HAT023 JFK to SFO, economy, 2 passengers.",
    ],
)
def test_english_and_codes_are_not_foreign(sentence):
    assert not is_foreign(sentence, Vocabulary())


# ---- unclassified-call: a call or handoff carrying the entity with no use read --------


def test_a_payment_with_the_method_and_no_use_read_is_an_unclassified_call():
    ledger, t_f, contract = faulted(CARD)
    step = ledger.call("book_reservation", {"user_id": "mia_li_3668", "payment_id": CARD}, "{}")
    m = ledger.measure("PaySource", contract, t_f)
    assert ("unclassified-call", step - 1) in [(x.kind, x.step) for x in m.unread_steps]
    assert m.unread_steps[0].span.startswith("book_reservation(")


def test_a_call_with_another_method_or_a_retrieval_is_not_marked():
    ledger, t_f, contract = faulted(CARD)
    ledger.call("book_reservation", {"payment_id": "gift_card_5094406"}, "{}")
    ledger.call("get_user_details", {"user_id": "mia_li_3668"}, "{}")
    assert ledger.measure("PaySource", contract, t_f).unread_steps == []


def test_an_operator_without_fact_arguments_marks_no_call():
    ledger, t_f = trip_ledger()
    from test_realtext_rules_records import date_contract

    ledger.call("update_reservation_baggages", {"reservation_id": "ABC123", "total": 1}, "{}")
    assert get_measured_operator("ReturnDate").fact_argument_keys == ()
    assert ledger.measure("ReturnDate", date_contract(), t_f).unread_steps == []


def test_a_handoff_stating_the_value_with_no_use_read_is_an_unclassified_call():
    """A summary naming the entity and one of the fact's values, from which no use was
    extracted: the measurement could not tell what it says of the fact."""
    ledger, t_f, contract = faulted(CARD)
    ledger.call(
        "transfer_to_human_agents",
        {"summary": f"User asks about {CARD}; gift card or credit card, unclear."},
        "Transfer successful",
    )
    m = ledger.measure("PaySource", contract, t_f)
    assert m.evidence.uses == []
    assert [(x.kind, x.step) for x in m.unread_steps] == [("unclassified-call", t_f + 1)]
    assert m.unread_steps[0].span.startswith("transfer_to_human_agents: User asks about")


def test_a_handoff_whose_use_was_read_is_not_marked():
    ledger, t_f, contract = faulted(CARD)
    ledger.call(
        "transfer_to_human_agents",
        {"summary": f"Refund to {CARD} - credit card."},
        "Transfer successful",
    )
    m = ledger.measure("PaySource", contract, t_f)
    assert m.evidence.uses and m.unread_steps == []


def test_a_handoff_naming_the_entity_without_a_value_is_not_marked():
    ledger, t_f, contract = faulted(CARD)
    ledger.call(
        "transfer_to_human_agents",
        {"summary": f"User wants a refund to {CARD} and a human agent."},
        "Transfer successful",
    )
    assert ledger.measure("PaySource", contract, t_f).unread_steps == []


# ---- determinism, residual, and the row format -----------------------------------------


def test_marks_are_deterministic_and_before_t_f_nothing_is_marked():
    ledger, t_f, contract = faulted(CARD)
    ledger.events.insert(2, ledger.events[1].model_copy(update={"content": "Zorvember 17"}))
    for i, event in enumerate(ledger.events):
        ledger.events[i] = event.model_copy(update={"step": i})
    t_f += 1
    ledger.say("Your return is on Zorvember 17; 90 zorpl left.")
    first = ledger.measure("PaySource", contract, t_f).unread_steps
    assert first == ledger.measure("PaySource", contract, t_f).unread_steps
    assert all(mark.step > t_f for mark in first)


def test_a_span_is_short_and_the_columns_come_last():
    steps, m = pay_marks("Zorvak plimt du flarnesh ki votrumel gliss " * 10)
    row = m.columns()
    assert list(row)[-2:] == ["unread", "unread_steps"]
    assert row["unread"] == len(row["unread_steps"]) == 1
    mark = row["unread_steps"][0]
    assert set(mark) == {"step", "kind", "span"} and len(mark["span"]) <= 120
    assert mark["step"] == steps[0]


def test_older_rows_without_the_columns_read_as_not_checked():
    run = {"run_id": "r", "case_id": "c", "config_id": "a", "repetition": 0}
    old = MeasurementRow.from_line(
        json.dumps({**run, "kind": "faulted", "status": "completed", "T_F": 3, "Z_S": "pre"})
    )
    assert old.unread_count() is None and not old.has("unread")
    new = MeasurementRow.of({**old.columns(), "unread": 0, "unread_steps": []})
    assert new.unread_count() == 0
    again = MeasurementRow.from_line(new.line())
    assert again.line() == new.line() and again.unread_steps == []


def test_a_mark_row_is_step_kind_span():
    mark = UnreadMark(4, "foreign-text", "x" * 300)
    assert mark.row().columns() == {"step": 4, "kind": "foreign-text", "span": "x" * 119 + "…"}
