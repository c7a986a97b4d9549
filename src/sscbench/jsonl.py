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
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, overload

from pydantic import BaseModel, TypeAdapter, ValidationError

from sscbench.errors import DataError, naming
from sscbench.reading import (
    json_reason,
    loads_json,
    read_json,
    read_text,
)

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
    ``\\uXXXX`` escapes: a page of model text must never fail to be written. Atomic, as
    :func:`sscbench.core.files.atomic_write` (which sits above this module): a temporary
    ``.NAME.PID.tmp`` beside it, renamed over ``path`` once whole."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with naming(path):
            tmp.write_bytes(escape_surrogates(text).encode("utf-8"))
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def dumps_line(value: object, *, sort_keys: bool = False) -> str:
    """Compact JSON text of plain data that always encodes as UTF-8.

    A lone surrogate can only occur inside a JSON string, so writing it as its
    escape keeps the line valid JSON and lossless.
    """
    return json_safe(_ENCODERS[sort_keys](value))


_ENCODERS = {
    sort: json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=sort).encode
    for sort in (False, True)
}
"""What ``json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=...)``
calls, built once: ``json.dumps`` builds a new encoder on each call with arguments
(microseconds, on the path of every model request and every ledger line)."""


def model_line(model: BaseModel) -> str:
    """A pydantic model as one JSON line: pydantic's own bytes (line breaks other than
    ``"\\n"`` escaped, :func:`json_safe`), unless the text cannot be UTF-8 encoded (a lone
    surrogate); then :func:`dumps_line` of its JSON-mode dump."""
    try:
        return json_safe(model.model_dump_json())
    except ValueError:  # PydanticSerializationError: a code point UTF-8 cannot encode
        return dumps_line(model.model_dump(mode="json"))


@overload
def loads_line(adapter: TypeAdapter[T], line: str) -> T: ...


@overload
def loads_line(adapter: type[M], line: str) -> M: ...


def loads_line(adapter: TypeAdapter[T] | type[M], line: str) -> T | M:
    """Validate one JSON line, also when it holds ``\\ud800``-style escapes of lone
    surrogates (pydantic's JSON parser refuses them; Python's reads them exactly)."""
    validate_json: Callable[[str], T | M]
    validate: Callable[[object], T | M]
    if isinstance(adapter, TypeAdapter):
        validate_json, validate = adapter.validate_json, adapter.validate_python
    else:
        validate_json, validate = adapter.model_validate_json, adapter.model_validate
    try:
        return validate_json(line)
    except ValueError:
        if "\\ud" not in line.lower():
            raise
    return validate(loads_json(line))


def read_jsonl(
    path: str | Path,
    parse: Callable[[str], T] = loads_json,
    unique: tuple[str, Callable[[T], object]] | None = None,
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
    seen: dict[object, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = parse(line)
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else json_reason(exc)
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


def iter_jsonl(path: str | Path, parse: Callable[[str], T] = loads_json) -> Iterator[T]:
    """Every non-blank line of ``path`` parsed by ``parse``, read one line at a time.

    The streaming :func:`read_jsonl` (without ``unique``): the same one line rule, the
    same errors (the file; the line; bytes that are not UTF-8, by offset), but the file
    is never held whole, so a reader of a file with a line per run keeps only what it
    makes of each line.
    """
    for _, item in iter_jsonl_at(path, parse):
        yield item


def iter_jsonl_at(
    path: str | Path, parse: Callable[[str], T] = loads_json
) -> Iterator[tuple[int, T]]:
    """:func:`iter_jsonl` with each item's line offset (its first byte in the file): for
    a reader that keeps where a line is instead of what it holds, to read it again."""
    path = Path(path)
    offset = 0
    try:
        handle = path.open("rb")
    except FileNotFoundError as exc:
        raise DataError(path, None, "cannot read: file not found") from exc
    except OSError as exc:
        raise DataError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                where = offset + exc.start
                raise DataError(path, None, f"not UTF-8 text (byte {where})") from exc
            at, offset = offset, offset + len(raw)
            if not line.strip():
                continue
            try:
                yield at, parse(line.removesuffix("\n"))
            except ValueError as exc:
                reason = exc.msg if isinstance(exc, json.JSONDecodeError) else json_reason(exc)
                raise DataError(path, f"line {number}", reason.splitlines()[0]) from exc


def loads_object(line: str) -> dict[str, Any]:
    """One JSONL line's object; a line holding anything else is a ``ValueError`` (which
    the line readers turn into an error naming the file and line)."""
    value = loads_json(line)
    if not isinstance(value, dict):
        raise ValueError("expected a JSON object")
    return value


def read_objects(path: str | Path) -> list[dict[str, Any]]:
    """JSON objects, one per line (a line holding anything else is an error)."""
    return read_jsonl(path, loads_object)


def read_json_model(path: str | Path, model: type[M], schema: str | None = None) -> M:
    """``path`` validated as ``model``; with ``schema``, its ``schema`` field must be that
    tag. A failure raises :class:`DataError` naming the file and the first bad field."""
    path = Path(path)
    try:
        result = model.model_validate(read_json(path))
    except ValidationError as exc:
        first = exc.errors()[0]
        reason = first["msg"].removeprefix("Value error, ")
        raise DataError(path, ".".join(map(str, first["loc"])) or None, reason) from exc
    found = getattr(result, "schema_", None)
    if schema is not None and found != schema:
        raise DataError(path, "schema", f"expected {schema!r}, not {found!r}")
    return result
