"""Maintained date parsers against sscbench's own date layer (references/dates.py) on real text.

Two tasks, each on hand-labelled lines:

- finding: a line of agent text (from the τ² recordings of claude-opus-4-6 and
  gpt-oss-120b, ../shared/tau2-trajectories, plus the forms the measurement must
  read) → every date it writes, a span's two ends included. Recall over the labelled
  dates; "wrong" counts dates returned that the line does not write (a time, a price
  or a flight number read as a date, a wrong year or day).
- normalising: one date expression, already isolated → its date.

A missing year is τ-bench's (2024): each parser gets 2024-05-15 as its base date.

Usage: pip install dateparser datefinder parsedatetime ctparse python-dateutil
       PYTHONPATH=src python benchmarks/date_parsers.py
"""

from __future__ import annotations

import datetime as dt
import time
import warnings
from collections import Counter
from collections.abc import Callable

from sscbench.references.dates import find_date_references

BASE = dt.datetime(2024, 5, 15, 15, 0)
Y = "2024-"

# (line, dates it writes); lines 1-70 are a seeded random sample of date-bearing lines
FINDING: list[tuple[str, list[str]]] = [
    ("- HAT010: ATL → MCO on May 22, 2024 ($109)", [Y + "05-22"]),
    ("| **May 10** | 5BGGWZ | EWR → DFW | Economy |", [Y + "05-10"]),
    ("- **Flights:** HAT202 (EWR→MIA) and HAT232 (MIA→LAX) on May 21 (unchanged)", [Y + "05-21"]),
    (
        "The current time is May 15, 2024 at 3:00 PM, which means the reservation was made more "
        "than 24 hours ago.",
        [Y + "05-15"],
    ),
    ("- **Flights:** HAT188 (EWR→IAH) and HAT207 (IAH→EWR) on May 28, 2024", [Y + "05-28"]),
    ("- It was booked on **May 2**, which is more than 24 hours ago", [Y + "05-02"]),
    ("- HAT097: DTW → PHX on 2024-05-17", [Y + "05-17"]),
    ("- **Outbound (May 20):** HAT041 — EWR→LAX, 7:00am–12:30pm, **$86**", [Y + "05-20"]),
    (
        "Here is the cost breakdown for a **new reservation** in **economy cabin** on the nonstop "
        "flight **EWR → LAX** (flight\u202fHAT041, May\u202f21):",
        [Y + "05-21"],
    ),
    ("- **Return flight:** HAT112 (IAH → LAS, May 27) — unchanged", [Y + "05-27"]),
    ("- HAT005 (LAS→ATL, May 20): $65 → $166 per passenger", [Y + "05-20"]),
    (
        "- **Return (May 19-20):** LGA → PHX (HAT002) → DTW (HAT106) — one stop via PHX",
        [Y + "05-19", Y + "05-20"],
    ),
    (
        "1. **UDMOP1** – Basic economy, round trip SFO → PHX/PHL → SFO, May 28-29 (1 passenger: "
        "Amelia Davis)",
        [Y + "05-28", Y + "05-29"],
    ),
    ("Sure! Your other flight on May 17 is reservation **9HBUV8**:", [Y + "05-17"]),
    (
        "**Option 2:** HAT112 (IAH→LAS, May 24) + HAT047 (LAS→SEA, May 25)",
        [Y + "05-24", Y + "05-25"],
    ),
    ("- **Return:** HAT278 — SFO → IAH on 2024-05-23 (4:00 PM EST)", [Y + "05-23"]),
    ("- Flights: HAT248 (MSP→DTW) and HAT119 (DTW→ORD) on May 26, 2024", [Y + "05-26"]),
    (
        "I found it! Your ORD to PHL flight on May 10 was flight **HAT271**. Let me now check if "
        "that flight is available on May 26.",
        [Y + "05-10", Y + "05-26"],
    ),
    ("- **Created:** May 12, 2024", [Y + "05-12"]),
    ("| May\u202f24 | HAT901 | 01:45\u202fpm | 05:00\u202fpm | $540 |", [Y + "05-24"]),
    ("- **Outbound flights (May 23):**", [Y + "05-23"]),
    ("- **Outbound:** HAT266, LAS → IAH, May 19 at 1:00 PM EST (direct)", [Y + "05-19"]),
    ("- **May\u202f24:** $295", [Y + "05-24"]),
    ("- **Flight:** HAT268, JFK → ATL on May 24, 2024", [Y + "05-24"]),
    (
        "Let me pull up your account details and search for available flights on that route for "
        "May 20th.",
        [Y + "05-20"],
    ),
    (
        "| **PUNERT** | Boston → Denver (May\u202f22) | change of plan / duplicate bookings |",
        [Y + "05-22"],
    ),
    (
        "| **HSR97W** | Chicago → Philadelphia → San\u202fFrancisco (May\u202f22) | change of plan",
        [Y + "05-22"],
    ),
    ("- **Return:** HAT112, IAH → LAS, May 27 (unchanged)", [Y + "05-27"]),
    (
        "* Search for direct (or one‑stop) flights on **May\u202f20** departing after "
        "**11\u202fa.m.\u202fEST**.",
        [Y + "05-20"],
    ),
    ("| Itinerary (May\u202f21) | Cabin | Total price (3 passengers) |", [Y + "05-21"]),
    (
        "- **New flight:** HAT041 (EWR→LAX nonstop), departing 7:00 AM, arriving 12:30 PM on May 21",
        [Y + "05-21"],
    ),
    (
        "- **Route:** LAS → PHX → IAH (one-stop outbound on May 19) and IAH → LAS (direct return on "
        "May 27)",
        [Y + "05-19", Y + "05-27"],
    ),
    (
        "I'd be happy to help you book a one-way flight from New York to Seattle on May 20th!",
        [Y + "05-20"],
    ),
    ("- **Booking created:** May 14, 2024 at 9:52 AM", [Y + "05-14"]),
    ("| May\u202f29 | HAT904 | 09:20\u202fam | 12:35\u202fpm | $515 |", [Y + "05-29"]),
    ("- Created on May 12", [Y + "05-12"]),
    (
        "1. ❌ **Booked within the last 24 hours** — Your booking was made on May 5, 2024",
        [Y + "05-05"],
    ),
    (
        "Let me search for available flights on May 24 for both destinations. I'll check both "
        "direct and one-stop options.",
        [Y + "05-24"],
    ),
    (
        "Here are the available economy flights on\u202fMay\u202f26\u202ffrom ORD to PHL that can "
        "accommodate **both** passengers:",
        [Y + "05-26"],
    ),
    (
        "I found several one-stop economy flight options on **May 24, 2024**. Here are the options "
        "sorted by total economy price:",
        [Y + "05-24"],
    ),
    (
        "Here are the one‑stop itineraries that have enough economy seats for both passengers on "
        "**May\u202f28**:",
        [Y + "05-28"],
    ),
    (
        "2. **LU15PA** (SFO → PHX → SFO, May 23) – ✅ Business class, can be cancelled.",
        [Y + "05-23"],
    ),
    ("- **Date:**\u202fMay\u202f27\u202f2024", [Y + "05-27"]),
    ("**May 22 conflict:**", [Y + "05-22"]),
    ("- **Flights:** HAT097 + HAT251 on 2024-05-17", [Y + "05-17"]),
    (
        "Once I have those, I’ll check the details and let you know what nonstop options are "
        "available for May\u202f21.",
        [Y + "05-21"],
    ),
    ("- **May 10**: EWR → DFW (5BGGWZ)", [Y + "05-10"]),
    ("- **Return (May 25):** HAT276 — SEA→JFK, 6:00pm–12:00am+1, **$55**", [Y + "05-25"]),
    ("- HAT251: PHX → SEA on 2024-05-17", [Y + "05-17"]),
    (
        "| **Current trip** | Round‑trip, JFK → SFO (May\u202f26) and SFO → JFK (May\u202f28), "
        "**basic\u202feconomy** |",
        [Y + "05-26", Y + "05-28"],
    ),
    ("- Outbound: Flight HAT188 on May 28, 2024", [Y + "05-28"]),
    ("- **May\u202f23:** $275", [Y + "05-23"]),
    (
        "* You need a flight **Dallas\u202f→\u202fNew\u202fYork on\u202fMay\u202f17** – that is "
        "covered by reservation **5BGGWZ**.",
        [Y + "05-17"],
    ),
    ("- **Booked on:** 2024-05-11", [Y + "05-11"]),
    (
        "Let me check the flight status for reservation A90KR2, since it was scheduled for May 14 "
        "(yesterday):",
        [Y + "05-14"],
    ),
    ("- **Outbound:** HAT023 (JFK → SFO) on May 26", [Y + "05-26"]),
    ("- HAT021: SEA → JFK (May 26)", [Y + "05-26"]),
    (
        "1. **Update passenger**: Change Ivan Garcia (1960-12-01) → Omar Rossi (1970-06-06)",
        ["1960-12-01", "1970-06-06"],
    ),
    (
        "- **Different connections:** The search results already cover all available one-stop "
        "connections for May 24, and there are no other options.",
        [Y + "05-24"],
    ),
    ("**Option 1:** HAT190 + HAT047 (both May 24)", [Y + "05-24"]),
    (
        "- **Outbound (May 20):** HAT041 — EWR→LAX, 7:00am–12:30pm, **$86** (basic economy)",
        [Y + "05-20"],
    ),
    (
        "3. **XAZ3C0** – ATL → CLT (May 27) – Basic economy, 2 passengers, no insurance",
        [Y + "05-27"],
    ),
    ("2. Kevin Smith (DOB: 2001-04-12)", ["2001-04-12"]),
    ("Flight **HAT271** is available on May 26! Here are the details:", [Y + "05-26"]),
    ("- **Flight:** HAT285 on May 17, 2024", [Y + "05-17"]),
    ("**Reservation details (Option\u202fB – May\u202f28,\u202f2024)**", [Y + "05-28"]),
    (
        "- **Return:** HAT204 (SFO → SEA) + HAT100 (SEA → JFK) on May 28 — $507/person",
        [Y + "05-28"],
    ),
    ("- Not booked within the last 24 hours (booked May 12)", [Y + "05-12"]),
    ("- **Return (May 28):** DEN → LAS (HAT084) → IAH (HAT266)", [Y + "05-28"]),
    ("| HAT021 | SEA→JFK | May 26 | $148 (original price kept) |", [Y + "05-26"]),
    # harder real lines: spans, lists, typographic dashes, years without a comma
    ("| **May 27-28** | MFRB94 | MCO → PHX → LGA | Business |", [Y + "05-27", Y + "05-28"]),
    (
        "**Reservation 4XGCCM (IAH → DTW):** The flights were on May 3-4, which have already "
        "passed.",
        [Y + "05-03", Y + "05-04"],
    ),
    (
        "| Flights are scheduled for\u202fMay\u202f28\u202f–\u202fMay\u202f30. | No. |",
        [Y + "05-28", Y + "05-30"],
    ),
    (
        "| **MFRB94** |\u202fMay\u202f27‑30\u202f2024 – Various (MCO‑PHX‑LGA‑PHX‑MCO) |",
        [Y + "05-27", Y + "05-30"],
    ),
    (
        "1. **Move the existing outbound legs (IAH\u202f→\u202fLAS and LAS\u202f→\u202fSEA) from "
        "May\u202f23 to May\u202f24**, and",
        [Y + "05-23", Y + "05-24"],
    ),
    (
        "our system does not have any direct or one‑stop flights from **JFK to SFO** on the dates "
        "you mentioned (May 22, 23, 24, 25, 26 or 27 2025).",
        ["2025-05-22", "2025-05-23", "2025-05-24", "2025-05-25", "2025-05-26", "2025-05-27"],
    ),
    (
        "Which day would work best for you: **May 23 2025** or **May 25 2025**?",
        ["2025-05-23", "2025-05-25"],
    ),
    (
        "there are no available flights on the dates you requested (June 15 2025 SFO → JFK and "
        "June 22 2025 JFK → SFO).",
        ["2025-06-15", "2025-06-22"],
    ),
    (
        "reservation 3RK2T9 was created on **May 2, 2024 at 6:02:56 AM**, which is over 13 days "
        "ago",
        [Y + "05-02"],
    ),
    (
        "(reservation WUNA5K, ORD↔PHL on May 10-11) both landed successfully",
        [Y + "05-10", Y + "05-11"],
    ),
    (
        "I notice the flights on this reservation are dated May 13 and May 14, which are in the "
        "past (today is May 15).",
        [Y + "05-13", Y + "05-14", Y + "05-15"],
    ),
    # forms the measurement must read (the brief's list)
    ("**Return:** Sat, May 25", [Y + "05-25"]),
    ("Your new return is Monday, May 27, 2024.", [Y + "05-27"]),
    ("You come back Tuesday the 28th.", [Y + "05-28"]),
    ("| ABC123 | 2024-05-27 | $120 |", [Y + "05-27"]),
    ("Your return is on Sept. 3.", [Y + "09-03"]),
    ("Return date: 5/27/2024", [Y + "05-27"]),
    ("Trip dates: June 3-7, 2024", [Y + "06-03", Y + "06-07"]),
    ("ABC123: 2024-05-20 → 2024-05-27", [Y + "05-20", Y + "05-27"]),
    ("You travel May 20 to 27.", [Y + "05-20", Y + "05-27"]),
    ("You return on the 27th of May.", [Y + "05-27"]),
]

