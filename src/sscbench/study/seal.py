"""What a study's measurements were computed from, and the check that they still are.

``sscbench measure`` writes ``measurements.jsonl`` and beside it ``measurements.meta.json``
(for ``--out X.jsonl``: ``X.meta.json``): the sha256 of the measurements file itself and
of the study files it was computed from — ``index.jsonl`` (which holds each run's
ledger and evaluator-log hashes, checked against the run files by
:func:`~sscbench.study.verify.verify_study`), ``cases.jsonl`` and ``plan.jsonl``.
The measurements' bytes are unchanged by the record. A reader (``report``, ``review
export``) calls :func:`check_measurements` and refuses, naming the file and what
differs, measurements that were edited, cut or replaced, or computed from another
index, cases or plan: nothing unverified reaches a table or ``claims.csv``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sscbench.core.files import atomic_write
from sscbench.errors import DataError
from sscbench.json_types import JsonObject, JsonValue
from sscbench.reading import read_json
from sscbench.study.folder import StudyDir

SEAL_SCHEMA = "sscbench.measurements-meta/1"
"""The ``schema`` field of ``measurements.meta.json``."""
_AGAIN = "run `sscbench measure {study}` again"


def seal_path(measurements: Path) -> Path:
    """Where the record of ``measurements`` lives (``NAME.jsonl`` → ``NAME.meta.json``)."""
    return measurements.with_name(measurements.name.removesuffix(".jsonl") + ".meta.json")


def file_sha256(path: Path) -> str | None:
    """The sha256 of a file's bytes, read in blocks (None when it does not exist)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except FileNotFoundError:
        return None
    return digest.hexdigest()


def study_sources(store: StudyDir) -> dict[str, str | None]:
    """The sha256 of the study files measurements are computed from, by file name."""
    return {path.name: file_sha256(path) for path in (store.index, store.cases, store.plan)}


def write_seal(measurements: Path, sha256: str, rows: int, sources: dict[str, str | None]) -> Path:
    """Record what ``measurements`` (of ``sha256``, ``rows`` rows) was computed from;
    ``sources`` taken (:func:`study_sources`) while the study was locked and verified."""
    record = {"schema": SEAL_SCHEMA, "sha256": sha256, "rows": rows, "computed_from": sources}
    path = seal_path(measurements)
    atomic_write(path, json.dumps(record, indent=2, sort_keys=True) + "\n")
    return path


def _read_seal(path: Path, study: Path) -> JsonObject:
    again = _AGAIN.format(study=study)
    if not path.exists():
        raise DataError(
            path,
            None,
            f"missing: nothing records what {path.name.replace('.meta.json', '.jsonl')} was "
            f"computed from (written by an older sscbench, or not by `sscbench measure`); "
            f"{again}",
        )
    try:
        record: JsonValue = read_json(path)
    except DataError as exc:
        raise DataError(path, None, f"unreadable ({exc.reason}); {again}") from None
    if not isinstance(record, dict) or record.get("schema") != SEAL_SCHEMA:
        raise DataError(path, "schema", f"expected {SEAL_SCHEMA}; {again}")
    if not isinstance(record.get("computed_from"), dict):
        raise DataError(path, "computed_from", f"expected an object of file -> sha256; {again}")
    return record


def check_measurements(store: StudyDir, measurements: Path | None = None) -> None:
    """Refuse measurements whose bytes, or whose study's index, cases or plan, differ
    from what ``sscbench measure`` recorded; :class:`DataError` names the file and field."""
    path = measurements if measurements is not None else store.root / "measurements.jsonl"
    seal = seal_path(path)
    record = _read_seal(seal, store.root)
    again = _AGAIN.format(study=store.root)
    actual = file_sha256(path)
    if actual != record.get("sha256"):
        recorded = str(record.get("sha256"))[:12]
        raise DataError(
            path,
            "sha256",
            f"{(actual or 'missing')[:12]}… differs from the {recorded}… {seal.name} recorded "
            f"(the file was edited, cut or replaced after `sscbench measure` wrote it); {again}",
        )
    sources = study_sources(store)
    computed = record["computed_from"]  # an object: _read_seal checked it
    for name, recorded_source in sorted(computed.items() if isinstance(computed, dict) else ()):
        if sources.get(name) != recorded_source:
            raise DataError(
                seal,
                f"computed_from.{name}",
                f"{path.name} was computed from another {name} (sha256 "
                f"{str(recorded_source)[:12]}…, now {str(sources.get(name))[:12]}…: runs were "
                f"added, or the file was changed, after the last measurement); {again}",
            )


__all__ = [
    "SEAL_SCHEMA",
    "check_measurements",
    "file_sha256",
    "seal_path",
    "study_sources",
    "write_seal",
]
