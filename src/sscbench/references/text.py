"""Agent text as plain, segmentable lines.

Some agents wrap every reply in JSON (``{"message": "...\\n...", "next_steps": [...]}``)
or answer with a pretty-printed object whose sibling keys describe one entity
(``{"item": "T-shirt", "item_id": "123", "color": "blue"}``). Measurement reads lines,
sentences and bullet blocks, so such a message is rendered as lines of ``key: value``:
strings unescaped, a nested object or list indented as bullet lines under its parent
key, each object of a list one bullet block (its first key the head line, its other
keys bullet lines under it), so an object's sibling keys stay together as one block;
the message's own object likewise, its head line unbulleted and its head value's lines
(the message's prose) as written. A value's line breaks are layout inside the value, never of the object: the object is
rendered the same whether or not a value contains one, and a value with line breaks
keeps its lines, indented as a block under its key (``key:`` alone on its line).
Anything that does not parse as a JSON object or list is left as written.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping

from sscbench.core.view import LedgerView
from sscbench.json_types import JsonObject, JsonValue
from sscbench.reading import loads_json
from sscbench.references.dates_locale import plain_date_dots

MAX_DEPTH = 12
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)\n?```", re.DOTALL)


# Typographic forms models write for plain ones: non-breaking and other hyphens, narrow
# and non-breaking spaces, curly quotes and apostrophes (en and em dashes are kept: they
# mark ranges and asides).
PLAIN_TYPOGRAPHY = str.maketrans(
    {
        "\u2010": "-",
        "\u2011": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u2007": " ",
        "\u2009": " ",
        "\u202f": " ",
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00ad": None,
        "\u200b": None,
    }
)


def plain_typography(text: str) -> str:
    """The text with typographic hyphens, spaces and quotes as their plain ASCII forms, so
    "Gift\u2011card", "2024\u201105\u201120" and "don\u2019t" read like what they mean."""
    return text.translate(PLAIN_TYPOGRAPHY)


def render(text: str) -> str:
    """The message as plain text: a JSON object or list (whole, or in a ```json fence)
    rendered as ``key: value`` lines, other text unchanged; typography made plain, and
    the dots inside other languages' dates ("26. Mai") too, which end no sentence."""
    whole = _parse(text)
    if whole is not None:
        return plain_date_dots(plain_typography(render_json(whole)))
    if "```" not in text:
        return plain_date_dots(plain_typography(text))

    def fenced(match: re.Match[str]) -> str:
        data = _parse(match.group(1))
        return match.group(0) if data is None else render_json(data)

    return plain_date_dots(plain_typography(_FENCE.sub(fenced, text)))


def _parse(text: str) -> JsonObject | list[JsonValue] | None:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        data = loads_json(stripped)
    except ValueError:
        return None
    return data if isinstance(data, dict | list) else None


def render_json(data: JsonValue) -> str:
    """Lines of ``key: value`` for a parsed JSON value (depth capped at ``MAX_DEPTH``)."""
    lines: list[str] = []
    if isinstance(data, dict):
        _message(lines, data)
    elif isinstance(data, list):
        for value in data:
            _element(lines, value, 0)
    else:
        lines.append(_scalar(data))
    return "\n".join(lines)


def _message(lines: list[str], data: Mapping[str, JsonValue]) -> None:
    """The whole message's object as one block: its first scalar key the head line, its
    value's lines the message's own lines as written; the other keys bullet lines
    under it, whether or not any value has a line break."""
    items = list(data.items())
    head_key, head = next(((k, v) for k, v in items if _is_scalar(v)), (None, None))
    if head_key is None:
        for key, value in items:
            _entry(lines, str(key), value, 0, bullet=False)
        return
    lines.append(f"{head_key}: {_scalar(head)}")
    for key, value in items:
        if key != head_key:
            _entry(lines, str(key), value, 1, bullet=True)


def _put(lines: list[str], head: str, value: str, indent: str) -> None:
    """``head`` followed by a value: on its line, or, for a value with line breaks,
    ``head`` alone and the value's lines indented by ``indent`` under it (a block of
    its entry, whatever the lines hold)."""
    if "\n" not in value:
        lines.append(f"{head}{value}")
        return
    lines.append(head if head.endswith("- ") else head.rstrip())  # a bullet stays one
    lines.extend(f"{indent}{line}" if line.strip() else "" for line in value.split("\n"))


def _scalar(value: JsonValue) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list):  # beyond the depth cap
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _is_scalar(value: JsonValue) -> bool:
    return not isinstance(value, dict | list)