NORMALISING: list[tuple[str, str]] = [
    ("2024-05-27", "2024-05-27"),
    ("May 27", "2024-05-27"),
    ("May 27th", "2024-05-27"),
    ("27 May", "2024-05-27"),
    ("27th of May", "2024-05-27"),
    ("Mon, May 27", "2024-05-27"),
    ("Monday, May 27, 2024", "2024-05-27"),
    ("05/27", "2024-05-27"),
    ("5/27/2024", "2024-05-27"),
    ("Jun 3", "2024-06-03"),
    ("Jun. 3", "2024-06-03"),
    ("Sept. 3", "2024-09-03"),
    ("**May 27**", "2024-05-27"),
    ("May\u202f27\u202f2024", "2024-05-27"),
    ("May 23 2025", "2025-05-23"),
    ("May 28,\u202f2024", "2024-05-28"),
    ("Sat, May 25", "2024-05-25"),
    ("Tuesday the 28th", "2024-05-28"),
    ("the 27th", "2024-05-27"),
    ("December 1st, 2023", "2023-12-01"),
]


def ours(text: str) -> list[str]:
    return [r.iso for r in find_date_references(text, 2024, 5)]


def with_dateparser() -> Callable[[str], list[str]]:
    from dateparser.search import search_dates

    settings = {"RELATIVE_BASE": BASE, "PREFER_DATES_FROM": "current_period"}

    def find(text: str) -> list[str]:
        found = search_dates(text, languages=["en"], settings=settings) or []
        return [d.date().isoformat() for _, d in found]

    return find


