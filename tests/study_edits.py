"""Deliberate hand edits of a finished study, recorded as sscbench itself would record them,
so a test reaches the check it is about instead of the tamper checks in front of it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def reseal_measurements(study: Path) -> None:
    """Record hand-edited measurements as if ``sscbench measure`` had written them."""
    from sscbench.study.folder import StudyDir
    from sscbench.study.seal import file_sha256, study_sources, write_seal

    path = study / "measurements.jsonl"
    rows = len(path.read_text().splitlines())
    write_seal(path, str(file_sha256(path)), rows, study_sources(StudyDir(study)))


def rerecord_file(study: Path, name: str) -> None:
    """Record an edited plan or cases file's sha256 in the study marker, as at creation."""
    marker = study / "sscbench-study.json"
    data = json.loads(marker.read_text("utf-8"))
    data.setdefault("files", {})[name] = hashlib.sha256((study / name).read_bytes()).hexdigest()
    marker.write_text(json.dumps(data), encoding="utf-8")
