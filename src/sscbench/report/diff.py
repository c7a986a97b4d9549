"""``sscbench diff A B``: what differs between two studies.

Three comparisons, each from files the studies already hold (nothing is run, measured
or reported anew):

* **config**: ``config.json``'s recorded config, field by field, as dotted paths
  (``study.seed``, ``agents[trusting].profile``: a list of objects with unique ``id``
  is keyed by id, other lists by position), and the config hashes;
* **provenance**: the creating session's record (``config.json`` ``provenance``:
  sscbench version, commit, Python, libraries), and the sscbench versions of every
  session (``sessions.jsonl``), so a study resumed by another version shows it;
* **claims**: the report's headline claims (``report/claims.json``), row by row by
  (claim, operator, configuration): A's and B's values and labels, B − A, and whether
  the two intervals overlap.

A file one of the studies lacks (no report yet, a study from before provenance) is
named in ``missing`` and its comparison left out; the rest is still compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NotRequired, TypedDict

from sscbench.analysis.overlap import number as _number
from sscbench.analysis.overlap import overlap
from sscbench.errors import DataError
from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.jsonl import split_lines
from sscbench.reading import loads_json, read_json, read_text
from sscbench.study.verify import require_study

CLAIMS_FILES = ("report/claims.json", "claims.json")
"""Where a study's report keeps its claims (the first that exists)."""
VOLATILE = ("at", "session")
"""Provenance fields that differ between any two sessions: never compared."""
_KEY = ("claim", "operator", "config_id")


class Change(TypedDict):
    """One dotted path where A and B differ (``only``: the side that has the path)."""

    path: str
    a: JsonValue
    b: JsonValue
    only: NotRequired[str]


class ClaimRow(TypedDict):
    """One (claim, operator, configuration) of either study, A beside B."""

    claim: str
    operator: str
    config_id: str
    a: JsonValue  # A's label
    b: JsonValue
    estimate_a: float | None
    estimate_b: float | None
    difference: float | None  # B − A
    overlap: bool | None
    same: bool


class StudyDiff(TypedDict):
    """The comparison of two studies (the ``--json`` document)."""

    a: str
    b: str
    missing: list[str]
    config_hash: dict[str, str | None]
    same_config: bool
    config: list[Change] | None
    provenance: list[Change] | None
    claims: list[ClaimRow] | None


@dataclass
class StudyRecord:
    """What one study's files say about it (``None``: the file is missing)."""

    root: Path
    config_hash: str | None = None
    config: JsonObject | None = None
    provenance: JsonObject | None = None
    sessions: list[JsonObject] = field(default_factory=list)
    claims: list[JsonObject] | None = None
    claims_file: str | None = None
    missing: list[str] = field(default_factory=list)


def _load_json(path: Path, what: str) -> JsonValue:
    try:
        return loads_json(read_text(path))
    except ValueError as exc:
        reason = str(exc).splitlines()[0]
        raise DataError(path, None, f"not JSON ({reason}); expected {what}") from None


