"""Month and weekday names of every well-described locale, from CLDR through Babel.

The English names stay in :mod:`sscbench.references.dates` (read anywhere); these tables add
every other language's names, which :mod:`sscbench.references.dates_locale` accepts only in a
date context (beside a day number), since many are common words elsewhere ("mai",
"set", "mar").

Built once, lazily: for each locale whose CLDR data is complete enough to name the
world's territories and languages (about 130 languages, CLDR's modern coverage), the
wide and abbreviated month and weekday names, format and stand-alone forms,
case-folded, with and without accents. A name is dropped when it

* maps to different months (or weekdays) in different locales ("listopad": November
  in Polish, October in Croatian); a weekday name that is also a month name of some
  locale (Gaelic "DiC", Wednesday, is Spanish "dic", December) stays a month only;
* is an English name (the English tables read those, with their own rules);
* holds a digit (CJK "5月": read by the 年/月/日 pattern instead) or has fewer than
  three letters;
* is an English word that follows a number in English text (``ENGLISH_WORDS``: "5 pm",
  "1 set", "3 out of 4"): beside a day number it would read as a date.
"""

from __future__ import annotations

import calendar
import functools
import unicodedata
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel import Locale

# English words that are also a month or weekday name of some locale and may follow a
# number in English text ("3 out of 4", "100 yen", "2 sat"): never read as foreign names
# (shorter names are dropped anyway: "2 pm", "3 ms")
ENGLISH_WORDS = frozenset(
    {
        "can",
        "des",
        "dis",
        "few",
        "fur",
        "gor",
        "elo",
        "here",
        "ion",
        "kol",
        "led",
        "mac",
        "mae",
        "mas",
        "mee",
        "nob",
        "now",
        "nun",
        "out",
        "pay",
        "pom",
        "pro",
        "sat",
        "see",
        "sen",
        "sun",
        "tem",
        "ton",
        "tra",
        "tub",
        "was",
        "way",
        "win",
        "xin",
        "yen",
    }
)
_MIN_LETTERS = 3
ENGLISH_MONTHS = {
    name: number
    for number in range(1, 13)
    for name in (calendar.month_name[number].lower(), calendar.month_abbr[number].lower())
} | {"sept": 9}


def fold(word: str) -> str:
    """A name as the tables key it: case-folded, trailing dot dropped."""
    return word.casefold().rstrip(".")


def strip_accents(word: str) -> str:
    """``word`` without combining marks ("février" → "fevrier", "März" → "marz")."""
    decomposed = unicodedata.normalize("NFKD", word)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c))
    )


def _locales() -> list[Locale]:
    """Babel locales of languages with full display-name data (CLDR modern coverage)."""
    from babel import Locale, localedata

    out = []
    for identifier in localedata.locale_identifiers():
        if "_" in identifier:
            continue  # a territory's variant: its language's names already count
        locale = Locale.parse(identifier)
        if len(locale.territories) > 200 and len(locale.languages) > 300:
            out.append(locale)
    return out


def _english(names: Iterable[str]) -> set[str]:
    return {fold(n) for n in names if n}


def _unambiguous(pairs: Iterable[tuple[str, int]], excluded: set[str]) -> dict[str, int]:
    """Each name with its one number; names with several, or excluded, are dropped."""
    seen: dict[str, set[int]] = {}
    for name, number in pairs:
        for form in {name, strip_accents(name)}:
            seen.setdefault(form, set()).add(number)
    return {
        name: numbers.pop()
        for name, numbers in seen.items()
        if len(numbers) == 1
        and name not in excluded
        and not any(c.isdigit() for c in name)
        and sum(c.isalpha() for c in name) >= _MIN_LETTERS
    }


def _names(table: Mapping[str, Mapping[str, Mapping[int, str]]]) -> Iterable[tuple[str, int]]:
    for context in ("format", "stand-alone"):
        for width in ("wide", "abbreviated"):
            for number, name in table.get(context, {}).get(width, {}).items():
                yield fold(name), number


@functools.cache
def locale_names() -> tuple[dict[str, int], dict[str, int]]:
    """(months: name → 1..12, weekdays: name → 0..6 with Monday 0) of every locale but
    English, unambiguous, built once from CLDR (see the module doc)."""
    months, weekdays = _tables()
    return (
        {n: m for n, m in months.items() if n not in ENGLISH_WORDS},
        {n: d for n, d in weekdays.items() if n not in ENGLISH_WORDS},
    )


@functools.cache
def framed_month_names() -> dict[str, int]:
    """Month names that are also English words ("out", Portuguese October): read only in
    another language's frame ("2 de out. de 2024"), never beside a bare number."""
    return {n: m for n, m in _tables()[0].items() if n in ENGLISH_WORDS}


@functools.cache
def _tables() -> tuple[dict[str, int], dict[str, int]]:
    month_pairs: list[tuple[str, int]] = []
    weekday_pairs: list[tuple[str, int]] = []
    for locale in _locales():
        month_pairs.extend(_names(locale.months))
        weekday_pairs.extend(_names(locale.days))
    english = set(ENGLISH_MONTHS)
    english |= _english(calendar.day_name) | _english(calendar.day_abbr)
    both = {n for n, _ in month_pairs} & {n for n, _ in weekday_pairs}
    months = _unambiguous(month_pairs, english)
    weekdays = _unambiguous(weekday_pairs, english | both)
    return months, weekdays
