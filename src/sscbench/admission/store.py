"""Writing candidate and case files atomically."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

from sscbench.core.files import atomic_text_writer
from sscbench.jsonl import model_line


def write_jsonl(path: Path, rows: Iterable[object]) -> None:
    """Write one JSON object per line (models dumped as JSON) via a temp file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_text_writer(path) as handle:
        for row in rows:
            text = model_line(row) if isinstance(row, BaseModel) else json.dumps(row)
            handle.write(text + "\n")
