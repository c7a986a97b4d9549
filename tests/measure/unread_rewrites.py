"""Blind-spot rewrites: agent text rewritten so that no reader can read the fact any more.

Each rewrite replaces the forms a fact is written in with **made-up** words — a month
no language has ("Zorvember"), an invented unit, an invented product word, category
words no one uses, sentences in an invented language — so the check stays valid after
the readers learn real languages and forms. Applied to an agent message, a handoff
summary or a recorded thought; everything else in the ledger is left as it was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from sscbench.core.ledger import AssistantEvent
from sscbench.faults.contract import FaultContract

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
MADE_UP_MONTH = "Zorvember"
_MONTH = re.compile(
    r"\b(?:" + "|".join(m[:3] + (m[3:] and f"(?:{m[3:]})?") for m in MONTHS) + r")\b\.?",
    re.IGNORECASE,
)
_ISO = re.compile(r"\b20\d\d-(\d\d)-(\d\d)\b")
_SLASHED = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(?:20)?\d\d)?\b")
_WORD = re.compile(r"[A-Za-z]{3,}")

Rewrite = Callable[[str, FaultContract], str]


def made_up_months(text: str, _contract: FaultContract) -> str:
    """Every date's month written as a month no language has: 'Zorvember 17'."""
    text = _ISO.sub(lambda m: f"{MADE_UP_MONTH} {int(m.group(2))}", text)
    text = _SLASHED.sub(lambda m: f"{MADE_UP_MONTH} {int(m.group(2))}", text)
    return _MONTH.sub(MADE_UP_MONTH, text)


def _values(contract: FaultContract) -> list[str]:
    return [
        v
        for v in (contract.injected_value, contract.authoritative_value)
        if isinstance(v, str) and not re.fullmatch(r"\d{4}-\d\d-\d\d", v)
    ]


def invented_value_forms(text: str, contract: FaultContract) -> str:
    """The fact's values (an option's, a payment category's) in an invented form: a number
    with an invented unit ('1000 zorpl'), a word with an invented prefix ('zorpwhite')."""
    for value in sorted(_values(contract), key=len, reverse=True):
        forms = {value, value.replace("_", " "), value.replace("_", "-")}
        digits = re.match(r"\d+(?:\.\d+)?", value)
        made_up = f"{digits.group(0)} zorpl" if digits else "zorp" + re.sub(r"\W|_", "", value)
        for form in sorted(forms, key=len, reverse=True):
            text = re.sub(rf"(?<!\w){re.escape(form)}(?!\w)", made_up, text, flags=re.I)
    return text


def made_up_product(text: str, contract: FaultContract) -> str:
    """The item's product named by a made-up product word ('your Flumbrik')."""
    name = contract.target.related_ids.get("product_name")
    if not name:
        return text
    for form in (name, name.split()[-1]):
        text = re.sub(rf"\b{re.escape(form)}s?\b", "Flumbrik", text, flags=re.I)
    return text


def _pseudo(match: re.Match[str]) -> str:
    word = match.group(0)
    return word if word.isupper() else "zq" + word[::-1].lower()


def invented_language(text: str, contract: FaultContract) -> str:
    """Every sentence that writes a value of the fact or names the entity, in an invented
    language (each word of three letters or more made up; numbers, ids, codes kept)."""
    keys = [contract.target.entity_id, *_values(contract), *_date_forms(contract)]
    out = []
    for sentence in re.split(r"(?<=[.!?\n])", text):
        if any(k and k.lower() in sentence.lower() for k in keys):
            sentence = _WORD.sub(_pseudo, sentence)
        out.append(sentence)
    return "".join(out)


def _date_forms(contract: FaultContract) -> list[str]:
    from sscbench.references.text import date_variants

    out = []
    for value in (contract.injected_value, contract.authoritative_value):
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d-\d\d", value):
            out.extend(date_variants(value))
    return out


REWRITES: dict[str, Rewrite] = {
    "made-up-months": made_up_months,
    "invented-value-forms": invented_value_forms,
    "made-up-product": made_up_product,
    "invented-language": invented_language,
}


def rewrite_ledger(ledger: list[Any], contract: FaultContract, rewrite: Rewrite) -> list[Any]:
    """The ledger with every agent message, handoff summary and thought rewritten."""
    out = []
    for event in ledger:
        if isinstance(event, AssistantEvent):
            update: dict[str, Any] = {}
            if event.content:
                update["content"] = rewrite(event.content, contract)
            calls = tuple(_call(c, contract, rewrite) for c in event.tool_calls)
            if calls != event.tool_calls:
                update["tool_calls"] = calls
            event = event.model_copy(update=update) if update else event
        out.append(event)
    return out


def _call(call: Any, contract: FaultContract, rewrite: Rewrite) -> Any:
    field = {"transfer_to_human_agents": "summary", "think": "thought"}.get(call.name)
    if field is None:
        return call
    try:
        arguments = json.loads(call.arguments)
    except ValueError:
        return call
    if not isinstance(arguments, dict) or not isinstance(arguments.get(field), str):
        return call
    arguments[field] = rewrite(arguments[field], contract)
    return call.model_copy(update={"arguments": json.dumps(arguments)})
