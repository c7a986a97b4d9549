"""The one reading rule of every file the project reads, and its one CSV writer.

**Reading.** Every JSON, JSONL and TOML text goes through this module (a test walks the
source: no ``json.load``, ``json.loads``, ``tomllib.load(s)`` or ``csv.reader`` call
anywhere else). Each reader is bounded — a file over :data:`MAX_BYTES`, nesting over
:data:`MAX_DEPTH` levels, an integer over Python's 4,300 digits — and checks the
whole file as UTF-8, so hostile input ends as one :class:`DataError`
(``error: FILE, field F: reason``, exit 2), never a traceback.

**Writing CSV.** `write_csv_rows` is the one CSV writer: a text cell that a spreadsheet
would run as a formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return, OWASP's list) gets a leading ``'``; a plain number such as ``-3`` or ``-0.5``
stays a number (:func:`csv_cell`).
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Annotated, Any

from pydantic import AfterValidator

from sscbench.errors import DataError

MAX_DEPTH = 200
"""Deepest nesting of lists and objects (tables and arrays in TOML) any reader accepts."""

MAX_BYTES = 1 << 30
"""Largest file read (1 GiB): far above any study file, below what exhausts memory."""


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
    """JSON decoded within bounds: the one JSON decoder of the project (files, lines,
    call arguments, observations, answers, endpoint bodies).

    Raises only ``ValueError``: :class:`json.JSONDecodeError` for bad JSON,
    :class:`JSONTooDeep` beyond ``max_depth`` levels or beyond what the parser can
    recurse (where ``json.loads`` alone raises ``RecursionError``), and a plain
    ``ValueError`` for an integer longer than Python reads (4,300 digits) or bytes that
    are not UTF-8. ``max_depth=None`` (tool observations, endpoint bodies: no level
    limit of their own) skips the walk that counts the levels."""
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


def json_reason(exc: ValueError) -> str:
    """The one-line reason of a :func:`loads_json` failure, for an ``error:`` line."""
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON: {exc.msg}"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "integer string conversion" in text:
        return "an integer longer than 4,300 digits"
    return text


def read_text(path: str | Path, max_bytes: int = MAX_BYTES) -> str:
    """A study or input file's text, checked whole as UTF-8; an unreadable file, one over
    ``max_bytes``, or bytes that are not UTF-8 raise :class:`DataError` naming the file
    (and the byte offset)."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError as exc:
        raise DataError(path, None, "cannot read: file not found") from exc
    except OSError as exc:
        raise DataError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise DataError(path, None, f"larger than {max_bytes:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(path, None, f"not UTF-8 text (byte {exc.start})") from exc


def loads_file_json(path: str | Path, text: str, field: str | None = None) -> Any:
    """``text`` (read from ``path``) decoded by :func:`loads_json`; a failure is a
    :class:`DataError` naming the file and ``field`` (e.g. ``line 3``)."""
    try:
        return loads_json(text)
    except ValueError as exc:
        raise DataError(path, field, json_reason(exc)) from exc


def read_json(path: str | Path) -> Any:
    """One JSON document from ``path``, read by the reading rule (bounded, UTF-8 whole);
    a failure raises :class:`DataError` naming the file."""
    return loads_file_json(path, read_text(path))


_TOML_TOKENS = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]'
)


def toml_depth(text: str, stop_after: int = MAX_DEPTH) -> int:
    """How deep arrays and inline tables nest in TOML ``text`` (strings and comments
    skipped; counting stops past ``stop_after``): ``tomllib`` recurses once per level
    and has no limit of its own, so the depth is checked before it parses."""
    if text.count("[") + text.count("{") <= stop_after:
        return 0
    depth = deepest = 0
    for match in _TOML_TOKENS.finditer(text):
        token = match.group(0)
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > stop_after:
                break
        elif token in "]}":
            depth = max(depth - 1, 0)
    return deepest


