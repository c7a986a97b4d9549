"""How agent text and call arguments speak of a round trip's return date (ReturnDate).

The readers of :mod:`sscbench.faults.operators.return_date`, kept apart so each
principle is one function:

* a date stated as the return: the injected date in any role, the true date alone or
  as a span's end (:func:`states_injected_date`, :func:`states_true_return`);
* a date stated as the clock ("The current time is May 15, 2024") is no date of any
  reservation (:func:`without_clock`);
* a call's arguments carry the return date when they bind a date to a return leg: by
  the reservation, a return flight number or a return route (:func:`leg_dates`);
* a date derived from the return by the shift the user asked for ("move my return back
  by one day": the return ± 1 day) is a use of the date it derives from
  (:func:`requested_shifts`, :func:`shifted`);
* a checking word bears on the value only near it: in the sentence that states it or
  one beside it (:func:`around`), not "Let me check the cancellation eligibility"
  three lines away;
* a sentence saying a trip has "the same (travel) dates" restates the dates of the
  reservation the text is about (:data:`SAME_DATES`).
"""

from __future__ import annotations

import datetime as dt
import re

from sscbench.core.view import LedgerView
from sscbench.json_types import JsonMapping
from sscbench.references.dates import find_date, find_date_references


def split_legs(reservation: JsonMapping) -> tuple[list[int], list[int]]:
    """Indices of outbound and return legs of a round trip (return starts at the destination)."""
    flights = reservation.get("flights")
    flights = flights if isinstance(flights, list) else []
    for index, leg in enumerate(flights):
        if index and isinstance(leg, dict) and leg.get("origin") == reservation.get("destination"):
            return list(range(index)), list(range(index, len(flights)))
    return list(range(len(flights))), []


SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s+|\n+")


def sentences(text: str) -> list[str]:
    """The sentences and lines of a text, each whole."""
    return [x for x in SENTENCE_BREAK.split(text) if x]


def return_sentences(text: str) -> str:
    """The sentences and lines of a text that speak of the return (one a line)."""
    return "\n".join(x for x in sentences(text) if re.search(r"\breturn", x, re.IGNORECASE))


# ---- the clock ------------------------------------------------------------------------

_CLOCK = re.compile(
    r"\b(?:(?:the\s+)?current\s+(?:time|date)(?:\s+is|:)|today(?:'s\s+date)?\s+is|"
    r"the\s+date\s+today\s+is|it\s+is\s+(?:now|currently))[\s*_,]*",
    re.IGNORECASE,
)


def without_clock(text: str, year: int) -> str:
    """``text`` with every date stated as the current time blanked (same length).

    "The current time is May 15, 2024" states the clock, not a reservation's date: the
    date right after the phrase is no reference to any flight.
    """
    spans = []
    for match in _CLOCK.finditer(text):
        for reference in find_date_references(text[match.end() :], year):
            if reference.start <= 12:  # the clock's own date, after a weekday at most
                spans.append((match.end() + reference.start, match.end() + reference.end))
            break
    for lo, hi in spans:
        text = text[:lo] + " " * (hi - lo) + text[hi:]
    return text


# ---- dates stated as the return -------------------------------------------------------


def states_injected_date(text: str, injected: str, year: int) -> str | None:
    """The expression stating the injected date, in any role: the record shows v′ only as
    the return, so a text writing it, alone or as either end of a span, took it from there."""
    reference = find_date(text, injected, year=year)
    return reference.expression if reference else None


def states_true_return(
    text: str, true: str, year: int, outbound_dates: set[str], ambiguous: bool
) -> str | None:
    """The expression stating the true return date as the return.

    A span's end is the return of a round trip and its start the outbound ("ABC123:
    May 20-25"), so the true date counts alone or as a span's end. As a span's start it
    counts where the span is the return's own (its legs overnight): in a sentence about
    the return ("Return (May 25-26)"), or after the outbound's date ("May 20 / May
    25-26"). When an outbound leg flies on the true date too, only a sentence about the
    return says anything of it.
    """
    in_return_sentence = find_date(return_sentences(text), true, year=year)
    if in_return_sentence is not None or ambiguous:
        return in_return_sentence.expression if in_return_sentence else None
    references = find_date_references(text, year, int(true[5:7]))
    for index, reference in enumerate(references):
        if reference.iso != true:
            continue
        after_outbound = any(r.iso in outbound_dates for r in references[:index])
        if reference.role != "range-start" or after_outbound:
            return reference.expression
    return None


