"""JSONL files: bad lines reported by file and line number; any text written losslessly.

Model output may hold code points UTF-8 cannot encode (a lone UTF-16 surrogate such
as ``"\\ud800"``, which a JSON ``\\ud800`` escape from an endpoint decodes to).
:func:`dumps_line` and :func:`model_line` write such a code point as its JSON escape,
so the file stays valid UTF-8 and :func:`loads_line` reads back exactly the text that
was written.

**One line rule.** A JSONL line ends at ``"\\n"`` and nowhere else
(:func:`split_lines`; never ``str.splitlines()``, which also breaks at U+2028, U+2029,
U+0085 and other characters a model may write). The writers also escape those three
characters (:func:`json_safe`), so a file stays one record per line for any other
tool too. Every other character is written as it is: text without them gives the same
bytes as before, and files written before still read the same.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from sscbench.errors import DataError, naming

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}
_BREAK_ESCAPES = str.maketrans(_LINE_BREAKS)


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its ``\\uXXXX`` escape (JSON-safe).

    Text without one (nearly all) is returned as it is after one C-speed ``isascii`` or
    UTF-8 encoding check, not a regular-expression pass (a model request is ~15 KB)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
    return text


MAX_DEPTH = 200
"""Deepest nesting of lists and objects :func:`loads_json` accepts (model-written JSON)."""


class JSONTooDeep(ValueError):
    """JSON nested deeper than :data:`MAX_DEPTH` levels (or than the parser can recurse)."""

    def __init__(self, max_depth: int):
        self.max_depth = max_depth
        super().__init__(f"nested more than {max_depth} levels deep")


def nesting_depth(value: Any, stop_after: int | None = None) -> int:
    """How many lists/objects deep ``value`` goes (counted without recursion); with
    ``stop_after``, the count stops at the first container deeper than that."""
    if not isinstance(value, dict | list):
        return 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if stop_after is not None and deepest > stop_after:
            return deepest
        children: Iterable[Any] = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return deepest


def loads_json(text: str | bytes, max_depth: int | None = MAX_DEPTH) -> Any:
    """JSON a model (or an endpoint or a tool) wrote, decoded within bounds: the one
    decoder of every reader of such JSON (call arguments, observations, answers).

    Raises only ``ValueError``: :class:`json.JSONDecodeError` for bad JSON,
    :class:`JSONTooDeep` beyond ``max_depth`` levels or beyond what the parser can
    recurse (where ``json.loads`` alone raises ``RecursionError``), and a plain
    ``ValueError`` for an integer longer than Python reads (4,300 digits). So a run,
    ``measure``, ``report`` and the exports all see the same unparsed text, never a
    traceback. ``max_depth=None`` (tool observations, endpoint bodies: no level limit
    of their own) skips the walk that counts the levels."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTooDeep(max_depth or sys.getrecursionlimit()) from None
    if max_depth is None or not isinstance(value, dict | list):
        return value
    if isinstance(text, str) and text.count("[") + text.count("{") <= max_depth:
        return value  # fewer brackets than levels: it cannot be too deep (no walk)
    if nesting_depth(value, stop_after=max_depth) > max_depth:
        raise JSONTooDeep(max_depth)
    return value


def json_safe(text: str) -> str:
    """JSON text made safe for a line of a JSONL file: lone surrogates and the line
    breaks U+2028, U+2029 and U+0085 written as their ``\\uXXXX`` escapes.

    Those code points can only occur inside a JSON string (none is JSON whitespace), so
    the escape keeps the value exactly; text without them is returned as it is."""
    if text.isascii():
        return text
    text = escape_surrogates(text)
    if "\u2028" in text or "\u2029" in text or "\x85" in text:
        text = text.translate(_BREAK_ESCAPES)
    return text


