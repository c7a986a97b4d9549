"""JSONL files: bad lines reported by file and line number; any text written losslessly.

Model output may hold code points UTF-8 cannot encode (a lone UTF-16 surrogate such
as ``"\\ud800"``, which a JSON ``\\ud800`` escape from an endpoint decodes to).
:func:`dumps_line` and :func:`model_line` write such a code point as its JSON escape,
so the file stays valid UTF-8 and :func:`loads_line` reads back exactly the text that
was written; every other character is written as it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from sscbench.errors import DataError

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

_SURROGATE = re.compile("[\ud800-\udfff]")


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


def write_utf8(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8, lone surrogates (possible in model output) shown as their
    ``\\uXXXX`` escapes: a page of model text must never fail to be written."""
    Path(path).write_text(escape_surrogates(text), encoding="utf-8")


def dumps_line(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON text of plain data that always encodes as UTF-8.

    A lone surrogate can only occur inside a JSON string, so writing it as its
    escape keeps the line valid JSON and lossless.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)
    return escape_surrogates(text)


def model_line(model: BaseModel) -> str:
    """A pydantic model as one JSON line: pydantic's own bytes, unless the text cannot be
    UTF-8 encoded (a lone surrogate); then :func:`dumps_line` of its JSON-mode dump."""
    try:
        return model.model_dump_json()
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


def read_jsonl(path: str | Path, parse: Callable[[str], T] = json.loads) -> list[T]:
    """Every non-blank line of ``path`` parsed by ``parse``.

    An unreadable file, or a line ``parse`` rejects with a ``ValueError`` (bad JSON, a
    failed validation), raises :class:`DataError` naming the file and the line.
    """
    path = Path(path)
    try:
        lines = path.read_text("utf-8").splitlines()
    except OSError as exc:
        raise DataError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    out: list[T] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            out.append(parse(line))
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise DataError(path, f"line {number}", reason.splitlines()[0]) from exc
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
    try:
        return json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise DataError(path, None, f"cannot read: {exc.strerror or exc}") from exc
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
