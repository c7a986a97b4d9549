"""Reading JSONL files whose bad lines are reported by file and line number."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sscbench.errors import DataError

T = TypeVar("T")


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