def with_datefinder() -> Callable[[str], list[str]]:
    import datefinder

    return lambda text: [d.date().isoformat() for d in datefinder.find_dates(text, base_date=BASE)]


def with_dateutil() -> Callable[[str], list[str]]:
    from dateutil import parser

    def find(text: str) -> list[str]:
        try:
            return [parser.parse(text, fuzzy=True, default=BASE).date().isoformat()]
        except (ValueError, OverflowError):
            return []

    return find


def with_parsedatetime() -> Callable[[str], list[str]]:
    import parsedatetime

    calendar = parsedatetime.Calendar(version=parsedatetime.VERSION_CONTEXT_STYLE)

    def find(text: str) -> list[str]:
        found = calendar.nlp(text, sourceTime=BASE) or ()
        return [d.date().isoformat() for d, flags, *_ in found if flags.hasDate]

    return find


def with_ctparse() -> Callable[[str], list[str]]:
    from ctparse import ctparse

    def find(text: str) -> list[str]:
        result = ctparse(text, ts=BASE, timeout=1.0)
        value = getattr(result, "resolution", None)
        out = []
        for part in (getattr(value, "start", None), getattr(value, "end", None), value):
            if getattr(part, "year", None) and getattr(part, "month", None) and part.day:
                out.append(dt.date(part.year, part.month, part.day).isoformat())
        return list(dict.fromkeys(out))

    return find


