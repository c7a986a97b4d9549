"""``sscbench-study.json``: the file that makes a folder a study, and its format.

The marker is written first when a study is created; it holds the study format
(``sscbench_study``) and the content hashes of the study's inputs. Every command that
opens a study (run, measure, report, release, gate, review, export, show, diff) opens
it through :class:`~sscbench.study.folder.StudyDir`, which reads the marker with
:func:`read_marker`: a marker that is not JSON, not an object, lacks the format field
or names a format this sscbench does not know is refused with the file and the field,
so a study is never read (or resumed) as a format it is not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from sscbench.errors import DataError
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.reading import loads_json

STUDY_MARKER = "sscbench-study.json"
"""The file that makes a folder a study: written first, it holds the inputs' hashes."""
FORMAT_FIELD = "sscbench_study"
"""The marker's field naming the study format."""
MARKER_FORMAT = 1
"""The study format this sscbench writes for a study of one file per run's text."""
SHARDED_FORMAT = 2
"""The study format of a study whose runs are in shards (``"store": "shards"``): an
sscbench older than the sharded store refuses it instead of finding no run files."""
KNOWN_FORMATS = (1, 2)
"""The study formats this sscbench reads."""
STORE_FIELD = "store"
"""The marker's field naming where the runs' text is: ``files`` (absent) or ``shards``."""


def marker_format(layout: str) -> int:
    """The study format a new study of this run layout records."""
    return SHARDED_FORMAT if layout == "shards" else MARKER_FORMAT


def store_layout(meta: JsonMapping, path: Path = Path(STUDY_MARKER)) -> Literal["files", "shards"]:
    """The run layout a read marker records (never guessed from the files): format 1
    is ``files``; format 2 must say ``"store": "shards"``."""
    store = meta.get(STORE_FIELD, "files")
    expected: Literal["files", "shards"] = (
        "shards" if meta.get(FORMAT_FIELD) == SHARDED_FORMAT else "files"
    )
    if store != expected:
        raise DataError(
            path,
            STORE_FIELD,
            f"{json.dumps(store)} does not fit study format {meta.get(FORMAT_FIELD)} "
            f"(expected {json.dumps(expected)}); the marker was edited",
        )
    return expected


def read_marker(path: Path) -> JsonObject:
    """The marker at ``path`` as an object, refused (naming file and field) unless it
    is a JSON object of a known study format."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(path, None, f"cannot read the study marker: {exc}") from None
    try:
        meta = loads_json(text)
    except ValueError as exc:
        raise DataError(
            path, FORMAT_FIELD, f"unreadable: the file is not JSON ({exc}), so not a study marker"
        ) from None
    if not isinstance(meta, dict):
        raise DataError(
            path, FORMAT_FIELD, f"absent: the file holds {_kind(meta)}, not a JSON object"
        )
    if FORMAT_FIELD not in meta:
        raise DataError(
            path, FORMAT_FIELD, "missing: the study format is not recorded; not a study"
        )
    value = meta[FORMAT_FIELD]
    if type(value) is not int or value not in KNOWN_FORMATS:
        known = ", ".join(str(f) for f in KNOWN_FORMATS)
        raise DataError(
            path,
            FORMAT_FIELD,
            f"{json.dumps(value)} is not a study format this sscbench reads ({known}); "
            "a study written by another sscbench version needs that version",
        )
    return meta


def _kind(value: object) -> str:
    shown = json.dumps(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    names = {list: "an array", str: "a string", int: "a number", float: "a number"}
    return f"{names.get(type(value), 'a value')} ({shown})"


__all__ = [
    "FORMAT_FIELD",
    "KNOWN_FORMATS",
    "MARKER_FORMAT",
    "SHARDED_FORMAT",
    "STORE_FIELD",
    "STUDY_MARKER",
    "marker_format",
    "read_marker",
    "store_layout",
]
