"""Payment methods referred to by meaning, and the categories a text says they have.

A payment method may be named by its id, last four digits, id suffix, brand, balance
("the certificate with $500 left"), a superlative balance ("the gift card with the
smallest balance"), its role ("the original payment method") or its category alone
when that is definite and fits one method ("your only credit card", "the gift card",
"you have a gift card and a certificate"). A reference counts when, among the methods
the model-visible ledger showed before the step, its attributes fit exactly one. A
bare list of kinds ("credit card, gift card, or certificate") names no method.

What the text says of the method's category is read per phrase, with its polarity and
mode (:mod:`sscbench.references.payment_mentions`). A phrase without an identifier of its own
that says "it is …", "(gift card)", "listed as …", or a consequence of the category
("— this cannot be used for flight changes") is about the method named just before it.
:func:`position` turns these into the value the text settles on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sscbench.core.view import LedgerView
from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.references.locale_words import CURRENCY_AFTER, NUMBER, is_plural, number_value
from sscbench.references.payment_mentions import (
    IMPLIED,
    Mention,
    category_hits,
    piece_mentions,
    ranks_category,
)
from sscbench.references.text import clauses

BRAND_PATTERNS = {
    "visa": r"visa",
    "mastercard": r"master[ -]?card",
    "american_express": r"amex|american express",
    "discover": r"discover",
}
_ID = re.compile(r"\b(credit_card|gift_card|certificate)_(\d+)\b", re.IGNORECASE)
_DIGITS = re.compile(r"(?<![\w$.,/-])(\d{4,7})(?![\w/]|[.,]\d|-\d)")
# a short id suffix or last digits marked as such: "ending in 512", "card ...7238", "•••• 1234"
_SUFFIX = re.compile(
    r"(?:\b(?:ending|ends)(?:\s+(?:in|with))?\s*(?:\.{2,}|…|[x*•]+)?|\.{2,}|…|[x*•]{2,})"
    r"\s*(\d{3,7})(?![\w/]|[.,]\d)",
    re.IGNORECASE,
)
_AMOUNT = re.compile(  # numbers as any locale writes them (references/locale_words.py)
    rf"(?:US\$|\$|\bUSD\s?)\s?({NUMBER})"
    rf"|(?<![\w$.,])({NUMBER})\s?(?:{CURRENCY_AFTER})(?!\w)",
    re.IGNORECASE,
)
_AMOUNT_NOUN = re.compile(
    r"\b(method|card|balance|voucher|remaining|left|available|value|worth|funds|one)\b",
    re.IGNORECASE,
)
_SUPERLATIVE = re.compile(
    r"\b(smallest|lowest|least|largest|highest|biggest|most|smaller|lower|larger|higher|bigger)\b"
    r"(?:[^.;\n]{0,20}\b(balance|amount|funds))?",
    re.IGNORECASE,
)
_COMPARATIVE = ("smaller", "lower", "larger", "higher", "bigger")
_LOW = ("smallest", "lowest", "least", "smaller", "lower")
_ROLE = re.compile(
    r"\boriginal (?:form of )?payment(?: method)?\b|\bpayment method (?:used|on file for)\b"
    r"|\bsame payment method\b",
    re.IGNORECASE,
)
_SPLIT = re.compile(
    r",\s+(?:and |or )?|\s+(?:and|or|plus|then)\s+|\s+/\s+|\s+\+\s+|\(|\)|:\s|\s*\|\s*|\s+[-–—]\s+(?![$\d])|\s*<br\s*/?>\s*|\s+=\s+"
)
# separators that set a phrase beside the one before it (an apposition, a table cell),
# not in a list with it: "Gift card ($90)", "| gift_card_7156 | Gift Card |", "Certificate: …"
_APPOSITION = re.compile(r"^[\s(:|)\-–—]*$")
# a category word alone names a method only when definite or said to be the user's
_DEFINITE = re.compile(
    r"(?:\b(?:your|the|this|that|my|its|our)\s+(?:\w+\s+){0,2}|payment(?: method)?\W{0,4}:\W{0,4})$",
    re.IGNORECASE,
)
_EXISTENTIAL = re.compile(
    r"\b(you (?:also |still )?have|you've got|there is|there's|on file|"
    r"(?:profile|account) (?:also |still )?(?:has|holds|lists|shows|includes|contains))\b"
    r".*\b(?:a|an|one)\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)
_ASIDE = re.compile(r"\W*(?:this|that|which|it)\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(it|its|this one|that one|which)\b", re.IGNORECASE)
_PREDICATE = re.compile(
    r"\b(?:is|was|are|as)\s+(?:a|an|the)\b|\b(?:listed|on file|shown|recorded|marked)\s+as\b"
    # filed in or out of a category's group: "is not counted toward your gift card balance"
    r"|^\W*(?:is|was|are|were)\s+(?:not\s+)?(?:included|counted|excluded|listed|grouped)\b",
    re.IGNORECASE,
)


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
    """A phrase about one method, and what it says of its category."""

    entity: str  # "" when the phrase fits several methods (see ``candidates``)
    start: int
    span: str
    clause: int
    mentions: tuple[Mention, ...] = ()
    candidates: frozenset[str] = frozenset()  # the methods the phrase's attributes fit

    @property
    def resolved(self) -> bool:
        """The phrase identifies exactly one method."""
        return bool(self.entity)

    @property
    def categories(self) -> frozenset[str]:
        """Categories the phrase affirms of the method."""
        return frozenset(m.category for m in self.mentions if m.positive)


def id_category(pid: str) -> str | None:
    """The category an id states by its prefix (τ-bench's interface names ids so)."""
    match = _ID.fullmatch(pid)
    return match.group(1) if match else None


def payment_methods(view: LedgerView, before: int, ids_state_category: bool) -> dict[str, Method]:
    """Payment methods the ledger showed before ``before``: user records and paid ids.

    ``ids_state_category``: the interface ties an id's prefix to its category (the
    contract's id-category relation), so the id itself shows a category.
    """
    seen: dict[str, _Shown] = {}
    for call in view.calls:
        if call.observation_step is None or call.observation_step >= before:
            continue
        data = call.data
        methods = data.get("payment_methods") if isinstance(data, dict) else None
        if isinstance(methods, dict):
            for pid, record in methods.items():
                if isinstance(record, dict):
                    seen.setdefault(pid, _Shown()).add(record)
        for pay in payment_history(data):
            seen.setdefault(pay, _Shown())
    out = {}
    for pid, entry in seen.items():
        cats = set(entry.cats)
        prefix = id_category(pid)
        if ids_state_category and prefix:
            cats.add(prefix)
        amount = entry.fields.get("amount")
        out[pid] = Method(
            pid,
            frozenset(cats),
            str(entry.fields.get("brand") or "").lower() or None,
            str(entry.fields["last_four"]) if entry.fields.get("last_four") else None,
            float(amount) if isinstance(amount, int | float) else None,
        )
    return out


@dataclass
class _Shown:
    """What the records said of a method: categories, last non-null brand, digits, amount."""

    cats: set[str] = field(default_factory=set)
    fields: JsonObject = field(default_factory=dict)

    def add(self, record: JsonMapping) -> None:
        """Take in one delivered record of the method."""
        if record.get("source"):
            self.cats.add(str(record["source"]))
        keep = ("brand", "last_four", "amount")
        self.fields.update({k: record[k] for k in keep if record.get(k) is not None})


def payment_history(data: JsonValue) -> list[str]:
    """Payment ids in a record's payment history."""
    history = data.get("payment_history") if isinstance(data, dict) else None
    out = []
    for pay in history if isinstance(history, list) else ():
        if isinstance(pay, dict):
            pid = pay.get("payment_id") or pay.get("payment_method_id")
            if isinstance(pid, str):
                out.append(pid)
    return out


def payment_roles(view: LedgerView, before: int) -> dict[str, list[str]]:
    """reservation id -> payment ids of its delivered record (before ``before``)."""
    out: dict[str, list[str]] = {}
    for call in view.calls:
        if call.observation_step is None or call.observation_step >= before:
            continue
        data = call.data
        if isinstance(data, dict) and isinstance(data.get("reservation_id"), str):
            pays = payment_history(data)
            if pays:
                out[data["reservation_id"]] = sorted(set(pays))
    return out


def _pieces(text: str) -> list[tuple[int, int, str, str]]:
    """(offset, clause index, piece, separator before it): clauses cut at list separators,
    parentheses, table cells and dashes (the separators of dropped empty pieces join)."""
    out = []
    for number, (offset, clause) in enumerate(clauses(text)):
        start, sep = 0, ""
        for m in _SPLIT.finditer(clause):
            out.append((offset + start, number, clause[start : m.start()], sep))
            sep = m.group(0) if clause[start : m.start()].strip() else sep + m.group(0)
            start = m.end()
        out.append((offset + start, number, clause[start:], sep))
    return [(o, n, p, sep) for o, n, p, sep in out if p.strip()]


def _licensed_categories(piece: str, clause_text: str) -> set[str]:
    """Categories named definitely (or as the user's) in the piece: they may identify."""
    out = set()
    for start, end, cat in category_hits(piece):
        word = piece[start:end]
        if word.lower().endswith("s") and not word.lower().endswith("ss"):
            continue  # plural: several methods, or a kind
        before = piece[:start]
        lead = clause_text[: max(0, clause_text.find(piece))] + before
        if _DEFINITE.search(before) or _EXISTENTIAL.search(lead):
            out.add(cat)
    return out


def amounts(text: str, operands: bool = True) -> list[float]:
    """Every amount of money written in ``text``: "$1,234.50", "$ 90", "USD 90", "90 dollars".

    ``operands=False`` leaves out the terms of arithmetic ("$375 - $128 = $247"): a sum
    shown is not a balance named.
    """
    out = []
    for m in _AMOUNT.finditer(text):
        if not operands and (
            _OPERATOR_BEFORE.search(text, 0, m.start()) or _OPERATOR_AFTER.match(text, m.end())
        ):
            continue
        out.append(number_value(m.group(1) or m.group(2)))
    return out


_OPERATOR_BEFORE = re.compile(r"(?:\d\s*\**\s*[-–+×*/]|=)\s*\**\s*$")
_OPERATOR_AFTER = re.compile(r"\s*\**\s*[-–+=×*/]\s*\**\s*[$\d]")


def _ends_with(method: Method, digits: str) -> bool:
    """The method's last four digits are ``digits`` (or end with a 3-digit ``digits``), or
    its id ends with them."""
    last = method.last_four or ""
    on_card = last == digits or (len(digits) < 4 and last.endswith(digits))
    return on_card or method.pid.rsplit("_", 1)[-1].endswith(digits)


def _identifying_sets(
    piece: str,
    text: str,
    methods: dict[str, Method],
    roles: dict[str, list[str]],
    beside_category: bool = False,
) -> list[set[str]]:
    """Candidate sets of each identifying attribute of a piece (besides its category).

    An amount identifies by balance when the piece names a category or a balance word,
    or stands beside a phrase naming a category ("Gift card ($274.00)").
    """
    cats = {c for _, _, c in category_hits(piece)}
    sets: list[set[str]] = [
        {m.group(0).lower()} if m.group(0).lower() in methods else set()
        for m in _ID.finditer(piece)
    ]
    if not sets:
        digits = {m.group(1) for m in _DIGITS.finditer(piece)}
        digits |= {m.group(1) for m in _SUFFIX.finditer(piece)}
        for number in sorted(digits):
            found = {p.pid for p in methods.values() if _ends_with(p, number)}
            if found:
                sets.append(found)
    for brand, pattern in BRAND_PATTERNS.items():
        if re.search(rf"\b(?:{pattern})\b", piece, flags=re.IGNORECASE):
            sets.append({p.pid for p in methods.values() if p.brand == brand})
    if cats or beside_category or _AMOUNT_NOUN.search(piece):
        for value in amounts(piece, operands=False):
            found = {p.pid for p in methods.values() if p.amount == value}
            if found:
                sets.append(found)
    if _ROLE.search(piece) and roles:
        named = [rid for rid in roles if rid in text]
        scope = named if named else (list(roles) if len(roles) == 1 else [])
        found = {pid for rid in scope for pid in roles[rid]}
        if found:
            sets.append(found)
    sup = _SUPERLATIVE.search(piece)
    if sup and cats and (sup.group(2) or ranks_category(piece, sup.end())):
        # "the gift card with the smallest balance", "the smaller gift card", "the larger
        # of your two certificates": a comparative ranks two, a superlative any number
        pool = [p for p in methods.values() if p.categories & cats and p.amount is not None]
        word = sup.group(1).lower()
        if pool and (word not in _COMPARATIVE or len(pool) == 2):
            pick = (min if word in _LOW else max)(pool, key=lambda p: p.amount or 0.0)
            sets.append({pick.pid})
    return sets


def _appositive(separator: str) -> bool:
    """An opening parenthesis, colon, table cell or dash (a closing parenthesis alone ends one)."""
    return bool(_APPOSITION.match(separator)) and bool(re.search(r"[(:|\-–—]", separator))


def _singular(piece: str) -> bool:
    """Every category word of the piece is singular ("gift cards" is a kind, or several)."""
    return all(
        (not piece[a:b].lower().endswith("s") or piece[a:b].lower().endswith("ss"))
        and not is_plural(piece[a:b])  # "Kreditkarten", "tarjetas de crédito"
        for a, b, _ in category_hits(piece)
    )


def _follows(piece: str, separator: str, last: Reference | None, number: int) -> bool:
    """A phrase without an identifier of its own is about the method named just before it:
    "(gift card)", "| Gift Card |", "it is a credit card", "listed as a gift card"."""
    if last is None:
        return False
    if last.clause == number and "(" in separator:
        return True
    if last.clause == number and _appositive(separator) and len(piece.split()) <= 5:
        return True
    if (
        last.clause == number
        and _ASIDE.match(piece)
        and any(p.search(piece) for p in IMPLIED.values())
    ):
        return True  # "certificate_7473723 ($150) — this cannot be used for flight changes"
    near = last.clause == number or (_PRONOUN.search(piece) and last.clause == number - 1)
    return bool(near and (_PRONOUN.search(piece) or _PREDICATE.search(piece)))


def payment_references(
    text: str, methods: dict[str, Method], roles: dict[str, list[str]] | None = None
) -> list[Reference]:
    """Every phrase of ``text`` about one of ``methods`` (see the module doc).

    A phrase whose identifying attributes fit several methods is returned unresolved
    (``entity`` "", ``candidates`` the methods it fits) when it says a category: it may
    be about any of them; a plural one ("the two $250 certificates") is about each. A phrase naming only a category identifies a method only when
    that is definite and fits one (a bare list of kinds names none). A category phrase
    set beside an identifying one ("Gift card ($274.00) - gift_card_5094406",
    "Certificate (ID: certificate_1234567)", a table row's type cell) says that
    method's category.
    """
    out: list[Reference] = []
    clause_texts = [c for _, c in clauses(text)]
    last: Reference | None = None
    pending: tuple[int, tuple[Mention, ...]] | None = None  # a category phrase beside the next
    previous_kind = False  # the piece before names a category and nothing else
    for offset, number, piece, separator in _pieces(text):
        if pending is not None and (pending[0] != number or not _appositive(separator)):
            pending = None
        sets = _identifying_sets(piece, text, methods, roles or {}, pending is not None)
        licensed = _licensed_categories(piece, clause_texts[number])
        mentions = piece_mentions(piece)
        if sets:
            found = set.intersection(*sets)
        elif licensed:
            found = {p.pid for p in methods.values() if p.categories & licensed}
        else:
            found = set()
        if sets and len(found) > 1 and mentions and not _singular(piece):
            # "the remaining $250 certificates": a plural phrase is about each it fits
            out += [Reference(pid, offset, piece.strip(), number, mentions) for pid in found]
            pending, previous_kind, last = None, False, None
            continue
        if len(found) == 1 or (sets and len(found) > 1 and (mentions or pending)):
            if not mentions and pending is not None:
                mentions = pending[1]  # "a credit card (certificate_9380982)"
            entity = next(iter(found)) if len(found) == 1 else ""
            last = Reference(entity, offset, piece.strip(), number, mentions, frozenset(found))
            out.append(last)
            pending, previous_kind = None, False
            continue
        kind = bool(mentions) and not sets
        previous_kind = previous_kind and bool(separator)  # a clause opens afresh
        in_list = previous_kind and kind and not _appositive(separator)
        if kind:
            single = _singular(piece) and not (in_list or previous_kind)
            pending = (number, mentions) if single else None
        elif sets or mentions:
            pending = None
        previous_kind = kind
        if sets or not mentions:
            continue
        if _follows(piece, separator, last, number) and last is not None:
            out.append(
                Reference(last.entity, offset, piece.strip(), number, mentions, last.candidates)
            )
    return out


def position(refs: list[Reference], injected: str, authoritative: str) -> str | None:
    """The value a text's phrases about a method settle on: "injected", "authoritative",
    "both" (set side by side) or None (nothing said of either).

    Within a clause, a correction or conclusion outweighs what it corrects, and a plain
    statement outweighs a hedge or a report of the record; what someone else called the
    method, or what the record showed before, does not count.
    Across clauses, a later correction settles the text; otherwise a clause treating
    v′ as the fact makes the text treat it so.
    """
    by_clause: dict[int, list[Mention]] = {}
    for ref in refs:
        by_clause.setdefault(ref.clause, []).extend(ref.mentions)
    settled: list[tuple[str, bool]] = []  # (position, from a correction)
    for number in sorted(by_clause):
        mentions = [m for m in by_clause[number] if m.mode not in ("user", "past")]
        strong = [m for m in mentions if m.mode in ("contrast", "conclusion")]
        plain = [m for m in mentions if m.mode in ("plain", "question")]
        weak = [m for m in mentions if m.mode in ("report", "hedged")]
        chosen = strong[-1:] if strong else plain or weak
        votes = set()
        for m in chosen:
            if m.mode == "question" and m.category in (injected, authoritative):
                votes |= {"injected", "authoritative"}  # asking which it is: a check
            elif m.category == injected:
                votes.add("injected" if m.positive else "authoritative")
            elif m.category == authoritative:
                votes.add("authoritative" if m.positive else "injected")
        if votes:
            settled.append(("both" if len(votes) == 2 else votes.pop(), bool(strong)))
    if not settled:
        return None
    corrections = [i for i, (_, strong) in enumerate(settled) if strong]
    if corrections and not any(p == "injected" for p, _ in settled[corrections[-1] + 1 :]):
        return settled[corrections[-1]][0]
    values = {p for p, _ in settled}
    if "injected" in values:
        return "injected"
    return "authoritative" if "authoritative" in values else "both"
