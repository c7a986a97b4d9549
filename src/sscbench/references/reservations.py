"""Entity references by meaning: what a text refers to, in the context the model was shown.

Real models name entities the way people do: a payment method by its type, brand,
last digits, id suffix or balance ("the gift card ending in 1239", "your Visa ending
in 7238", "the certificate with $500 left", "your only credit card", "the original
payment method"); a reservation by its id, route, flight number or date. A reference
counts when, among the candidates the model-visible ledger showed *before* the step
that makes it, the attributes it gives identify exactly one entity. A reference that
fits several candidates, or none, identifies nothing.

Every operator resolves references here and in :mod:`sscbench.references.payments`
(one resolver, not per-operator string matching), so a principle fixed once holds
for all of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sscbench.core.view import LedgerView

# ---- reservations ---------------------------------------------------------------------

_RESERVATION_TOKEN = re.compile(r"\b[A-Z0-9]{6}\b")
_FLIGHT = re.compile(r"\bHAT\s?(\d{3})\b", re.IGNORECASE)
_ROUTE = re.compile(r"\b([A-Z]{3})\b\s*(?:to|-|–|→|->|and)\s*\b([A-Z]{3})\b")


@dataclass
class Reservation:
    """A reservation as the visible ledger showed it."""

    rid: str
    origin: str = ""
    destination: str = ""
    flights: set[str] = field(default_factory=set)
    legs: set[tuple[str, str]] = field(default_factory=set)
    position: int | None = None  # place in the latest list of the user's reservations shown


def reservations_shown(view: LedgerView, before: int | None = None) -> dict[str, Reservation]:
    """Reservations the ledger named (user records, call arguments) and what it showed of them."""
    out: dict[str, Reservation] = {}
    for call in view.calls:
        if before is not None and call.call_step >= before:
            continue
        rid = call.arg("reservation_id")
        if isinstance(rid, str):
            out.setdefault(rid, Reservation(rid))
        if call.observation_step is None or (
            before is not None and call.observation_step >= before
        ):
            continue
        data = call.data
        if not isinstance(data, dict):
            continue
        if isinstance(data.get("reservations"), list):
            for index, r in enumerate(data["reservations"]):
                if isinstance(r, str):
                    out.setdefault(r, Reservation(r)).position = index
        if isinstance(data.get("reservation_id"), str) and isinstance(data.get("flights"), list):
            res = out.setdefault(data["reservation_id"], Reservation(data["reservation_id"]))
            res.origin, res.destination = (
                str(data.get("origin", "")),
                str(data.get("destination", "")),
            )
            for leg in data["flights"]:
                if isinstance(leg, dict):
                    number = str(leg.get("flight_number", "")).upper()
                    res.flights.add(number)
                    res.legs.add((str(leg.get("origin", "")), str(leg.get("destination", ""))))
    return out


_ORDINALS = {
    "first": 0,
    "1st": 0,
    "second": 1,
    "2nd": 1,
    "third": 2,
    "3rd": 2,
    "fourth": 3,
    "4th": 3,
    "fifth": 4,
    "5th": 4,
    "last": -1,
}
_POSITION = re.compile(
    r"\b(" + "|".join(_ORDINALS) + r")\s+(?:\w+\s+)?(?:reservation|booking)\b", re.IGNORECASE
)


def _list_position(reservation: Reservation) -> int:
    return -1 if reservation.position is None else reservation.position


def reservation_subjects(sentence: str, shown: dict[str, Reservation], rid: str) -> set[str]:
    """Reservations a sentence names: by id, by a flight number or route that fits one only,
    or by position in the list of the user's reservations the ledger showed."""
    named = {t for t in _RESERVATION_TOKEN.findall(sentence) if t in shown or t == rid}
    listed = sorted((r for r in shown.values() if r.position is not None), key=_list_position)
    for m in _POSITION.finditer(sentence):
        index = _ORDINALS[m.group(1).lower()]
        if listed and index < len(listed):
            named.add(listed[index].rid)
    for m in _FLIGHT.finditer(sentence):
        number = f"HAT{m.group(1)}"
        owners = {r.rid for r in shown.values() if number in r.flights}
        if len(owners) == 1:
            named |= owners
    for m in _ROUTE.finditer(sentence):
        pair = (m.group(1), m.group(2))
        owners = {
            r.rid
            for r in shown.values()
            if pair in r.legs or {pair} & {(r.origin, r.destination), (r.destination, r.origin)}
        }
        if len(owners) == 1:
            named |= owners
    return named


def scoped_sentences(text: str, rid: str, shown: dict[str, Reservation]) -> list[str] | None:
    """The sentences (and lines) of a text that are about reservation ``rid``, each whole,
    or None when the text names no reservation.

    A sentence naming reservations (by id, flight number, route or position, see
    :func:`reservation_subjects`) is about those; one naming none continues the
    subject of the sentence before it (the first sentences take the text's first
    subject). Kept apart, the sentences keep their bounds: a reader of spans ("May
    20-27") must not join the end of one line to the start of the next.
    """
    sentences = split_sentences(text)
    return sentences_about(sentences, [reservation_subjects(x, shown, rid) for x in sentences], rid)


def split_sentences(text: str) -> list[str]:
    """A text's sentences and lines, in order, none empty."""
    return [x for x in re.split(r"(?<=[.!?])\s+|\n+", text) if x]


def sentences_about(sentences: list[str], subjects: list[set[str]], rid: str) -> list[str] | None:
    """The sentences whose subject (named, or carried from the sentence before; the first
    sentences take the first named subject) includes ``rid``; None when none is named."""
    first = next((sub for sub in subjects if sub), None)
    if first is None:
        return None
    kept, current = [], first
    for sentence, named in zip(sentences, subjects, strict=True):
        current = named or current
        if rid in current:
            kept.append(sentence)
    return kept


def scoped_text(text: str, rid: str, shown: dict[str, Reservation]) -> str:
    """The sentences of a text that are about reservation ``rid``, joined by spaces
    (see :func:`scoped_sentences`). A text naming no reservation is kept whole.
    """
    kept = scoped_sentences(text, rid, shown)
    return text if kept is None else " ".join(kept)