CANDIDATES: dict[str, Callable[[], Callable[[str], list[str]]]] = {
    "sscbench references/dates.py": lambda: ours,
    "dateparser (search_dates)": with_dateparser,
    "datefinder": with_datefinder,
    "python-dateutil (fuzzy)": with_dateutil,
    "parsedatetime (nlp)": with_parsedatetime,
    "ctparse": with_ctparse,
}


def score(find: Callable[[str], list[str]], labelled: list[tuple[str, list[str]]]):
    """(found, labelled, wrong, µs per text) of one finder on labelled lines."""
    hit = total = wrong = 0
    started = time.perf_counter()
    for text, gold in labelled:
        try:
            got = Counter(find(text))
        except Exception:  # a parser's crash is a miss, counted as such
            got = Counter()
        want = Counter(gold)
        hit += sum((got & want).values())
        total += sum(want.values())
        wrong += sum((got - want).values())
    elapsed = (time.perf_counter() - started) / len(labelled) * 1e6
    return hit, total, wrong, elapsed


SAMPLED = 70  # FINDING's first lines: the random sample; the rest chosen for their form


def main() -> None:
    warnings.simplefilter("ignore")
    normalising = [(text, [iso]) for text, iso in NORMALISING]
    print(
        f"finding: {SAMPLED} sampled lines + {len(FINDING) - SAMPLED} chosen lines; "
        f"normalising: {len(NORMALISING)} expressions\n"
    )
    print(
        "| candidate | recall, sampled lines | recall, spans/lists/forms | wrong dates "
        "| µs per line | normalising (wrong) | µs per expression |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, build in CANDIDATES.items():
        try:
            find = build()
        except ImportError:
            print(f"| {name} | not installed | | | | | |")
            continue
        find(FINDING[0][0])  # warm up (model loading, caches)
        s_hit, s_total, s_wrong, s_micros = score(find, FINDING[:SAMPLED])
        c_hit, c_total, c_wrong, c_micros = score(find, FINDING[SAMPLED:])
        n_hit, n_total, n_wrong, n_micros = score(find, normalising)
        micros = (s_micros * SAMPLED + c_micros * (len(FINDING) - SAMPLED)) / len(FINDING)
        print(
            f"| {name} | {s_hit}/{s_total} | {c_hit}/{c_total} | {s_wrong + c_wrong} "
            f"| {micros:,.0f} | {n_hit}/{n_total} ({n_wrong}) | {n_micros:,.0f} |"
        )


if __name__ == "__main__":
    main()