def split_lines(text: str) -> list[str]:
    """The lines of a JSONL file's text: split at ``"\\n"`` only (the one line rule of
    every JSONL reader here; a ``"\\r"`` before it is JSON whitespace, read as such)."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def read_text(path: str | Path) -> str:
    """A study or input file's text as UTF-8; an unreadable file or bytes that are not
    UTF-8 raise :class:`DataError` naming the file (and the byte offset)."""
    path = Path(path)
    try:
        return path.read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(path, None, f"not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise DataError(path, None, f"cannot read: {exc.strerror or exc}") from exc


def read_lines(path: str | Path) -> list[str]:
    """A JSONL file's lines by the one line rule (:func:`split_lines`), read as
    :func:`read_text` reads."""
    return split_lines(read_text(path))


def visible_surrogates(value: Any) -> Any:
    """Plain data with each lone surrogate in its strings (keys too) replaced by the six
    characters of its ``\\uXXXX`` escape: for a writer that must encode every string as
    UTF-8 (an Inspect log, an OTLP message), so model text never stops an export."""
    if isinstance(value, str):
        return escape_surrogates(value)
    if isinstance(value, dict):
        return {visible_surrogates(k): visible_surrogates(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [visible_surrogates(v) for v in value]
    return value


def write_utf8(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8, lone surrogates (possible in model output) shown as their
    ``\\uXXXX`` escapes: a page of model text must never fail to be written."""
    with naming(path):
        Path(path).write_text(escape_surrogates(text), encoding="utf-8")


def dumps_line(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON text of plain data that always encodes as UTF-8.

    A lone surrogate can only occur inside a JSON string, so writing it as its
    escape keeps the line valid JSON and lossless.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)
    return json_safe(text)


def model_line(model: BaseModel) -> str:
    """A pydantic model as one JSON line: pydantic's own bytes (line breaks other than
    ``"\\n"`` escaped, :func:`json_safe`), unless the text cannot be UTF-8 encoded (a lone
    surrogate); then :func:`dumps_line` of its JSON-mode dump."""
    try:
        return json_safe(model.model_dump_json())
    except ValueError:  # PydanticSerializationError: a code point UTF-8 cannot encode
        return dumps_line(model.model_dump(mode="json"))


def loads_line(adapter: TypeAdapter[T] | type[BaseModel], line: str) -> Any:
    """Validate one JSON line, also when it holds ``\\ud800``-style escapes of lone
    surrogates (pydantic's JSON parser refuses them; Python's reads them exactly)."""
    validate_json: Callable[[str], Any]
    validate: Callable[[Any], Any]
    if isinstance(adapter, TypeAdapter):
        validate_json, validate = adapter.validate_json, adapter.validate_python
    else:
        validate_json, validate = adapter.model_validate_json, adapter.model_validate
    try:
        return validate_json(line)
    except ValueError:
        if "\\ud" not in line.lower():
            raise
    return validate(json.loads(line))


def read_jsonl(
    path: str | Path,
    parse: Callable[[str], T] = json.loads,
    unique: tuple[str, Callable[[T], Any]] | None = None,
) -> list[T]:
    """Every non-blank line of ``path`` parsed by ``parse``.

    An unreadable file, or a line ``parse`` rejects with a ``ValueError`` (bad JSON, a
    failed validation), raises :class:`DataError` naming the file and the line. With
    ``unique = (name, key)``, two lines of the same ``key`` are refused the same way
    (naming the field, the value and the earlier line), never merged.
    """
    path = Path(path)
    lines = read_lines(path)
    out: list[T] = []
    seen: dict[Any, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = parse(line)
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise DataError(path, f"line {number}", reason.splitlines()[0]) from exc
        if unique is not None:
            name, key = unique
            value = key(item)
            if value in seen:
                where = f"line {number}: {name}"
                raise DataError(path, where, f"{value!r} repeats line {seen[value]}")
            seen[value] = number
        out.append(item)
    return out


def read_objects(path: str | Path) -> list[dict[str, Any]]:
    """JSON objects, one per line (a line holding anything else is an error)."""

    def parse(line: str) -> dict[str, Any]:
        value = json.loads(line)
        if not isinstance(value, dict):
            raise ValueError("expected a JSON object")
        return value

    return read_jsonl(path, parse)


def read_json(path: str | Path) -> Any:
    """One JSON document from ``path``; an unreadable file or bad JSON raises
    :class:`DataError` naming the file."""
    path = Path(path)
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(path, None, f"not JSON: {exc.msg}") from exc


def read_json_model(path: str | Path, model: type[M], schema: str | None = None) -> M:
    """``path`` validated as ``model``; with ``schema``, its ``schema`` field must be that
    tag. A failure raises :class:`DataError` naming the file and the first bad field."""
    path = Path(path)
    try:
        result = model.model_validate(read_json(path))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise DataError(path, ".".join(map(str, first["loc"])) or None, first["msg"]) from exc
    found = getattr(result, "schema_", None)
    if schema is not None and found != schema:
        raise DataError(path, "schema", f"expected {schema!r}, not {found!r}")
    return result
