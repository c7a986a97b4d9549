"""Unread marks: what the readers met after T_F and could not interpret.

A rule-based reader always meets text it has not seen; it must never misread it without
saying so. The marks follow the **residual principle**: a mark is text that looks like it
carries the affected fact but that no reader consumed. They are computed against what
the readers actually returned (the dates the date reader found, the spans an operator's
readers consumed, the use candidates extracted), so widening a reader removes its marks
by itself, with nothing here to change.

Four kinds (:data:`sscbench.study.rows.UnreadKind`), each about text after T_F:

* ``unparsed-value`` — a value-shaped token no reader consumed: a number beside a word
  the readers do not know ("Zorvember 17", "500 zq"), a date-like form with an unknown
  month word;
* ``unresolved-mention`` — a sentence naming the affected entity or its value (ids,
  product words, flight numbers from the contract and the operator's terms) beside a
  word the readers do not know (the item named by an unknown product word, a value in
  an unknown form);
* ``foreign-text`` — a sentence in a language or script the readers have no forms for
  (no English function word among five or more words and unknown words in it, half of
  its words unknown, or mostly letters outside the Latin script);
* ``unclassified-call`` — a tool call after T_F whose arguments name the affected entity,
  or a handoff whose summary names it, from which no use candidate was extracted (a
  retrieval by one of the contract's acquisition tools is not a use and is left alone).

A word is unknown when it is neither English nor any word the model was shown
(:class:`sscbench.measure.vocabulary.Vocabulary`). Marks are deterministic: the same
ledger and contract give the same marks in the same order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sscbench.core.values import ClassifiedUse
from sscbench.core.view import CallView, LedgerView
from sscbench.faults.contract import FaultContract
from sscbench.faults.registry import MeasuredOperator
from sscbench.measure.vocabulary import FUNCTION_WORDS, WORD, Vocabulary
from sscbench.references.dates import find_date_references
from sscbench.references.text import HANDOFF, THINK, agent_texts, date_variants
from sscbench.study.rows import UNREAD_KINDS, UnreadKind, UnreadStep

SPAN_LIMIT = 120
"""A mark's span is at most this many characters."""

_SENTENCE = re.compile(r"[^\n]+?(?:[.!?](?=\s)|$)", re.MULTILINE)
_NUMBER_WORD = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?:st|nd|rd|th)?[-\s]?([^\W\d_]{2,})")
# a day (or a range of days) then a word: where a rare English word ("28 mai", "28.
# Mai") may be a month of another language
_DAY_WORD = re.compile(
    r"(?<![\w$€£.,:/\-–])(?:[12]\d|3[01]|0?[1-9])(?:\s?[-–]\s?(?:[12]\d|3[01]|0?[1-9]))?\.?\s"
    r"([^\W\d_]{3,10})\b"
)
_WORD_NUMBER = re.compile(r"([^\W\d_]{2,})\.?\s[$€£]?(\d{1,4})(?![\w])")
_ID_KEYS = ("user_id",)  # related ids that name the user, not the affected entity
_TAGS = re.compile(r"<[^>]{1,20}>")  # html tags models put in tables (<br>)
Span = tuple[int, int]


def _is_word(token: str) -> bool:
    """A word of a language: two letters or more and not an all-capitals code (HAT, JFK)."""
    return len(token) >= 2 and not token.isupper()


@dataclass(frozen=True)
class UnreadMark:
    """One thing the readers met and could not interpret: its step, kind and a short span."""

    step: int
    kind: UnreadKind
    span: str

    def row(self) -> UnreadStep:
        """The mark as it is written in a measurement row's ``unread_steps``."""
        return UnreadStep(step=self.step, kind=self.kind, span=_short(self.span))


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SPAN_LIMIT else flat[: SPAN_LIMIT - 1] + "…"


