"""Entity references by meaning: what a text refers to, in the context the model was shown.

Real models name entities the way people do: a payment method by its type, brand,
last digits, id suffix or balance ("the gift card ending in 1239", "your Visa ending
in 7238", "the certificate with $500 left", "your only credit card", "the original
payment method"); a reservation by its id, route, flight number or date. A reference
counts when, among the candidates the model-visible ledger showed *before* the step
that makes it, the attributes it gives identify exactly one entity. A reference that
fits several candidates, or none, identifies nothing.

Every operator resolves references here (one resolver, not per-operator string
matching), so a principle fixed once holds for all of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sscbench.measure.view import LedgerView

# ---- agent texts ----------------------------------------------------------------------

HANDOFF = "transfer_to_human_agents"


def agent_texts(view: LedgerView, after: int) -> list[tuple[int, str, str]]:
    """(step, channel, text) of every agent message and handoff summary after ``after``.

    A handoff summary is what the agent communicates to the next agent: it is read like
    a message (channel ``handoff``).
    """
    out = [(m.step, "message", m.content) for m in view.assistant_messages() if m.step > after]
    for call in view.calls_named(HANDOFF):
        if call.call_step > after:
            out.append((call.call_step, "handoff", str(call.arg("summary") or "")))
    return sorted(out, key=lambda t: t[0])


def clauses(text: str) -> list[tuple[int, str]]:
    """(offset, clause) of a text split at sentence ends, line breaks and semicolons."""
    out, start = [], 0
    for match in re.finditer(r"(?<=[.!?;])\s+|\n+|(?<=:)\s+(?=[-*\d])", text):
        out.append((start, text[start : match.start()]))
        start = match.end()
    out.append((start, text[start:]))
    return [(o, c) for o, c in out if c.strip()]


# ---- payment methods ------------------------------------------------------------------

CATEGORY_PATTERNS = {
    "credit_card": r"credit[ -]?cards?",
    "gift_card": r"gift[ -]?cards?",
    "certificate": r"(?:travel )?certificates?|travel vouchers?",
}
BRAND_PATTERNS = {
    "visa": r"visa",
    "mastercard": r"master[ -]?card",
    "american_express": r"amex|american express",
    "discover": r"discover",
}
_ID = re.compile(r"\b(credit_card|gift_card|certificate)_(\d+)\b")
_DIGITS = re.compile(r"(?<![\w$.,/-])(\d{4,7})(?![\w/]|[.,]\d|-\d)")
_AMOUNT = re.compile(r"\$\s?(\d[\d,]*)(?:\.(\d\d))?")
_SUPERLATIVE = re.compile(
    r"\b(smallest|lowest|least|largest|highest|biggest|most)\b[^.;\n]{0,20}\b(balance|amount|funds)",
    re.IGNORECASE,
)
_ROLE = re.compile(
    r"\boriginal (?:form of )?payment(?: method)?\b|\bpayment method (?:used|on file for)\b"
    r"|\bsame payment method\b",
    re.IGNORECASE,
)
_SPLIT = re.compile(r",\s+(?:and |or )?|\s+(?:and|or|plus|then)\s+|\s+/\s+|\(|\)|:\s")


@dataclass(frozen=True)
class Method:
    """A payment method as the visible ledger showed it."""

    pid: str
    categories: frozenset[str]  # every category it was shown with (and its id's, if stated)
    brand: str | None = None
    last_four: str | None = None
    amount: float | None = None


@dataclass(frozen=True)
class Reference:
    """A phrase that identifies one entity, and the categories it attributes to it."""

    entity: str
    start: int
    end: int
    span: str
    categories: frozenset[str] = frozenset()


def id_category(pid: str) -> str | None:
    """The category an id states by its prefix (τ-bench's interface names ids so)."""
    match = _ID.fullmatch(pid)
    return match.group(1) if match else None


def payment_methods(view: LedgerView, before: int, ids_state_category: bool) -> dict[str, Method]:
    """Payment methods the ledger showed before ``before``: user records and paid ids.

    ``ids_state_category``: the interface ties an id's prefix to its category (the
    contract's id-category relation), so the id itself shows a category.
    """
    seen: dict[str, dict[str, Any]] = {}
    for call in view.calls:
        if call.observation_step is None or call.observation_step >= before:
            continue
        data = call.data
        methods = data.get("payment_methods") if isinstance(data, dict) else None
        if isinstance(methods, dict):
            for pid, record in methods.items():
                if isinstance(record, dict):
                    entry = seen.setdefault(pid, {"cats": set()})
                    if record.get("source"):
                        entry["cats"].add(str(record["source"]))
                    for key in ("brand", "last_four", "amount"):
                        if record.get(key) is not None:
                            entry[key] = record[key]
        for pay in _payment_history(data):
            seen.setdefault(pay, {"cats": set()})
    out = {}
    for pid, entry in seen.items():
        cats = set(entry["cats"])
        if ids_state_category and id_category(pid):
            cats.add(id_category(pid))
        amount = entry.get("amount")
        out[pid] = Method(
            pid,
            frozenset(cats),
            str(entry.get("brand") or "").lower() or None,
            str(entry["last_four"]) if entry.get("last_four") else None,
            float(amount) if isinstance(amount, int | float) else None,
        )
    return out


def _payment_history(data: Any) -> list[str]:
    history = data.get("payment_history") if isinstance(data, dict) else None
    out = []
    for pay in history or ():
        if isinstance(pay, dict):
            pid = pay.get("payment_id") or pay.get("payment_method_id")
            if isinstance(pid, str):
                out.append(pid)
    return out


def category_hits(text: str) -> list[tuple[int, int, str]]:
    """(start, end, category) of each category word (not inside an id)."""
    out = []
    for category, pattern in CATEGORY_PATTERNS.items():
        for m in re.finditer(rf"(?<![_\w])(?:{pattern})\b", text, flags=re.IGNORECASE):
            out.append((m.start(), m.end(), category))
    return out


def _phrases(text: str) -> list[tuple[int, str]]:
    """Noun-phrase-sized pieces: clauses cut at list separators and parentheses."""
    out = []
    for offset, clause in clauses(text):
        start = 0
        for m in _SPLIT.finditer(clause):
            out.append((offset + start, clause[start : m.start()]))
            start = m.end()
        out.append((offset + start, clause[start:]))
    return [(o, p) for o, p in out if p.strip()]


def _amount(match: re.Match[str]) -> float:
    return float(match.group(1).replace(",", "") + "." + (match.group(2) or "0"))


def payment_references(
    text: str, methods: dict[str, Method], roles: dict[str, list[str]] | None = None
) -> list[Reference]:
    """Every phrase of ``text`` that identifies one of ``methods``.

    A phrase's identifying attributes are its id, digits (last four or id suffix),
    brand, balance next to a category word, a superlative balance ("the gift card with
    the smallest balance") and a role ("the original payment method", resolved through
    ``roles``: reservation id -> payment ids in its record). Category words both
    attribute a category and, when nothing else identifies, narrow the candidates.
    A category named in parentheses right after the phrase ("Visa ending in 7447
    (gift card)") is attributed to it.
    """
    out: list[Reference] = []
    pieces = _phrases(text)
    for index, (offset, phrase) in enumerate(pieces):
        cats = {c for _, _, c in category_hits(phrase)}
        sets: list[set[str]] = []
        for m in _ID.finditer(phrase):
            sets.append({m.group(0)} if m.group(0) in methods else set())
        if not sets:
            for m in _DIGITS.finditer(phrase):
                digits = m.group(1)
                found = {
                    p.pid
                    for p in methods.values()
                    if p.last_four == digits
                    or (len(digits) >= 4 and _id_digits(p.pid).endswith(digits))
                }
                if found:
                    sets.append(found)
        for brand, pattern in BRAND_PATTERNS.items():
            if re.search(rf"\b(?:{pattern})\b", phrase, flags=re.IGNORECASE):
                sets.append({p.pid for p in methods.values() if p.brand == brand})
        if cats:
            for m in _AMOUNT.finditer(phrase):
                value = _amount(m)
                found = {p.pid for p in methods.values() if p.amount == value}
                if found:
                    sets.append(found)
        by_role = _role_candidates(phrase, text, roles or {}, methods)
        if by_role:
            sets.append(by_role)
        sup = _SUPERLATIVE.search(phrase)
        if sup and cats:
            pool = [p for p in methods.values() if p.categories & cats and p.amount is not None]
            if pool:
                low = sup.group(1).lower() in ("smallest", "lowest", "least")
                pick = (min if low else max)(pool, key=lambda p: p.amount or 0.0)
                sets.append({pick.pid})
        if sets:
            found = set.intersection(*sets)
        elif cats:
            found = {p.pid for p in methods.values() if p.categories & cats}
        else:
            continue
        if len(found) != 1:
            continue
        # "(gift card)" right after a phrase attributes that category to it
        follow = pieces[index + 1][1] if index + 1 < len(pieces) else ""
        if (
            not cats
            and follow
            and len(follow) <= 30
            and text[offset + len(phrase) :].lstrip().startswith("(")
        ):
            cats = {c for _, _, c in category_hits(follow)}
        (pid,) = found
        out.append(Reference(pid, offset, offset + len(phrase), phrase.strip(), frozenset(cats)))
    return out


def _id_digits(pid: str) -> str:
    return pid.rsplit("_", 1)[-1] if "_" in pid else pid


def _role_candidates(
    phrase: str, text: str, roles: dict[str, list[str]], methods: dict[str, Method]
) -> set[str]:
    """Payment ids a role phrase ('the original payment method') denotes: the payment of
    the reservation the text names, else of the only reservation whose record was shown."""
    if not _ROLE.search(phrase) or not roles:
        return set()
    named = [rid for rid in roles if rid in text]
    scope = named if named else (list(roles) if len(roles) == 1 else [])
    found = {pid for rid in scope for pid in roles[rid]}
    return found if found else set()


def payment_roles(view: LedgerView, before: int) -> dict[str, list[str]]:
    """reservation id -> payment ids of its delivered record (before ``before``)."""
    out: dict[str, list[str]] = {}
    for call in view.calls:
        if call.observation_step is None or call.observation_step >= before:
            continue
        data = call.data
        if isinstance(data, dict) and isinstance(data.get("reservation_id"), str):
            pays = _payment_history(data)
            if pays:
                out[data["reservation_id"]] = sorted(set(pays))
    return out


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
            for r in data["reservations"]:
                if isinstance(r, str):
                    out.setdefault(r, Reservation(r))
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


def reservation_subjects(sentence: str, shown: dict[str, Reservation], rid: str) -> set[str]:
    """Reservations a sentence names: by id, or by a flight number or route that fits one only."""
    named = {t for t in _RESERVATION_TOKEN.findall(sentence) if t in shown or t == rid}
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


def scoped_text(text: str, rid: str, shown: dict[str, Reservation]) -> str:
    """The sentences of a text that are about reservation ``rid``.

    A sentence naming reservations (by id, flight number or route, see
    :func:`reservation_subjects`) is about those; one naming none continues the
    subject of the sentence before it (the first sentences take the text's first
    subject). A text naming no reservation is kept whole.
    """
    sentences = [x for x in re.split(r"(?<=[.!?])\s+|\n+", text) if x]
    subjects = [reservation_subjects(x, shown, rid) for x in sentences]
    first = next((sub for sub in subjects if sub), None)
    if first is None:
        return text
    kept, current = [], first
    for sentence, named in zip(sentences, subjects, strict=True):
        current = named or current
        if rid in current:
            kept.append(sentence)
    return " ".join(kept)
