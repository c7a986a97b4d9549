"""Metamorphic check: the development corpora with their dates and payment category
words written in French, Spanish, German and Russian measure the same.

Every assistant message of every labelled run is rewritten: each date the text writes
with a month name or in ISO form (with its weekday, its year, a span's both ends, a
list's days) is written as CLDR writes it in the language (Babel's ``format_skeleton``
and ``format_interval``: "26 mai", "26–29 de mayo", "So., 26. Mai 2024",
"26 мая — 2 июн. 2024 г."), and each payment category word as the language names it
(``references/locale_words.py``: "carte cadeau", "tarjetas de crédito", "Gutschein",
"кредитная карта"). The rest stays English: the check is on reading dates and
categories in another language, not on reading another language's sentences. Every
quantity (T_F, T_E, T_S, T_U, A, Z_S, Y_end) must equal the measurement of the text as
written (which equals the hand labels).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable

import pytest
from babel.dates import format_date, format_interval, format_skeleton

from sscbench.core.ledger import AssistantEvent
from sscbench.measure.study import measure_run
from sscbench.references.dates import DateReference, find_date_references
from sscbench.references.locale_words import WORDS
from sscbench.study.ledgers import read_ledger, read_run_evaluator
from test_metamorphic import QUANTITIES, _corpora, _measured

LANGUAGES = ("fr", "es", "de", "ru")
_ISO = re.compile(r"^\d{4}-\d\d-\d\d$")
_MONTH_WORD = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.IGNORECASE
)
_WEEKDAY_WORD = re.compile(r"^\W*(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_SUFFIX = re.compile(r"(?:st|nd|rd|th)\b")
_THE = re.compile(r"the[\s*_]+", re.IGNORECASE)
_CATEGORY = re.compile(
    r"(?<![_\w])(?:(?P<credit_card>credit[ -]?cards?)|(?P<gift_card>gift[ -]?cards?)"
    r"|(?P<certificate>(?:travel )?certificates?|travel vouchers?))\b",
    re.IGNORECASE,
)


def _written(expression: str) -> bool:
    """A date written with a month name or in ISO form (not "the 27th", not "5/27"), or a
    day of a list after one ("May 22, 23 or 24": "23")."""
    day = _SUFFIX.sub("", expression)
    return bool(_MONTH_WORD.search(expression) or _ISO.match(expression)) or day.isdigit()


def _date_text(refs: list[DateReference], expression: str, language: str) -> str:
    """The expression of ``refs`` (one date, or a span's two ends) as ``language`` writes it."""
    days = [dt.date.fromisoformat(r.iso) for r in refs]
    year = "y" if _YEAR.search(expression) or _ISO.match(expression) else ""
    if len(days) == 2 and days[0] != days[1]:
        return format_interval(days[0], days[1], f"{year}MMMMd", locale=language)
    if not _WEEKDAY_WORD.match(expression):
        return format_skeleton(f"{year}MMMMd", days[0], locale=language)
    written = format_skeleton(f"{year}MMMMEd", days[0], locale=language)  # "lun. 20 mai"
    short, wide = (format_date(days[0], width, locale=language) for width in ("E", "EEEE"))
    return written.replace(short, wide, 1)  # "lundi 20 mai"


def dates_translated(text: str, language: str) -> str:
    """Every month-named or ISO date of ``text`` written in ``language`` (CLDR forms)."""
    spans: dict[tuple[int, int], list[DateReference]] = {}
    for ref in find_date_references(text):
        lo = ref.expression_start
        spans.setdefault((lo, lo + len(ref.expression)), []).append(ref)
    for (lo, hi), refs in sorted(spans.items(), reverse=True):
        suffix = _SUFFIX.match(text, hi)  # "May 10th and 11th": the suffix goes too
        hi = suffix.end() if suffix else hi
        article = _THE.match(text, lo, hi)  # "The May 17 conflict": the article stays
        lo = article.end() if article else lo
        if _written(text[lo:hi]):
            text = text[:lo] + _date_text(refs, text[lo:hi], language) + text[hi:]
    return text


def categories_translated(text: str, language: str) -> str:
    """Every payment category word of ``text`` written in ``language``, singular or plural
    as written, capitalised as written."""

    def word(match: re.Match[str]) -> str:
        category = next(k for k, v in match.groupdict().items() if v)
        singular, plural = WORDS[category][language]
        english = match.group(0)
        out = plural if english.lower().endswith("s") else singular
        return out[0].upper() + out[1:] if english[0].isupper() else out

    return _CATEGORY.sub(word, text)


def translated(text: str, language: str) -> str:
    """A message with its dates and category words in ``language`` (JSON stays JSON)."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        indent = 2 if "\n" in text.strip() else None
        leaves = {k: translated(v, language) if isinstance(v, str) else v for k, v in data.items()}
        return json.dumps(leaves, ensure_ascii=False, indent=indent)
    return categories_translated(dates_translated(text, language), language)


def _measured_in(study, cases, run_id: str, rewrite: Callable[[str], str]) -> dict:
    entry = next(e for e in study.read_index() if e.run_id == run_id)
    ledger = [
        e.model_copy(update={"content": rewrite(e.content)})
        if isinstance(e, AssistantEvent) and e.content
        else e
        for e in read_ledger(study, run_id)
    ]
    row = measure_run(cases[entry.case_id], ledger, read_run_evaluator(study, run_id)).columns()
    return {q: row.get(q) for q in QUANTITIES}


@pytest.fixture(scope="module")
def corpora(taubench, tmp_path_factory):
    """The development corpora, run once: (study, cases, faulted run ids) each."""
    return _corpora(taubench, tmp_path_factory)


@pytest.mark.parametrize("language", LANGUAGES)
def test_translated_dates_and_categories_leave_every_quantity_unchanged(corpora, language):
    """Each language, exhaustively over the corpora, listing every run it moves."""
    moved = []
    for study, cases, runs in corpora:
        for run_id in runs:
            want = _measured(study, cases, run_id, [])
            got = _measured_in(study, cases, run_id, lambda t: translated(t, language))
            if got != want:
                moved.append(
                    f"{run_id}: "
                    + ", ".join(f"{q} {want[q]}→{got[q]}" for q in QUANTITIES if got[q] != want[q])
                )
    assert not moved, "\n".join(moved)


def test_the_translation_changes_the_text():
    """The rewrite is no identity on the forms it targets (the test could fail)."""
    sample = (
        "Return: 2024-05-27. Outbound Monday, May 20; return May 28-29, 2024.\n"
        "Paid with your Gift Card and two travel certificates, not the credit card."
    )
    french = translated(sample, "fr")
    assert "27 mai 2024" in french and "lundi 20 mai" in french
    assert "Carte cadeau" in french and "certificats" in french and "carte de crédit" in french
    russian = translated(sample, "ru")
    assert "мая" in russian and "кредитная карта" in russian
    for language in LANGUAGES:
        text = translated(sample, language)
        assert "May" not in text and "card" not in text.lower()
        isos = [r.iso for r in find_date_references(text)]
        assert isos == [r.iso for r in find_date_references(sample)], language