def unread_marks(
    operator: MeasuredOperator,
    contract: FaultContract,
    view: LedgerView,
    t_f: int,
    uses: list[ClassifiedUse],
) -> list[UnreadMark]:
    """Every unread mark of a triggered run, in step order (one per step, kind and span).

    ``operator`` may widen what is read with two hooks (``unread_terms``: more words
    naming the affected entity or value; ``read_spans``: the spans of a text its readers
    consumed); an operator without them is read with the contract's terms alone.
    """
    vocabulary = Vocabulary.of_view(view)
    terms = target_terms(operator, contract, view, t_f)
    own = terms - record_ids(contract)  # the entity and its values, not the records it is in
    values = value_forms(contract)
    used = {u.candidate.step for u in uses}
    marks: list[UnreadMark] = []
    for step, channel, text in agent_texts(view, t_f):
        consumed = consumed_spans(operator, contract, view, text)
        marks.extend(text_marks(step, text, vocabulary, terms, consumed))
        if channel == "handoff" and step not in used and _states(text, own, values):
            marks.append(UnreadMark(step, "unclassified-call", f"{HANDOFF}: {text}"))
    keys = tuple(getattr(operator, "fact_argument_keys", ()))
    marks.extend(call_marks(contract, view, t_f, used, keys))
    unique = {(m.step, m.kind, _short(m.span)): m for m in marks}
    return sorted(unique.values(), key=lambda m: (m.step, UNREAD_KINDS.index(m.kind)))


def target_terms(
    operator: MeasuredOperator, contract: FaultContract, view: LedgerView, t_f: int
) -> frozenset[str]:
    """Words and ids naming the affected entity or its value: the contract's ids, the
    string values of v and v′ (and the flight numbers in them), a product name and its
    head noun, and whatever the operator's ``unread_terms`` hook adds."""
    target = contract.target
    terms = {target.entity_id}
    for key, value in target.related_ids.items():
        if key not in _ID_KEYS:
            terms.update(v.strip() for v in str(value).split(",") if v.strip())
    for value in (contract.injected_value, contract.authoritative_value):
        terms.update(_strings(value))
    # the attribute the fact is about, as written ("options.backlight": "backlight")
    terms.add(target.attribute.rsplit(".", 1)[-1].replace("_", " "))
    name = target.related_ids.get("product_name")
    if name:
        terms.add(name.split()[-1])
    hook = getattr(operator, "unread_terms", None)
    if hook is not None:
        terms.update(hook(contract, view, t_f))
    return frozenset(t for t in terms if len(t) >= 3 or (len(t) == 2 and t.isdigit()))


def value_forms(contract: FaultContract) -> frozenset[str]:
    """Ways v and v′ are written: the value itself, with spaces for underscores
    ("gift card"), and a date's usual forms ("May 17", "05/17")."""
    forms: set[str] = set()
    for value in (contract.injected_value, contract.authoritative_value):
        for text in _strings(value):
            forms.update({text, text.replace("_", " ")})
            if re.fullmatch(r"\d{4}-\d\d-\d\d", text):
                forms.update(date_variants(text))
    return frozenset(forms)


def _states(text: str, entity_terms: Iterable[str], values: Iterable[str]) -> bool:
    """Whether a text names the entity and writes one of the fact's values."""
    return mentions(text, entity_terms) and mentions(text, values)


def record_ids(contract: FaultContract) -> frozenset[str]:
    """The ids of the records the affected entity is in (an order, a product), not its own."""
    ids: set[str] = set()
    for key, value in contract.target.related_ids.items():
        if key.endswith("_id"):
            ids.update(v.strip() for v in str(value).split(","))
    return frozenset(ids - {contract.target.entity_id})


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key in ("flight_number", "id", "item_id"):
            found = value.get(key)
            if isinstance(found, str):
                yield found
    elif isinstance(value, list):
        for element in value:
            yield from _strings(element)


def mentions(text: str, terms: Iterable[str]) -> bool:
    """Whether the text names one of the terms as a whole token (case-insensitively)."""
    lower = text.lower()
    for term in terms:
        pattern = r"(?<![\w])" + re.escape(term.lower()) + r"(?![\w])"
        if re.search(pattern, lower):
            return True
    return False


def consumed_spans(
    operator: MeasuredOperator, contract: FaultContract, view: LedgerView, text: str
) -> list[Span]:
    """The spans of a text the readers consumed: every date the date reader returned and
    what the operator's ``read_spans`` hook says its readers read."""
    spans: list[Span] = []
    for reference in find_date_references(text):
        start = text.find(reference.expression, max(0, reference.start - 40))
        if start < 0:
            spans.append((reference.start, reference.end))
        else:
            spans.append((min(start, reference.start), start + len(reference.expression)))
    hook = getattr(operator, "read_spans", None)
    if hook is not None:
        spans.extend(hook(contract, view, text))
    return spans


def _overlaps(span: Span, spans: list[Span]) -> bool:
    return any(lo < span[1] and span[0] < hi for lo, hi in spans)


def _inside(start: int, end: int, spans: list[Span]) -> bool:
    return any(lo <= start and end <= hi for lo, hi in spans)