def _entry(lines: list[str], key: str, value: JsonValue, depth: int, bullet: bool) -> None:
    """One ``key: value`` line (a nested value as bullet lines under it)."""
    pad = "  " * depth + ("- " if bullet else "")
    indent = "  " * (depth + 1) + ("  " if bullet else "")
    if _is_scalar(value) or depth >= MAX_DEPTH:
        _put(lines, f"{pad}{key}: ", _scalar(value), indent)
    elif isinstance(value, list) and all(_is_scalar(v) for v in value):
        _put(lines, f"{pad}{key}: ", ", ".join(_scalar(v) for v in value), indent)
    elif isinstance(value, dict):
        lines.append(f"{pad}{key}:")
        for k, v in value.items():
            _entry(lines, str(k), v, depth + 1, bullet=True)
    elif isinstance(value, list):
        lines.append(f"{pad}{key}:")
        for v in value:
            _element(lines, v, depth + 1)


def _element(lines: list[str], value: JsonValue, depth: int) -> None:
    """One list element: a bullet line, an object as a bullet block."""
    pad = "  " * depth
    if _is_scalar(value) or depth >= MAX_DEPTH:
        _put(lines, f"{pad}- ", _scalar(value), pad + "    ")
        return
    if isinstance(value, list):
        for v in value:
            _element(lines, v, depth + 1)
        return
    items = list(value.items()) if isinstance(value, dict) else []
    if not items:
        return
    head_key, head = next(((k, v) for k, v in items if _is_scalar(v)), items[0])
    _entry(lines, str(head_key), head, depth, bullet=True)
    for k, v in items:
        if k != head_key:
            _entry(lines, str(k), v, depth + 1, bullet=True)


# ---- the texts of a ledger --------------------------------------------------------------

HANDOFF = "transfer_to_human_agents"


THINK = "think"


def agent_texts(view: LedgerView, after: int) -> list[tuple[int, str, str]]:
    """(step, channel, text) of every agent message, handoff summary and recorded thought
    after ``after``.

    A handoff summary is what the agent communicates to the next agent: it is read like
    a message (channel ``handoff``) and takes a stance. A ``think`` call is a tool call
    whose argument is free text: when that text depends on the fact, the call is a
    dependent use (Def. 3.2; channel ``reasoning``), but it communicates nothing, so it
    takes no stance. Every text is rendered as plain lines (:func:`render`:
    a JSON-wrapped message reads like the prose it wraps).
    """
    out = [
        (m.step, "message", render(m.content)) for m in view.assistant_messages() if m.step > after
    ]
    for call in view.calls_named(HANDOFF):
        if call.call_step > after:
            out.append((call.call_step, "handoff", render(str(call.arg("summary") or ""))))
    for call in view.calls_named(THINK):
        if call.call_step > after:
            out.append((call.call_step, "reasoning", render(str(call.arg("thought") or ""))))
    return sorted(out, key=lambda t: t[0])


def clauses(text: str) -> list[tuple[int, str]]:
    """(offset, clause) of a text split at sentence ends, line breaks and semicolons."""
    out, start = [], 0
    for match in re.finditer(r"(?<=[.!?;])\s+|\n+|(?<=:)\s+(?=[-*\d])", text):
        out.append((start, text[start : match.start()]))
        start = match.end()
    out.append((start, text[start:]))
    return [(o, c) for o, c in out if c.strip()]


def date_variants(iso: str) -> list[str]:
    """Ways a date may be written (ISO, 'May 10', '10 May', '05/10', weekday...)."""
    try:
        day = dt.date.fromisoformat(iso)
    except ValueError:
        return [iso]
    month = day.strftime("%B")
    short = day.strftime("%b")
    n = day.day
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return [
        iso,
        f"{month} {n}{suffix}",
        f"{month} {n}",
        f"{short} {n}",
        f"{n} {month}",
        f"{n}{suffix} of {month}",
        day.strftime("%m/%d/%Y"),
        day.strftime("%m/%d"),
        f"{day.month}/{n}",
        iso.replace("-", "/"),
    ]


def mentions(text: str, variants: list[str]) -> str | None:
    """The first variant written in the text as a whole token, or None."""
    for variant in variants:
        pattern = r"(?<![\w/-])" + re.escape(variant) + r"(?![\w/]|-\d)"
        match = re.search(pattern, text, flags=re.IGNORECASE)
        if match:
            return match.group(0)
    return None