def _read_lines(path: Path) -> list[JsonObject]:
    """The JSON objects of a JSONL file, a line that is not one skipped ([] if absent)."""
    try:
        lines = split_lines(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError):
        return []
    rows = []
    for line in lines:
        try:
            row = loads_json(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def read_study(root: str | Path) -> StudyRecord:
    """The config, provenance, sessions and claims of the study at ``root`` (its marker
    checked); a missing file is listed in ``missing``, a corrupt one refused."""
    store = require_study(root)
    record = StudyRecord(store.root)
    if not store.config_json.is_file():
        record.missing.append(str(store.config_json))
    else:
        meta = _load_json(store.config_json, "the study's recorded config")
        config = meta.get("config") if isinstance(meta, dict) else None
        if not isinstance(meta, dict) or not isinstance(config, dict):
            raise DataError(store.config_json, "config", "expected an object")
        config_hash, provenance = meta.get("config_hash"), meta.get("provenance")
        record.config_hash = config_hash if isinstance(config_hash, str) else None
        record.config = config
        record.provenance = provenance if isinstance(provenance, dict) else None
        if record.provenance is None:
            record.missing.append(f"{store.config_json} (field provenance)")
    record.sessions = _read_lines(store.sessions)  # informative: a cut line is skipped
    for name in CLAIMS_FILES:
        path = store.root / name
        if path.is_file():
            claims = _load_json(path, "a list of claims")
            if not isinstance(claims, list) or not all(isinstance(c, dict) for c in claims):
                raise DataError(path, None, "expected a list of claims")
            record.claims = [c for c in claims if isinstance(c, dict)]
            record.claims_file = name
            break
    else:
        record.missing.append(f"{store.root / CLAIMS_FILES[0]} (run sscbench report)")
    return record


def flatten(value: JsonValue, prefix: str = "") -> JsonObject:
    """``value`` as ``dotted.path -> leaf``; objects in a list with unique ``id``\\ s are
    keyed ``[id]``, other list items ``[index]``; an empty object or list is a leaf."""
    if isinstance(value, dict) and value:
        out: JsonObject = {}
        for key in sorted(value):
            out.update(flatten(value[key], f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list) and value:
        ids = [item.get("id") for item in value if isinstance(item, dict)]
        keyed = len(ids) == len(value) and None not in ids and len(set(ids)) == len(ids)
        out = {}
        for index, item in enumerate(value):
            out.update(flatten(item, f"{prefix}[{ids[index] if keyed else index}]"))
        return out
    return {prefix: value}


def changes(a: JsonValue, b: JsonValue) -> list[Change]:
    """The dotted paths where ``a`` and ``b`` differ: ``{"path", "a", "b"}`` (a path one
    side lacks has ``None`` there and ``only`` naming the side that has it)."""
    left, right = flatten(a), flatten(b)
    out: list[Change] = []
    for path in sorted(set(left) | set(right)):
        if path in left and path in right and left[path] == right[path]:
            continue
        row: Change = {"path": path, "a": left.get(path), "b": right.get(path)}
        if path not in right or path not in left:
            row["only"] = "a" if path in left else "b"
        out.append(row)
    return out


def _comparable(provenance: JsonMapping | None) -> JsonObject:
    return {k: v for k, v in (provenance or {}).items() if k not in VOLATILE}


def session_versions(record: StudyRecord) -> str | None:
    """Each session's sscbench version and commit, in order: ``0.1.0@abc1234 (created),
    0.2.0 (resumed)`` (None without ``sessions.jsonl``)."""
    if not record.sessions:
        return None
    parts = []
    for session in record.sessions:
        commit = session.get("commit")
        version = str(session.get("sscbench")) + (f"@{str(commit)[:7]}" if commit else "")
        parts.append(f"{version} ({session.get('session', '?')})")
    return ", ".join(parts)


def provenance_changes(a: StudyRecord, b: StudyRecord) -> list[Change]:
    """Where the creating sessions' provenance differs, and the sessions' versions."""
    out = changes(_comparable(a.provenance), _comparable(b.provenance))
    versions = session_versions(a), session_versions(b)
    if versions[0] != versions[1]:
        out.append({"path": "sessions", "a": versions[0], "b": versions[1]})
    return out


def _claim_key(row: JsonMapping) -> tuple[str, str, str]:
    claim, operator, config_id = (str(row.get(k, "")) for k in _KEY)
    return claim, operator, config_id


def claim_rows(a: Sequence[JsonMapping], b: Sequence[JsonMapping]) -> list[ClaimRow]:
    """One row per (claim, operator, configuration) of either study: the labels and
    estimates of A and B, B − A, whether the intervals overlap and whether anything
    of the claim (counts, estimate, interval, status) differs."""
    left = {_claim_key(row): row for row in a}
    right = {_claim_key(row): row for row in b}
    compared = ("numerator", "denominator", "estimate", "low", "high", "method", "status")
    rows: list[ClaimRow] = []
    for key in sorted(set(left) | set(right)):
        one, two = left.get(key), right.get(key)
        est_a = _number(one.get("estimate")) if one else None
        est_b = _number(two.get("estimate")) if two else None
        rows.append(
            {
                "claim": key[0],
                "operator": key[1],
                "config_id": key[2],
                "a": one.get("label") if one else None,
                "b": two.get("label") if two else None,
                "estimate_a": est_a,
                "estimate_b": est_b,
                "difference": est_b - est_a if est_a is not None and est_b is not None else None,
                "overlap": overlap(one, two) if one and two else None,
                "same": bool(one and two and all(one.get(k) == two.get(k) for k in compared)),
            }
        )
    return rows


def _made_by(session: JsonMapping) -> str:
    commit = session.get("commit")
    mark = ", modified" if session.get("dirty") else ""
    where = f" (commit {str(commit)[:7]}{mark})" if commit else ""
    return f"sscbench {session.get('sscbench')}{where}"


def provenance_line(study: str | Path) -> str | None:
    """One sentence for the report: which sscbench and Python made the study, and any
    other sscbench that resumed it (None for a study from before provenance)."""
    root = Path(study)
    try:
        meta = read_json(root / "config.json")
    except DataError:
        return None
    made = meta.get("provenance") if isinstance(meta, dict) else None
    if not isinstance(made, dict):
        return None
    python = f"Python {made.get('python')} ({made.get('implementation')})"
    text = f"Made by {_made_by(made)}, {python} on {made.get('platform')}"
    sessions = _read_lines(root / "sessions.jsonl")
    others = sorted({_made_by(s) for s in sessions} - {_made_by(made)})
    if others:
        text += f"; resumed by {', '.join(others)}"
    return text + ". Libraries: config.json (provenance); every session: sessions.jsonl."


def study_diff(a: str | Path, b: str | Path) -> StudyDiff:
    """The comparison of studies ``a`` and ``b`` (the ``--json`` document)."""
    one, two = read_study(a), read_study(b)
    out: StudyDiff = {
        "a": str(one.root),
        "b": str(two.root),
        "missing": one.missing + two.missing,
        "config_hash": {"a": one.config_hash, "b": two.config_hash},
        "same_config": one.config_hash is not None and one.config_hash == two.config_hash,
        "config": changes(one.config, two.config) if one.config and two.config else None,
        "provenance": (provenance_changes(one, two) if one.provenance and two.provenance else None),
        "claims": None,
    }
    if one.claims is not None and two.claims is not None:
        out["claims"] = claim_rows(one.claims, two.claims)
    return out


def differs(diff: StudyDiff) -> bool:
    """Whether the comparison found any difference in config, provenance or claims."""
    claims = diff["claims"] or []
    return bool(diff["config"] or diff["provenance"] or any(not r["same"] for r in claims))


__all__ = [
    "Change",
    "ClaimRow",
    "StudyDiff",
    "StudyRecord",
    "changes",
    "claim_rows",
    "differs",
    "flatten",
    "provenance_line",
    "read_study",
    "study_diff",
]