def text_marks(
    step: int, text: str, vocabulary: Vocabulary, terms: frozenset[str], consumed: list[Span]
) -> list[UnreadMark]:
    """The marks of one agent text, sentence by sentence: a foreign sentence is one mark;
    otherwise each unconsumed value-shaped token with an unknown word, and a sentence
    naming the target beside an unknown word that no value mark covered."""
    marks: list[UnreadMark] = []
    for match in _SENTENCE.finditer(text):
        sentence, offset = match.group(0), match.start()
        if not sentence.strip():
            continue
        words = WORD.findall(sentence)
        known = sentence.isascii() and all(vocabulary.knows(w) for w in words)
        if known and not _DAY_WORD.search(sentence):
            continue  # every word known and no day beside a rare word: nothing unread
        if is_foreign(sentence, vocabulary):
            marks.append(UnreadMark(step, "foreign-text", sentence.strip()))
            continue
        values = list(_unparsed_values(sentence, offset, vocabulary, consumed))
        marks.extend(UnreadMark(step, "unparsed-value", v) for _, v in values)
        covered = [span for span, _ in values]
        unknown = [
            w
            for w in WORD.finditer(sentence)
            if not vocabulary.knows(w.group(0))
            and not _inside(offset + w.start(), offset + w.end(), consumed + covered)
        ]
        if unknown and mentions(sentence, terms):
            marks.append(UnreadMark(step, "unresolved-mention", sentence.strip()))
    return marks


def _unparsed_values(
    sentence: str, offset: int, vocabulary: Vocabulary, consumed: list[Span]
) -> Iterator[tuple[Span, str]]:
    """(span in the text, token) of each number beside an unknown word no reader read."""
    for pattern in (_NUMBER_WORD, _WORD_NUMBER, _DAY_WORD):
        for match in pattern.finditer(sentence):
            word = match.group(1)
            if vocabulary.knows(word) and (pattern is not _DAY_WORD or vocabulary.common(word)):
                continue
            span = (offset + match.start(), offset + match.end())
            number = (span[0], offset + match.start(1) - 1)
            if _inside(*span, consumed) or (pattern is _DAY_WORD and _overlaps(number, consumed)):
                continue  # read, or a day of a date the date reader returned
            lo, hi = max(0, match.start() - 30), min(len(sentence), match.end() + 30)
            yield span, sentence[lo:hi].strip()


def is_foreign(sentence: str, vocabulary: Vocabulary) -> bool:
    """Whether a sentence reads as a language or script the readers have no forms for.

    Mostly letters outside the Latin script; or half of five or more words unknown; or
    five or more words without one English function word and with an unknown one.
    """
    letters = [c for c in sentence if c.isalpha()]
    if len(letters) >= 8 and sum(c > "\u024f" for c in letters) / len(letters) > 0.5:
        return True
    words = [w.lower() for w in WORD.findall(_TAGS.sub(" ", sentence)) if _is_word(w)]
    if len(words) < 5:
        return False
    unknown = sum(not vocabulary.knows(w) for w in words)
    if unknown * 2 >= len(words):
        return True
    return unknown > 0 and not any(w in FUNCTION_WORDS for w in words)


def call_marks(
    contract: FaultContract, view: LedgerView, t_f: int, used: set[int], keys: tuple[str, ...]
) -> list[UnreadMark]:
    """Calls after T_F that pass the affected entity in an argument that carries the fact
    (``keys``, the operator's ``fact_argument_keys``: e.g. the payment id a method is
    paid with, chosen by identity or by category) and from which no use candidate was
    extracted. An operator whose fact no argument carries names no keys, and gets no
    such marks; retrievals by the contract's acquisition tools are never marked.
    """
    entity = contract.target.entity_id
    skip = {route.tool for route in contract.acquisition} | {HANDOFF, THINK}
    marks = []
    for call in view.calls:
        if call.call_step <= t_f or call.name in skip or call.call_step in used:
            continue
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        if any(_names(arguments.get(key), entity) for key in keys):
            marks.append(UnreadMark(call.call_step, "unclassified-call", _call_text(call)))
    return marks


def _names(value: object, needle: str) -> bool:
    if isinstance(value, str):
        return value == needle
    if isinstance(value, dict):
        return any(_names(v, needle) for v in value.values())
    if isinstance(value, list):
        return any(_names(v, needle) for v in value)
    return False


def _call_text(call: CallView) -> str:
    return f"{call.name}({call.raw_arguments})"
