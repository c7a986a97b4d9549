"""Dates written in other languages: a day number beside a month name of any locale.

"28 mai", "26. Mai 2024", "26 de mayo de 2024", "26 мая", "1er juin", "1º de junio",
"lundi 26 mai" (a weekday before), spans "28–29 mai", "du 28 au 29 mai",
"del 28 al 29 de mayo", "vom 28. bis 29. Mai", "с 28 по 29 мая", month first where a
language writes so ("május 26."), and CJK "2024年5月26日", "5月28日～29日", "5월 26일".

The names are CLDR's (:func:`sscbench.references.date_names.locale_names`); a name counts only
beside a day number, so a word that is also a month elsewhere ("set", "mai") is no date
when no number stands by it. English names are not read here: :mod:`sscbench.references.dates`
reads them, and this layer adds to it (text without a foreign name reads as before).

Each date is a :class:`LocaleDate`, a span's two ends two of them sharing ``group``.
Text is the caller's same-length normalisation (dashes as "-").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from sscbench.references.date_names import ENGLISH_MONTHS, fold, framed_month_names, locale_names

_SP = r"[^\S\n]*"
_LETTERS = r"[^\W\d_]+"
# ordinal marks after a day: French 1er/1re, Romance 1º/1ª/1°, German "1.", Russian 1-го
_ORD = r"(?:er|re|º|ª|°|\.|-?го)?"
_DAY_END = r"(?!\d|[.,:]\d)"
_JOIN = rf"{_SP}(?:-{{1,2}}|~|\b(?:au|à|al|a|bis|tot|do|hasta|till|til|to|jusqu'au|по|до)\b){_SP}"
_YEAR = rf"(?:{_SP},?{_SP}(?:(?:de|del|di|of)[^\S\n]+)?(?P<year>(?:19|20)\d\d)(?!\d))"
_DAY_FIRST = re.compile(
    rf"(?<![\w.,/:$€])(?P<day>\d{{1,2}})(?P<mark>{_ORD}){_DAY_END}"
    rf"(?:(?P<join>{_JOIN})(?P<end>\d{{1,2}}){_ORD}{_DAY_END})?"
    # a day and its month name: a space between, unless a mark ends the day ("26.Mai")
    rf"(?:(?<=\d)[^\S\n]+|(?<!\d){_SP})"
    rf"(?P<connector>(?:de|del|di|of)[^\S\n]+|d')?(?P<month>{_LETTERS})\.?(?![^\W\d_])"
    rf"(?!{_SP}(?:of|out of)\b){_YEAR}?"  # "1 set of": a count of a noun, not a date
)
# month first: only a full word (four letters or more), and the year may come first
_MONTH_FIRST = re.compile(
    rf"(?:(?P<year>(?:19|20)\d\d)\.?{_SP})?(?<![\w.])(?P<month>[^\W\d_]{{4,}})\.?{_SP}"
    rf"(?P<day>\d{{1,2}}){_ORD}{_DAY_END}"
    rf"(?:(?P<join>{_JOIN})(?P<end>\d{{1,2}}){_ORD}{_DAY_END})?"
)
_CJK_DAY = r"[日일号號]"
_CJK = re.compile(
    rf"(?:(?P<year>\d{{4}}){_SP}[年년]{_SP})?(?P<mnum>\d{{1,2}}){_SP}[月월]{_SP}"
    rf"(?P<day>\d{{1,2}}){_SP}{_CJK_DAY}"
    rf"(?:{_SP}(?:[-~～〜至到]|から){_SP}(?:(?P<mnum2>\d{{1,2}}){_SP}[月월]{_SP})?"
    rf"(?P<end>\d{{1,2}}){_SP}{_CJK_DAY})?"
)
_WEEKDAY_BEFORE = re.compile(
    rf"(?<![\w])(?P<weekday>{_LETTERS})\.?,?{_SP}(?:(?:le|el|den|der|am|il|lo|o){_SP})?$"
)
# typographic dashes and spaces as ASCII, same length (as references/dates.py reads text)
_DASHES_AND_SPACES = str.maketrans(
    {c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"}
    | {c: " " for c in "\u00a0\u2007\u2009\u200a\u202f\u205f\u3000"}
)
_WORD_BEFORE = re.compile(r"([^\W\d_]+)\.?[*_]*[^\S\n]*[*_]*$")
_LIST_LINE = re.compile(r"[ \t]*(\d{1,3})\.\s")
# a list of dates: "22 mai, 23 mai ou 24 mai 2025" (the last one's year is every one's)
_LIST_GAP = re.compile(
    rf"^[*_]*{_SP}(?:,{_SP}(?:(?:and|or|et|ou|y|o|e|und|oder|и|или){_SP})?"
    rf"|(?:and|or|et|ou|y|o|e|und|oder|и|или){_SP})[*_]*$"
)
# words that join two foreign dates into a span ("28 mai au 2 juin", "vom 28. Mai bis 2. Juni")
SPAN_JOIN = re.compile(rf"^[*_]*{_JOIN}[*_]*$")


@dataclass(frozen=True)
class LocaleDate:
    """One date written with a foreign month name (or in CJK numerals' frame): where,
    which day, and, for a span's end or start, its role and the span's extent."""

    start: int
    end: int
    year: int | None
    month: int
    day: int
    weekday: int | None = None
    role: str = "single"
    group: tuple[int, int] | None = None


def find_locale_dates(text: str) -> list[LocaleDate]:
    """Every date ``text`` writes with a non-English month name beside a day number, or
    in the CJK 年/月/日 frame, in order of position (spans as two dates)."""
    months, _ = locale_names()
    out: list[LocaleDate] = []
    for pattern in (_DAY_FIRST, _MONTH_FIRST):
        for match in pattern.finditer(text):
            month = months.get(fold(match["month"])) or _english_in_frame(match)
            if (
                month is not None
                and not _list_number(text, match)
                and not _after_month(text, match)
            ):
                out.extend(_dates(match, text, month, month))
    for match in _CJK.finditer(text) if "月" in text or "월" in text else ():
        month = int(match["mnum"])
        out.extend(_dates(match, text, month, int(match["mnum2"] or month)))
    return _list_years(text, sorted(out, key=lambda d: d.start))


def _list_years(text: str, found: list[LocaleDate]) -> list[LocaleDate]:
    """A year written after the last date of a list is every earlier one's."""
    out = list(found)
    for i in range(len(out) - 2, -1, -1):
        this, then = out[i], out[i + 1]
        gap = text[this.end : then.start]
        if this.year is None and then.year is not None and _LIST_GAP.match(gap):
            out[i] = replace(this, year=then.year)
    return out


def plain_date_dots(text: str) -> str:
    """``text`` with the dots inside dates of other languages ("26. Mai", "28.-29. Mai",
    "2 июн. 2024", "2024. május 26") as spaces, same length: a reader that cuts sentences
    at dots must not cut a date in two. A date's last dot is kept (it may end a sentence)."""
    if "." not in text:
        return text
    chars = list(text)
    for date in find_locale_dates(text.translate(_DASHES_AND_SPACES)):
        lo, hi = date.group or (date.start, date.end)
        for at in range(lo, hi - 1):
            if chars[at] == ".":
                chars[at] = " "
    return "".join(chars)


def _dates(match: re.Match[str], text: str, month: int, end_month: int) -> list[LocaleDate]:
    year = int(match["year"]) if match["year"] else None
    start = match.start()
    weekday = _weekday_before(text, start)
    if weekday is not None:
        start = weekday[0]
    day = LocaleDate(start, match.end(), year, month, int(match["day"]), weekday and weekday[1])
    if match["end"] is None:
        return [day]
    group = (start, match.end())
    first_end = match.start("join") if match.re is not _CJK else match.end("day") + 1
    last = LocaleDate(match.start("end"), match.end(), year, end_month, int(match["end"]))
    return [
        LocaleDate(start, first_end, year, month, day.day, day.weekday, "range-start", group),
        LocaleDate(last.start, last.end, year, end_month, last.day, None, "range-end", group),
    ]


def _english_in_frame(match: re.Match[str]) -> int | None:
    """An English-spelled name, or one that is an English word, in another language's
    frame, which the English reader leaves: "9. April" (German), "1 de jan. de 2024" and
    "2 de out. de 2024" (Portuguese), "1 may 2024" (Spanish "may" with a year; alone,
    the English modal)."""
    if match.re is not _DAY_FIRST:
        return None
    name = fold(match["month"])
    connected = (match["connector"] or "of").strip() != "of"
    if connected:  # "2 de out. de 2024": even a name that is an English word
        return ENGLISH_MONTHS.get(name) or framed_month_names().get(name)
    if match["mark"] or (name == "may" and match["year"]):
        return ENGLISH_MONTHS.get(name)
    return None


def _after_month(text: str, match: re.Match[str]) -> bool:
    """The day follows an English month name ("May 17. Here …"): it is that date's day."""
    if match.re is not _DAY_FIRST:
        return False
    before = _WORD_BEFORE.search(text, max(0, match.start() - 14), match.start())
    return before is not None and fold(before.group(1)) in ENGLISH_MONTHS


def _list_number(text: str, match: re.Match[str]) -> bool:
    """A number with a dot that opens a line of a numbered list ("1. Anya Garcia\n2. Mei
    Lee": a line beside it opens with the next or previous number), not a German or
    Nordic day ("2. Mai", "- 26. Mai: HAT023")."""
    day_start, day_end = match.start("day"), match.end("day")
    if text[day_end : day_end + 1] != ".":
        return False
    line_start = text.rfind("\n", 0, day_start) + 1
    if text[line_start:day_start].strip():
        return False
    before = text[text.rfind("\n", 0, max(line_start - 1, 0)) + 1 : line_start]
    line_end = text.find("\n", day_end)
    after = text[line_end + 1 :] if line_end >= 0 else ""
    number = int(match["day"])
    for line, neighbour in ((before, number - 1), (after, number + 1)):
        opened = _LIST_LINE.match(line)
        if opened and int(opened.group(1)) == neighbour:
            return True
    return False


def _weekday_before(text: str, start: int) -> tuple[int, int] | None:
    """(where it starts, which) of a weekday name written just before ``start``."""
    _, weekdays = locale_names()
    lo = max(0, start - 40)
    match = _WEEKDAY_BEFORE.search(text, lo, start)
    if match is None:
        return None
    weekday = weekdays.get(fold(match["weekday"]))
    return None if weekday is None else (match.start(), weekday)