def loads_toml(path: str | Path, text: str) -> dict[str, Any]:
    """TOML ``text`` (read from ``path``) parsed within the reading rule's bounds; bad
    TOML, nesting over :data:`MAX_DEPTH` or an over-long integer is a :class:`DataError`
    naming the file."""
    if toml_depth(text) > MAX_DEPTH:
        raise DataError(path, None, f"not valid TOML: nested more than {MAX_DEPTH} levels deep")
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise DataError(path, None, "not valid TOML: nested too deep") from None
    except ValueError as exc:  # TOMLDecodeError, or an integer over 4,300 digits
        raise DataError(path, None, f"not valid TOML: {json_reason(exc)}") from exc
    if nesting_depth(value, stop_after=MAX_DEPTH) > MAX_DEPTH:  # dotted keys nest too
        raise DataError(path, None, f"not valid TOML: nested more than {MAX_DEPTH} levels deep")
    return value


def read_toml(path: str | Path) -> dict[str, Any]:
    """One TOML file read by the reading rule (bounded, UTF-8 whole, errors naming it)."""
    return loads_toml(path, read_text(path))


_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """One CSV cell safe to open in a spreadsheet: text starting with ``=``, ``+``, ``-``,
    ``@``, a tab or a carriage return gets a leading ``'`` (OWASP's rule against formula
    injection) unless it is a plain number (``-3``, ``-0.5``, ``+1e5``). Numbers,
    booleans and ``None`` are written as they are."""
    if value is None or isinstance(value, int | float):
        return value
    text = value if isinstance(value, str) else str(value)
    if text.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return value


def write_csv_rows(
    handle: IO[str],
    columns: Sequence[str],
    rows: Iterable[Sequence[Any] | Mapping[str, Any]],
    *,
    lineterminator: str = "\r\n",
) -> None:
    """The project's one CSV writer: ``columns`` as the header, then each row (a sequence
    in column order, or a mapping read by column name: missing keys empty, others
    ignored), every cell through :func:`csv_cell`."""
    writer = csv.writer(handle, lineterminator=lineterminator)
    writer.writerow([csv_cell(c) for c in columns])
    for row in rows:
        if isinstance(row, Mapping):
            row = [row.get(column, "") for column in columns]
        writer.writerow([csv_cell(cell) for cell in row])


def read_csv(path: str | Path) -> list[dict[str, str]]:
    """A CSV file with a header row as one dict per row, read by the reading rule."""
    return list(csv.DictReader(io.StringIO(read_text(path), newline="")))


MAX_NAME = 200
"""Longest name that becomes a file name: a run id under ``runs/`` with its longest
suffix (``.evaluator.jsonl``) and a temporary name's dot and process id stays below
the 255 bytes a file name may have, and every generated run id fits."""

_NAME_CHARACTERS = re.compile(r"[A-Za-z0-9._~-]+")


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot become one file or folder name (None: it can).

    The one rule for every name read from a file or a command line that later names a
    path — run ids, agent (configuration) ids, reviewer names, review ids: a string of
    letters, digits, ``.``, ``_``, ``-`` and ``~``, at most :data:`MAX_NAME` characters,
    not starting with ``.`` (so never ``.`` or ``..``, never a hidden file such as
    ``runs/..ledger.jsonl``, never a separator). Checked wherever such a name is read,
    not only where a person types it, so an edited ``plan.json`` or index cannot lead a
    reader out of its folder."""
    if not isinstance(name, str) or not name:
        return "a name must be a non-empty string"
    if len(name) > MAX_NAME:
        return f"longer than {MAX_NAME} characters"
    if not _NAME_CHARACTERS.fullmatch(name):
        return f"{name!r} is not a safe file name: letters, digits, '.', '_', '-', '~' only"
    if name.startswith("."):
        return f"{name!r} is not a safe file name: it may not start with '.'"
    return None


def check_name(name: object, path: str | Path, field: str | None) -> str:
    """``name`` when it can become a file name (:func:`name_problem`); otherwise a
    :class:`DataError` naming the file and field it was read from."""
    problem = name_problem(name)
    if problem is not None:
        raise DataError(path, field, problem)
    assert isinstance(name, str)
    return name


def safe_name(name: str) -> str:
    """A pydantic ``AfterValidator``: ``name`` as it is, or ``ValueError`` with the
    reason of :func:`name_problem`."""
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(problem)
    return name


PathName = Annotated[str, AfterValidator(safe_name)]
"""A model field whose value becomes a file name: checked by :func:`name_problem` each
time the model is read, wherever it comes from."""
