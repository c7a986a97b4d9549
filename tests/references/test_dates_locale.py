"""Dates in other languages (references/dates_locale.py, names from CLDR through Babel): each
language's forms read to the right day, spans to their two ends, and foreign words that
are months elsewhere read as dates only beside a day number."""

from __future__ import annotations

import datetime as dt

import pytest
from babel.dates import format_date

from sscbench.references.date_names import locale_names
from sscbench.references.dates import find_date_references, read_date_spans
from sscbench.references.text import render


def _read(text: str) -> list[tuple[str, str]]:
    return [(r.iso, r.role) for r in find_date_references(text)]


SINGLE = "single"
START, END = "range-start", "range-end"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("retour le 26 mai", [("2024-05-26", SINGLE)]),
        ("départ le 1er juin 2024", [("2024-06-01", SINGLE)]),
        ("le vol du lundi 27 mai", [("2024-05-27", SINGLE)]),
        ("28–29 mai", [("2024-05-28", START), ("2024-05-29", END)]),
        ("du 28 au 29 mai", [("2024-05-28", START), ("2024-05-29", END)]),
        ("du 28 mai au 2 juin", [("2024-05-28", START), ("2024-06-02", END)]),
        ("el 26 de mayo de 2024", [("2024-05-26", SINGLE)]),
        ("el 1º de junio", [("2024-06-01", SINGLE)]),
        ("del 28 al 29 de mayo", [("2024-05-28", START), ("2024-05-29", END)]),
        ("Rückflug am 26. Mai 2024", [("2024-05-26", SINGLE)]),
        ("vom 28. bis 29. Mai", [("2024-05-28", START), ("2024-05-29", END)]),
        ("Sonntag, 26. Mai", [("2024-05-26", SINGLE)]),
        ("il 28 set", [("2024-09-28", SINGLE)]),
        ("ritorno il 26 maggio", [("2024-05-26", SINGLE)]),
        ("volta em 26 de maio de 2024", [("2024-05-26", SINGLE)]),
        ("terugvlucht op 26 mei", [("2024-05-26", SINGLE)]),
        ("powrót 26 maja", [("2024-05-26", SINGLE)]),
        ("обратный рейс 26 мая 2024 г.", [("2024-05-26", SINGLE)]),
        ("с 28 по 29 мая", [("2024-05-28", START), ("2024-05-29", END)]),
        ("2024. május 26.", [("2024-05-26", SINGLE)]),
        ("5月26日", [("2024-05-26", SINGLE)]),
        ("2024年5月26日に戻ります", [("2024-05-26", SINGLE)]),
        ("5月28日～29日", [("2024-05-28", START), ("2024-05-29", END)]),
        ("5월 26일", [("2024-05-26", SINGLE)]),
        ("retour le 26 fevrier", [("2024-02-26", SINGLE)]),  # accents stripped
        ("RETOUR LE 26 FÉVRIER", [("2024-02-26", SINGLE)]),  # case-folded
    ],
)
def test_dates_in_other_languages(text, want):
    assert _read(text) == want


@pytest.mark.parametrize(
    "text",
    [
        "set the return date",  # Italian "set" (September), no day number beside it
        "mai is a French word",
        "Ich fliege im Mai",  # a month without a day names no date
        "choose 1 set of towels",  # a count of a noun
        "3 out of 4 flights",  # an English word, never a foreign name
        "it costs 100 yen",
        "Passengers:\n1. Anya Garcia\n2. Mei Lee\n",  # a numbered list, not "2. Mei" (May)
        "listopad 12",  # November in Polish, October in Croatian: dropped
    ],
)
def test_foreign_words_that_are_no_dates(text):
    assert _read(text) == []


def test_a_german_day_at_the_start_of_a_line_is_a_date_outside_a_list():
    assert _read("Hinflug:\n20. Mai – HAT041") == [("2024-05-20", SINGLE)]


@pytest.mark.parametrize("language", ["fr", "es", "de", "it", "pt", "nl", "cs", "ru", "ja", "sv"])
@pytest.mark.parametrize("width", ["long", "full", "medium"])
def test_every_day_of_the_year_as_cldr_writes_it(language, width):
    """Babel's own long, full and medium forms, every 11th day of 2024, read back (Czech
    medium, "1. 1. 2024", names no month: the numeric reader's, not this one's)."""
    if (language, width) == ("cs", "medium"):
        pytest.skip("numeric with spaces: no month name")
    for ordinal in range(1, 366, 11):
        day = dt.date(2024, 1, 1) + dt.timedelta(days=ordinal - 1)
        text = f"Return: {format_date(day, width, locale=language)}."
        assert [r.iso for r in find_date_references(text)] == [day.isoformat()], text


def test_english_text_reads_as_before():
    """English names are not in the foreign tables: English rules alone read them."""
    months, weekdays = locale_names()
    assert not {"may", "june", "sept", "mar"} & set(months)
    assert not {"monday", "sun", "sat"} & set(weekdays)
    assert _read("I may be 5 minutes late; May 27") == [("2024-05-27", SINGLE)]


def test_read_date_spans_gives_each_date_with_its_whole_expression():
    text = "Return May 20-27, then du 28 mai au 2 juin;"
    spans = [(text[a:b], iso) for a, b, iso in read_date_spans(text)]
    assert spans == [
        ("May 20-27", "2024-05-20"),
        ("May 20-27", "2024-05-27"),
        ("28 mai au 2 juin", "2024-05-28"),
        ("28 mai au 2 juin", "2024-06-02"),
    ]


def test_the_text_layer_writes_a_foreign_dates_dots_as_spaces():
    """A sentence cut at dots must not cut "26. Mai" in two; offsets stay; English stays."""
    text = "Return on 17. Mai 2024. Then 28.–29. Mai. Sept. 3 and May 2. Then"
    plain = render(text)
    assert len(plain) == len(text)
    assert plain.startswith("Return on 17  Mai 2024. Then 28 –29  Mai. Sept. 3 and May 2. Then")
    assert [r.iso for r in find_date_references(plain)] == [
        r.iso for r in find_date_references(text)
    ]
