"""``STUDY/caps.json``: what capped a study's plan, counted in lines
(:mod:`sscbench.run.plan_caps` makes them), read back by the report's Table I."""

from __future__ import annotations

import json
from pathlib import Path

from sscbench.core.files import atomic_write
from sscbench.errors import DataError
from sscbench.reading import read_json

CAPS_FILE = "caps.json"
"""The plan's cap lines in a study folder (``{"lines": [...]}``)."""


def write_caps(root: Path, lines: list[str]) -> None:
    """Store the cap lines in the study folder for the report."""
    atomic_write(root / CAPS_FILE, json.dumps({"lines": lines}, indent=1))


def read_caps(root: Path) -> list[str]:
    """The cap lines a run stored in the study folder (empty when none were: an older
    study, or one whose file cannot be read)."""
    path = root / CAPS_FILE
    if not path.exists():
        return []
    try:
        data = read_json(path)
    except DataError:
        return []
    lines = data.get("lines") if isinstance(data, dict) else None
    return [str(line) for line in lines] if isinstance(lines, list) else []
