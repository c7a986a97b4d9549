"""Agent text as plain, segmentable lines.

Some agents wrap every reply in JSON (``{"message": "...\\n...", "next_steps": [...]}``)
or answer with a pretty-printed object whose sibling keys describe one entity
(``{"item": "T-shirt", "item_id": "123", "color": "blue"}``). Measurement reads lines,
sentences and bullet blocks, so such a message is rendered as lines of ``key: value``:
strings unescaped, a nested object or list indented as bullet lines under its parent
key, each object of a list one bullet block (its first key the head line, its other
keys bullet lines under it), so an object's sibling keys stay together as one block.
A value's line breaks are layout inside the value, never of the object: the object is
rendered the same whether or not a value contains one, a value of plain lines is one
line of its key (its lines joined), and a value with structure (a list, table or
heading) keeps its lines, indented under its key. Anything that does not parse as a
JSON object or list is left as written.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 12
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)\n?```", re.DOTALL)
# a line that gives a value structure: a bullet, a numbered line, a table row, a heading
_STRUCTURED = re.compile(r"^\s*(?:[-*•·+]\s|\d{1,2}[.)]\s|\||#|>)")


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
    rendered as ``key: value`` lines, other text unchanged; typography made plain."""
    whole = _parse(text)
    if whole is not None:
        return plain_typography(render_json(whole))
    if "```" not in text:
        return plain_typography(text)

    def fenced(match: re.Match[str]) -> str:
        data = _parse(match.group(1))
        return match.group(0) if data is None else render_json(data)

    return plain_typography(_FENCE.sub(fenced, text))


def _parse(text: str) -> dict[str, Any] | list[Any] | None:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        data = json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict | list) else None


def render_json(data: Any) -> str:
    """Lines of ``key: value`` for a parsed JSON value (depth capped at ``MAX_DEPTH``)."""
    lines: list[str] = []
    if isinstance(data, dict):
        _element(lines, data, 0)  # one object: its keys one block, like a list's element
    elif isinstance(data, list):
        for value in data:
            _element(lines, value, 0)
    else:
        lines.extend(_value_lines(_scalar(data)))
    return "\n".join(lines)


def _value_lines(text: str) -> list[str]:
    """A string value's lines: plain lines joined into one (a line break inside a value
    is layout, not a new entry), lines with structure kept as written."""
    lines = text.split("\n")
    if len(lines) == 1 or any(_STRUCTURED.match(line) for line in lines):
        return lines
    return [" ".join(line.strip() for line in lines if line.strip())]


def _put(lines: list[str], head: str, value: str, indent: str) -> None:
    """``head`` followed by a value; the value's further lines (all of them when it opens
    with a list or table row) indented by ``indent`` under it, so they stay its entry's."""
    first, *rest = _value_lines(value)
    if rest and _STRUCTURED.match(first):  # a value opening with a list or table row
        first, rest = "", [first, *rest]
    lines.append(f"{head}{first}".rstrip() if rest else f"{head}{first}")
    lines.extend(f"{indent}{line}" if line.strip() else "" for line in rest)


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list):  # beyond the depth cap
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, dict | list)


def _entry(lines: list[str], key: str, value: Any, depth: int, bullet: bool) -> None:
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
    else:
        lines.append(f"{pad}{key}:")
        for v in value:
            _element(lines, v, depth + 1)


def _element(lines: list[str], value: Any, depth: int) -> None:
    """One list element: a bullet line, an object as a bullet block."""
    pad = "  " * depth
    if _is_scalar(value) or depth >= MAX_DEPTH:
        _put(lines, f"{pad}- ", _scalar(value), pad + "    ")
        return
    if isinstance(value, list):
        for v in value:
            _element(lines, v, depth + 1)
        return
    items = list(value.items())
    if not items:
        return
    head_key, head = next(((k, v) for k, v in items if _is_scalar(v)), items[0])
    _entry(lines, str(head_key), head, depth, bullet=True)
    for k, v in items:
        if k != head_key:
            _entry(lines, str(k), v, depth + 1, bullet=True)
