"""Seals on derived JSON files a later command trusts (``evidence.json``, review keys,
a review's ``plan.json``): the file carries a ``seal`` key, the sha256 of its own
canonical content, so a reader can tell a file as written from one edited since.

The canonical content is every key but ``seal``, as JSON with sorted keys, no spaces
and ASCII escapes (``json.dumps(..., sort_keys=True, separators=(",", ":"),
ensure_ascii=True)``), encoded as UTF-8 — independent of the indentation the file was
written with. A seal is no signature: it catches a hand edit, a cut or a merge gone
wrong, not someone who recomputes it on purpose (the review key, kept apart from the
reviewers' folder, is what guards a review against its reviewers).

A file without a seal is refused like a broken one where the fix is to write it again
(``evidence.json``: rerun ``sscbench release``). A review key without one (written
before keys were sealed) is used with a ``warning:`` line: it records which run each
masked page showed, and a review already labelled against it cannot be drawn again.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from sscbench.errors import DataError
from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.reading import loads_json
from sscbench.terminal import plain

SEAL_KEY = "seal"
SEAL_OF = "sha256 of the canonical JSON of every other key"


def content_digest(record: JsonMapping) -> str:
    """The sha256 of ``record``'s canonical JSON, its ``seal`` key left out."""
    rest = {k: v for k, v in record.items() if k != SEAL_KEY}
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sealed_json(record: Mapping[str, object], *, indent: int = 2, sort_keys: bool = True) -> str:
    """``record`` as JSON text (``indent``, keys sorted unless ``sort_keys`` is false)
    with its seal added; values JSON cannot hold are written as text, as they are read
    back (the seal is taken of what a reader will see)."""
    plain: JsonObject = loads_json(json.dumps(record, default=str))
    plain.pop(SEAL_KEY, None)
    plain[SEAL_KEY] = {"sha256": content_digest(plain), "of": SEAL_OF}
    return json.dumps(plain, indent=indent, sort_keys=sort_keys)


def check_seal(
    path: str | Path, data: JsonValue, again: str, unsealed: Literal["refuse", "warn"] = "refuse"
) -> dict[str, Any]:
    """``data`` (read from ``path``) without its seal, once the seal matches; a broken
    seal is a DataError naming the file, with ``again`` (how to write it anew) as the
    remedy. A missing seal is refused too, unless ``unsealed="warn"`` (a record that
    cannot be written again, such as a review key): then a ``warning:`` line on stderr
    says it is used unchecked."""
    if not isinstance(data, dict):
        raise DataError(path, None, "expected a JSON object")
    seal = data.get(SEAL_KEY)
    if seal is None and unsealed == "warn":
        print(
            plain(f"warning: {path}: no seal (written by an older sscbench); used unchecked"),
            file=sys.stderr,
        )
        return data
    if seal is None:
        raise DataError(
            path,
            SEAL_KEY,
            "missing: nothing shows this file is as sscbench wrote it (written by an older "
            f"sscbench, or by hand); {again}",
        )
    digest = seal.get("sha256") if isinstance(seal, dict) else None
    if not isinstance(digest, str) or digest != content_digest(data):
        raise DataError(
            path,
            SEAL_KEY,
            f"does not match the content: the file was changed after it was written; {again}",
        )
    return {k: v for k, v in data.items() if k != SEAL_KEY}
