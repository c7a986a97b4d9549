"""Date references in agent text: every written form, with the date it denotes and its role.

Models write a date in many ways: ISO ("2024-05-27", in tables "| 2024-05-27 |"),
by month name ("May 27", "May 27th", "Sept. 3", "Mon, May 27", "Monday, May 27, 2024",
"**May 27**", "May 23 2025"), day first ("27 May", "27th of May"), numerically
("05/27", "5/27/2024"), by ordinal ("the 27th", "Tuesday the 28th"), and as spans
("June 3-7, 2024", "Jun 3–4", "May 20 – May 27", "from May 20 to May 27",
"2024-05-20 → 2024-05-27", "May 20 to 27", "27-30 May"), or lists ("May 22, 23 or 24").

This layer finds them with high recall and says, for each, the ISO date it denotes
(a missing year is the record's year, a missing month the month of the text's
nearest earlier date, or the record's), where it is written, and its role: a single
date, the start of a span or its end. It judges nothing about meaning: which
reservation a date is about, and what stating it implies, is for the operators.

Other languages' dates ("28 mai", "26. Mai", "5月26日") are read by
:mod:`sscbench.references.dates_locale`. Text is read through a same-length normalisation (typographic dashes and spaces,
such as gpt-oss's U+2011 and U+202F, become ASCII), so offsets index the original.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from sscbench.references.dates_locale import SPAN_JOIN as LOCALE_SPAN_JOIN
from sscbench.references.dates_locale import find_locale_dates

Role = Literal["single", "range-start", "range-end"]

DEFAULT_YEAR = 2024  # τ-bench's records are dated 2024


_Trie: TypeAlias = "dict[str, _Trie]"  # letter -> what may follow ("" ends a word)


def _alternation(words: Iterable[str]) -> str:
    """A regex matching any of ``words``, factored as a trie: the engine reads each
    letter once instead of trying every word at every position (several times faster)."""
    trie: _Trie = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: _Trie) -> str:
        ends = "" in node
        branches = [re.escape(c) + pattern(child) for c, child in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:
            return f"(?:{body})?"
        return body

    return pattern(trie)


_MONTHS = {
    name: number
    for number in range(1, 13)
    for name in (calendar.month_name[number].lower(), calendar.month_abbr[number].lower())
}
_MONTHS["sept"] = 9
_MONTH_WORD = _alternation(_MONTHS)
_WEEKDAYS = {
    name: number
    for number in range(7)
    for name in (calendar.day_name[number].lower(), calendar.day_abbr[number].lower())
}
_WEEKDAYS.update({"tues": 1, "wednes": 2, "thur": 3, "thurs": 3})
_WEEKDAY_WORD = _alternation(_WEEKDAYS)

_MARK = r"[*_]*"  # markdown emphasis around or inside a date
_SPACE = r"[^\S\n]*"  # a date, or a span, does not cross a line break
_GAP = rf"{_MARK}{_SPACE}{_MARK}"
_SUFFIX = r"(?:st|nd|rd|th)?"
_MONTH = rf"(?P<month>\b(?:{_MONTH_WORD}))\.?(?![a-z])"
_WEEKDAY = rf"(?:\b(?P<weekday>{_WEEKDAY_WORD})(?:day)?\.?(?![a-z]),?{_GAP})"
# a day ends the number: not a time ("May 3:00", "3 pm"), a decimal or an id ("JUN12A")
_DAY_END = r"(?![\d/a-z]|[.,:]\d)(?!\s*(?:[ap]\.?m\b|hours?\b|hrs?\b|minutes?\b))"
_YEAR = rf"(?:{_MARK}[,-]?{_GAP}(?P<year>(?:19|20)\d\d)(?!\d))"
# joins the two ends of a span: a dash, an arrow, or a word
_SPAN_JOIN = (
    rf"{_SPACE}(?:-*[>→⟶➔➜➝➞➡⇒]|=>|-{{1,2}}|~|\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b)"
    rf"{_SPACE}"
)
_LIST_JOIN = rf"(?:{_SPACE},{_SPACE}(?:(?:and|or){_SPACE})?|{_SPACE}(?:and|or|&){_SPACE})"

# nouns an ordinal counts ("the 2nd passenger"): then it is no date
_COUNTED = (
    r"passenger|traveler|traveller|person|people|guest|reservation|booking|flight|leg|segment|"
    r"stop|option|choice|item|order|bag|piece|seat|row|card|payment|attempt|time|one|day|night|"
    r"adult|child|children|infant|kid|minor|class|floor|place|number|line|entry|step|request|call|user|customer|trip|week|month|year|hour"
)
_COUNTED_NOUN = rf"(?!{_GAP}(?:{_COUNTED})s?\b)"

_ISO = re.compile(
    r"(?<![\d/.-])(?P<year>\d{4})(?P<sep>[-/.])(?P<mnum>\d{1,2})(?P=sep)(?P<day>\d{1,2})(?!\d)"
)
_MONTH_FIRST = re.compile(
    rf"\b(?=[a-z]){_WEEKDAY}?(?:the{_GAP})?{_MONTH}{_GAP}(?:the{_GAP})?(?P<day>\d{{1,2}}){_SUFFIX}{_DAY_END}"
    rf"(?P<tail>(?:{_MARK}{_SPAN_JOIN}{_MARK}(?P<end>\d{{1,2}}){_SUFFIX}{_DAY_END}{_COUNTED_NOUN}(?!{_GAP}(?:{_MONTH_WORD})\b))"
    rf"|(?:{_LIST_JOIN}{_MARK}\d{{1,2}}{_SUFFIX}{_DAY_END}{_COUNTED_NOUN})+)?{_YEAR}?",
    re.IGNORECASE,
)
_DAY_FIRST = re.compile(
    rf"\b(?=[\dmtwfs]){_WEEKDAY}?(?:the{_GAP})?(?<![\d$.,/:])(?P<day>\d{{1,2}}){_SUFFIX}"
    rf"(?:{_SPAN_JOIN}(?P<end>\d{{1,2}}){_SUFFIX})?(?:{_GAP}(?:of{_GAP})?|-){_MONTH}{_YEAR}?",
    re.IGNORECASE,
)
# "5/27", "5/27/2024", "5-27-2024" (month first, as τ-bench's users write; dashes only
# with a year, since "5-27" may be a span or a score)
_NUMERIC = re.compile(
    r"(?<![\w/$.,:])(?P<mnum>\d{1,2})(?P<sep>[/-])(?P<day>\d{1,2})"
    r"(?:(?P=sep)(?P<year>\d{4}|\d{2}))?(?![\d/]|\.\d)"
)
_ORDINAL = re.compile(
    rf"\b(?=[mtwfso]){_WEEKDAY}?(?:the{_GAP}|on{_GAP})?(?<=[\s*_a-z])(?P<day>\d{{1,2}})(?:st|nd|rd|th)\b"
    rf"(?:{_MARK}{_SPAN_JOIN}{_MARK}(?:the{_GAP})?(?P<end>\d{{1,2}})(?:st|nd|rd|th)\b)?"
    rf"{_COUNTED_NOUN}",
    re.IGNORECASE,
)
# a month named alone ("in June, on the 3rd") is the month of the ordinals after it
_MONTH_CONTEXT = re.compile(rf"\b(?:in|of|during|for|this|next){_GAP}{_MONTH}", re.IGNORECASE)
_DOTTED = re.compile(r"(?<![\w.])(?P<day>\d{1,2})\.(?P<mnum>\d{1,2})\.(?P<year>\d{4})(?![\d.]\d)")
_SPAN_BETWEEN = re.compile(rf"^{_MARK}{_SPAN_JOIN}{_MARK}$", re.IGNORECASE)
_BETWEEN_AND = re.compile(rf"^{_MARK}{_SPACE}(?:and|&){_GAP}$", re.IGNORECASE)
_BETWEEN_BEFORE = re.compile(rf"\bbetween{_SPACE}[*_]*$", re.IGNORECASE)
_NORMALISE = str.maketrans(
    {c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"}
    | {c: " " for c in "\u00a0\u2007\u2009\u200a\u202f\u205f\u3000"}
)


@dataclass(frozen=True)
class DateReference:
    """One date written in a text.

    ``iso`` is the date it denotes; ``start``/``end`` index the characters of this
    date's own part (for the end of "May 20-27", the "27"); ``expression`` is the whole
    written expression it belongs to (a span's both ends); ``role`` is "single",
    "range-start" or "range-end".
    """

    iso: str
    start: int
    end: int
    role: Role
    expression: str
    expression_start: int = -1  # where ``expression`` starts in the text


@dataclass
class _Found:
    start: int
    end: int
    year: int | None
    month: int | None
    day: int
    weekday: int | None = None
    role: Role = "single"
    group: tuple[int, int] | None = None  # the whole span expression, when part of one
    opened_by: _Found | None = None  # a span's end: its start
    foreign: bool = False  # written with a non-English month name (references/dates_locale.py)


def record_year(isos: Iterable[str], default: int = DEFAULT_YEAR) -> int:
    """The year a record's dates share (the most common), to resolve dates written without one."""
    years = [int(iso[:4]) for iso in isos if re.fullmatch(r"\d{4}-\d\d-\d\d", iso or "")]
    return max(set(years), key=years.count) if years else default


def find_date_references(
    text: str, year: int = DEFAULT_YEAR, month: int | None = None
) -> list[DateReference]:
    """Every date written in ``text``, in order of position.

    ``year`` resolves dates written without one (the record's year, see
    :func:`record_year`); ``month`` resolves a bare ordinal ("the 27th") when the text
    gives no month before it. A date that does not exist (Feb 30) is no reference.
    """
    return list(_references(text, year, month))


@functools.lru_cache(maxsize=4096)
def _references(text: str, year: int, month: int | None) -> tuple[DateReference, ...]:
    """find_date_references, cached: an operator asks of one message several times."""
    norm = text.translate(_NORMALISE)
    found = _explicit_dates(norm) + _ordinal_dates(norm)
    found = _without_overlaps(found)
    _pair_spans(norm, found)
    references = []
    previous_month = month
    named = [
        (m.start(), _MONTHS[m["month"].lower().rstrip(".")]) for m in _MONTH_CONTEXT.finditer(norm)
    ]
    for item in found:
        for _, named_month in (x for x in named if x[0] < item.start):
            previous_month = named_month
        named = [x for x in named if x[0] >= item.start]
        iso = _resolve(item, year, previous_month)
        if iso is None:
            continue
        previous_month = int(iso[5:7])
        lo, hi = item.group or (item.start, item.end)
        references.append(DateReference(iso, item.start, item.end, item.role, text[lo:hi], lo))
    return tuple(references)


def read_date_spans(text: str, year: int = DEFAULT_YEAR) -> list[tuple[int, int, str]]:
    """(start, end, iso) of every date read in ``text``, any language, with the span of its
    whole expression (both ends of "May 20-27" carry that of "May 20-27"): which
    date-shaped tokens of a text were read."""
    refs = find_date_references(text, year)
    return [(r.expression_start, r.expression_start + len(r.expression), r.iso) for r in refs]


def find_date(
    text: str,
    iso: str,
    roles: Iterable[Role] = ("single", "range-start", "range-end"),
    year: int | None = None,
) -> DateReference | None:
    """The first reference in ``text`` to the date ``iso`` in one of ``roles``, or None.

    The year and the default month of the search are those of ``iso`` unless ``year``
    is given: a text about a record of 2024 writes "May 27" for 2024-05-27.
    """
    wanted = set(roles)
    target_year = year if year is not None else int(iso[:4])
    for reference in find_date_references(text, target_year, int(iso[5:7])):
        if reference.iso == iso and reference.role in wanted:
            return reference
    return None


def _explicit_dates(text: str) -> list[_Found]:
    """Dates with a month (by name or number): ISO, month first, day first, numeric."""
    out: list[_Found] = []
    for match in _ISO.finditer(text):
        out.append(_found(match, int(match["year"]), int(match["mnum"])))
    for match in _MONTH_FIRST.finditer(text):
        if match["month"] == "may" or not _is_month_word(match["month"]):
            continue  # the modal verb "may"
        out.extend(_month_first(match))
    for match in _DAY_FIRST.finditer(text):
        if match["month"] == "may" or not _is_month_word(match["month"]):
            continue
        out.extend(_day_first(match))
    for match in _DOTTED.finditer(text):  # "27.05.2024": day first
        out.append(_numeric_date(match, int(match["year"])))
    for match in _NUMERIC.finditer(text):
        if match["sep"] == "-" and (match["year"] is None or len(match["year"]) != 4):
            continue
        out.append(_numeric_date(match, _numeric_year(match["year"])))
    return out + _locale_dates(text)


def _locale_dates(text: str) -> list[_Found]:
    """Dates written with another language's month name, or in CJK (references/dates_locale.py)."""
    out: list[_Found] = []
    for d in find_locale_dates(text):
        found = _Found(d.start, d.end, d.year, d.month, d.day, d.weekday, foreign=True)
        if d.role == "range-end" and d.group is not None and out:
            out.extend(_as_span(out.pop(), found, d.group))
        else:
            out.append(found)
    return out


def _numeric_date(match: re.Match[str], year: int | None) -> _Found:
    """A date written in numbers, read in the pattern's order unless that names no month
    ("27/05", "05.27.2024": the other order)."""
    found = _found(match, year, int(match["mnum"]))
    if found.month is not None and found.month > 12 >= found.day:
        found.month, found.day = found.day, found.month
    return found


def _is_month_word(word: str) -> bool:
    return word.lower().rstrip(".") in _MONTHS


def _found(match: re.Match[str], year: int | None, month: int) -> _Found:
    weekday = match.groupdict().get("weekday")
    return _Found(
        match.start(),
        match.end(),
        year,
        month,
        int(match["day"]),
        _WEEKDAYS[weekday.lower()] if weekday else None,
    )


def _numeric_year(written: str | None) -> int | None:
    if written is None:
        return None
    return int(written) if len(written) == 4 else 2000 + int(written)


def _month_first(match: re.Match[str]) -> list[_Found]:
    """A month-first date, or the span or list of days it opens ("May 20-27", "May 22, 23")."""
    month = _MONTHS[match["month"].lower().rstrip(".")]
    year = int(match["year"]) if match["year"] else None
    first_end = match.end("day") if match["tail"] else match.end()
    first = _Found(match.start(), first_end, year, month, int(match["day"]))
    first.weekday = _found(match, year, month).weekday
    if match["end"] is not None:
        end = _Found(match.start("end"), match.end("end"), year, month, int(match["end"]))
        if end.day < first.day:
            end.month = month % 12 + 1  # "May 30-2": the span crosses into the next month
        return _as_span(first, end, (match.start(), match.end()))
    items = [first]
    if match["tail"]:
        offset = match.start("tail")
        for day in re.finditer(r"\d{1,2}", match["tail"]):
            items.append(
                _Found(offset + day.start(), offset + day.end(), year, month, int(day.group()))
            )
    return items


def _day_first(match: re.Match[str]) -> list[_Found]:
    """A day-first date ("27 May", "27th of May 2024") or span ("27-30 May")."""
    month = _MONTHS[match["month"].lower().rstrip(".")]
    year = int(match["year"]) if match["year"] else None
    first = _found(match, year, month)
    if match["end"] is None:
        return [first]
    first.end = match.end("day")
    end = _Found(match.start("end"), match.end(), year, month, int(match["end"]))
    return _as_span(first, end, (match.start(), match.end()))


def _as_span(first: _Found, last: _Found, group: tuple[int, int]) -> list[_Found]:
    first.role, last.role = "range-start", "range-end"
    first.group = last.group = group
    last.opened_by = first
    return [first, last]


def _ordinal_dates(text: str) -> list[_Found]:
    """Ordinals without a month: "the 27th", "on the 20th-27th", "Tuesday the 28th"
    (the month is resolved later, from the text or the record)."""
    out: list[_Found] = []
    for m in _ORDINAL.finditer(text):
        first = _Found(m.start(), m.end(), None, None, int(m["day"]), _weekday(m))
        if m["end"] is None:
            out.append(first)
            continue
        first.end = m.end("day") + 2
        last = _Found(m.start("end"), m.end(), None, None, int(m["end"]))
        out.extend(_as_span(first, last, (m.start(), m.end())))
    return out


def _weekday(match: re.Match[str]) -> int | None:
    word = match["weekday"]
    return _WEEKDAYS[word.lower()] if word else None


def _without_overlaps(found: list[_Found]) -> list[_Found]:
    """Keep the earliest, then longest, reading of overlapping text (a span's parts together)."""

    def extent(item: _Found) -> tuple[int, int]:
        return item.group or (item.start, item.end)

    ordered = sorted(found, key=lambda f: (extent(f)[0], -extent(f)[1], f.start))
    kept: list[_Found] = []
    taken_until = -1
    current_group: tuple[int, int] | None = None
    for item in ordered:
        lo, hi = extent(item)
        if lo >= taken_until or (item.group is not None and item.group == current_group):
            kept.append(item)
            taken_until = max(taken_until, hi)
            current_group = item.group
    return sorted(kept, key=lambda f: f.start)


def _pair_spans(text: str, found: list[_Found]) -> None:
    """Mark two adjacent single dates joined by a span word as a span's start and end
    ("May 20 – May 27", "from May 20 to May 27", "between May 20 and May 27")."""
    for first, last in itertools.pairwise(found):
        if first.role != "single" or last.role != "single":
            continue
        gap = text[first.end : last.start]
        joined = (
            _SPAN_BETWEEN.match(gap)
            or (_BETWEEN_AND.match(gap) and _BETWEEN_BEFORE.search(text[: first.start]))
            or ((first.foreign or last.foreign) and LOCALE_SPAN_JOIN.match(gap))
        )
        if not joined:
            continue
        if last.year is None and first.year is not None:
            last.year = first.year
        if first.year is None and last.year is not None:
            first.year = last.year
        _as_span(first, last, (first.start, last.end))


def _resolve(item: _Found, year: int, context_month: int | None) -> str | None:
    """The ISO date of a found reference, or None when it names no real date."""
    month = item.month
    if month is None:
        month = _month_of_ordinal(item, year, context_month)
        if month is None:
            return None
    try:
        day = dt.date(item.year or year, month, item.day)
    except ValueError:
        return None
    opened = item.opened_by
    # "Dec 30 - Jan 2" enters a new year; "May 20 - May 17" is written backwards
    enters_new_year = opened is not None and (opened.month or month) - month >= 6
    if item.year is None and enters_new_year:
        day = _next_year(day) or day
    return day.isoformat()


def _next_year(day: dt.date) -> dt.date | None:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:
        return None


def _month_of_ordinal(item: _Found, year: int, context_month: int | None) -> int | None:
    """The month of a bare ordinal: the context's, or the nearest month whose day has the
    weekday written with it ("Tuesday the 28th")."""
    if item.weekday is None:
        return context_month
    start = context_month or 1
    for offset in (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6):
        month = (start - 1 + offset) % 12 + 1
        try:
            if dt.date(year, month, item.day).weekday() == item.weekday:
                return month
        except ValueError:
            continue
    return context_month
