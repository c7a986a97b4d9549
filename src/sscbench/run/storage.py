"""A study directory on disk: config, plan, cases, one ledger and log per run, and the index.

Every run's files are written to temporary names and moved into place with
``os.replace``; only then is its line appended to ``index.jsonl``. A run is finished
exactly when its index line is complete, so a study killed at any moment resumes
without a duplicate and without losing a finished run.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import DataError
from sscbench.jsonl import model_line
from sscbench.run.ledger import ledger_header

INDEX_FIELDS = ("run_id", "case_id", "config_id", "repetition", "kind", "status", "ledger_sha256")


class IndexEntry(BaseModel):
    """One finished run (or one not qualified, or missing) in ``index.jsonl``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    case_id: str
    config_id: str
    repetition: int
    kind: Literal["clean", "faulted"]
    status: Literal["completed", "not-qualified", "missing"]
    ledger_sha256: str | None = None
    reward: float | None = None
    triggered: bool | None = None
    termination: str | None = None
    agent_turns: int | None = None
    reason: str | None = None


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def _jsonl(items: Iterable[Any]) -> bytes:
    lines = []
    for item in items:
        if isinstance(item, BaseModel):
            lines.append(model_line(item))  # lone surrogates escaped, never a crash
        else:
            lines.append(json.dumps(item, sort_keys=True))
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


class StudyDir:
    """The files of one study."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.config_toml = self.root / "config.toml"
        self.config_json = self.root / "config.json"
        self.cases = self.root / "cases.jsonl"
        self.plan = self.root / "plan.jsonl"
        self.index = self.root / "index.jsonl"

    # ---- set-up and resume ---------------------------------------------------------
    def existing_config_hash(self) -> str | None:
        """The config hash a previous invocation recorded here, if any."""
        if not self.config_json.exists():
            return None
        try:
            return json.loads(self.config_json.read_text("utf-8"))["config_hash"]
        except (json.JSONDecodeError, KeyError) as exc:
            raise DataError(self.config_json, "config_hash", "unreadable; start anew") from exc

    def initialize(
        self,
        config_hash: str,
        canonical_config: str,
        toml_text: str,
        cases: Iterable[BaseModel],
        plan: Iterable[dict[str, Any]],
    ) -> bool:
        """Create the study, or check that it may be resumed. Returns True when resuming.

        A study recorded under a different config hash is refused: its runs would mix
        two configurations.
        """
        previous = self.existing_config_hash()
        if previous is not None:
            if previous != config_hash:
                raise DataError(
                    self.config_json,
                    "config_hash",
                    "this study was started with a different configuration; resuming would mix "
                    "runs of both. Use another --out directory, or delete this one (or pass "
                    "--restart) to start anew.",
                )
            return True
        self.runs.mkdir(parents=True, exist_ok=True)
        _write_atomic(self.config_toml, toml_text.encode("utf-8"))
        _write_atomic(self.cases, _jsonl(cases))
        _write_atomic(self.plan, _jsonl(plan))
        meta = {"config_hash": config_hash, "config": json.loads(canonical_config)}
        _write_atomic(self.config_json, json.dumps(meta, indent=2, sort_keys=True).encode())
        return False

    # ---- the index -----------------------------------------------------------------
    def read_index(self) -> Iterator[IndexEntry]:
        """Stream the finished runs, naming the line of a corrupt entry."""
        if not self.index.exists():
            return
        with self.index.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.endswith("\n"):
                    return  # a line cut by a kill: that run is not finished
                if not line.strip():
                    continue
                try:
                    yield IndexEntry.model_validate_json(line)
                except ValidationError as exc:
                    raise DataError(
                        self.index, f"line {number}", str(exc.errors()[0]["msg"])
                    ) from exc

    def repair_index(self) -> None:
        """Drop a trailing partial line left by a kill during an append."""
        if not self.index.exists():
            return
        data = self.index.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            with self.index.open("r+b") as handle:
                handle.truncate(cut)

    def append_index(self, entry: IndexEntry) -> None:
        """Record a finished run with a single append of one whole line."""
        line = (entry.model_dump_json() + "\n").encode("utf-8")
        fd = os.open(self.index, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    # ---- runs ----------------------------------------------------------------------
    def ledger_path(self, run_id: str) -> Path:
        """Where a run's model-visible ledger lives."""
        return self.runs / f"{run_id}.ledger.jsonl"

    def evaluator_path(self, run_id: str) -> Path:
        """Where a run's evaluator-only log lives."""
        return self.runs / f"{run_id}.evaluator.jsonl"

    def write_run(self, run_id: str, ledger: list[Any], evaluator: list[Any]) -> str:
        """Write a run's ledger and evaluator log atomically; return the ledger's sha256."""
        data = _jsonl([ledger_header(run_id), *ledger])
        _write_atomic(self.evaluator_path(run_id), _jsonl(evaluator))
        _write_atomic(self.ledger_path(run_id), data)
        return hashlib.sha256(data).hexdigest()

    def read_ledger(self, run_id: str) -> list[str]:
        """A run's ledger lines (header first)."""
        return self.ledger_path(run_id).read_text("utf-8").splitlines()