PAST = re.compile(
    r"\b(already (?:departed|flown|flew|left|taken off|took off|happened|passed|been used|used|"
    r"completed)|ha(?:s|ve) (?:already )?(?:departed|flown|taken off)|(?:\w+ )?days? ago|"
    r"in the past)\b",
    re.IGNORECASE,
)


def flown(text: str, return_flights: set[str]) -> str | None:
    """A sentence saying the return (by word or flight number) has already flown."""
    for sentence in sentences(text):
        about = re.search(r"\breturn", sentence, re.IGNORECASE) or any(
            f and f in sentence for f in return_flights
        )
        match = PAST.search(sentence) if about else None
        if match:
            return match.group(0)
    return None


# ---- checking words near the value ----------------------------------------------------


def around(text: str, span: str, isos: set[str], year: int) -> str:
    """Every sentence of ``text`` stating the value (the expression ``span`` or a date in
    ``isos``), with the sentences either side of each: where a checking word ("Is that
    correct?", "that cannot be right") bears on the value."""
    parts = sentences(text)
    keep: set[int] = set()
    for index, sentence in enumerate(parts):
        states = span.lower() in sentence.lower() or any(
            r.iso in isos for r in find_date_references(sentence, year)
        )
        if states:
            keep |= {index - 1, index, index + 1}
    if not keep:
        return text
    return "\n".join(x for i, x in enumerate(parts) if i in keep)


SAME_DATES = re.compile(r"\bsame\s+(?:travel\s+|flight\s+|trip\s+)?dates?\b", re.IGNORECASE)


# ---- call arguments -------------------------------------------------------------------


def leg_dates(arguments: JsonMapping, routes: set[str], return_flights: set[str]) -> set[str]:
    """Dates a call's arguments bind to a return leg: a flight or a search given a return
    flight number or a return route, at the top level or in a list of flights
    (get_flight_status(HAT200, date), search_direct_flight(SEA, JFK, date),
    book_reservation(flights=[{SEA→JFK, date}]))."""
    flights = arguments.get("flights")
    items = (
        [arguments, *(f for f in flights if isinstance(f, dict))]
        if isinstance(flights, list)
        else [arguments]
    )
    out = set()
    for item in items:
        route = f"{item.get('origin')}-{item.get('destination')}"
        number = str(item.get("flight_number") or "").upper()
        bound = (number and number in return_flights) or route in routes
        date = item.get("date")
        if bound and isinstance(date, str):
            out.add(date)
    return out


# ---- dates derived by the user's requested shift --------------------------------------

_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_COUNT = r"(?:\d|a|an|one|two|three|four|five)"
_SHIFT = re.compile(
    rf"\bby\s+(?P<by>{_COUNT})\s+days?\b|"
    rf"\b(?P<n>{_COUNT})\s+days?\s+(?:later|earlier|after|before|sooner)\b|"
    r"\bthe\s+(?P<one>next|following|previous|prior)\s+day\b|\bthe\s+day\s+(?P<adj>after|before)\b",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[.;!?\n]|,\s*(?:and|but)\b|\band\s+also\b", re.IGNORECASE)
_RETURN_WORD = re.compile(r"\b(?:return\w*|inbound|coming back|way back)\b", re.IGNORECASE)


def requested_shifts(view: LedgerView, before: int) -> set[int]:
    """The day counts by which a user message before ``before`` asked to move the return
    ("move my return flight back by one day", "return two days later": {1}, {2})."""
    out: set[int] = set()
    for event in view.messages:
        if event.role != "user" or event.step >= before:
            continue
        for clause in _CLAUSE.split(event.content or ""):
            if not _RETURN_WORD.search(clause):
                continue
            for match in _SHIFT.finditer(clause):
                n = match["by"] or match["n"]
                if match["one"] or match["adj"]:
                    out.add(1)
                elif n:
                    out.add(int(n) if n.isdigit() else _NUMBERS[n.lower()])
    return out


def shifted(date: str, shifts: set[int]) -> set[str]:
    """``date`` moved by each of ``shifts`` days, either way."""
    day = dt.date.fromisoformat(date)
    return {(day + dt.timedelta(days=s * sign)).isoformat() for s in shifts for sign in (1, -1)}
