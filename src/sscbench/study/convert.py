"""``sscbench store convert STUDY``: a study of one file pair per run moved into shards.

The runs are checked first (:func:`~sscbench.study.verify.verify_study`: a study with a
problem is refused, nothing changes). Every indexed run's text is appended, in index
order, to shards built in a staging folder (``STUDY/.shards-new-PID``); the shards are
moved into ``runs/``, the marker is rewritten (format 2, ``"store": "shards"``: the one
switch), and only then are the old files removed. The index does not change (both
layouts record the same sha256s). A kill before the switch leaves a study of files whose
stray shards the next conversion clears; a kill after it, a study of shards whose
leftover files the next conversion removes.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.core.files import atomic_write
from sscbench.errors import DataError
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.lock import StudyLock
from sscbench.study.marker import STORE_FIELD, marker_format, read_marker
from sscbench.study.shard_writer import ShardWriter
from sscbench.study.shards import SEALS, shard_files
from sscbench.study.verify import verify_study

RUN_SUFFIXES = (".ledger.jsonl", ".evaluator.jsonl")


@dataclass
class Converted:
    """What a conversion did: runs moved, shards written, files removed, bytes before/after."""

    runs: int = 0
    shards: int = 0
    removed: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    notes: list[str] = field(default_factory=list)

    def lines(self, root: Path) -> list[str]:
        """What to print: one line per step taken."""
        out = list(self.notes)
        if self.runs:
            out.append(
                f"moved {self.runs} runs' ledgers and evaluator logs into {self.shards} "
                f"shards in {root / 'runs'} ({self.bytes_before:,} bytes of run files → "
                f"{self.bytes_after:,} bytes of shards)"
            )
        if self.removed:
            out.append(f"removed {self.removed} run files (their text is in the shards)")
        return out or [f"{root}: nothing to do"]


def _run_files(runs: Path) -> list[Path]:
    if not runs.is_dir():
        return []
    return sorted(p for p in runs.iterdir() if p.name.endswith(RUN_SUFFIXES))


def convert_to_shards(root: str | Path) -> Converted:
    """Move a per-file study's runs into shards (under the study's lock); see the module."""
    store = StudyDir(root)
    if not store.is_study():
        raise DataError(store.marker, None, f"missing: {store.root} is not a study folder")
    done = Converted()
    with StudyLock(store.root):
        if store.sharded:  # converted already: a kill may have left the old files
            for path in _run_files(store.runs):
                path.unlink()
                done.removed += 1
            if not done.removed:
                done.notes.append(f"{store.root}: its runs are in shards already")
            return done
        for stray in [*shard_files(store.runs), store.runs / SEALS]:  # a cut conversion's
            stray.unlink(missing_ok=True)
        check = verify_study(store.root)
        staging = store.root / f".shards-new-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            _write_shards(store, check.entries.values(), staging, done)
            for path in sorted(staging.iterdir()):
                os.replace(path, store.runs / path.name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        marker = read_marker(store.marker)
        marker = {**marker, "sscbench_study": marker_format("shards"), STORE_FIELD: "shards"}
        atomic_write(store.marker, json.dumps(marker, indent=2).encode())  # the switch
        for path in _run_files(store.runs):
            path.unlink()
            done.removed += 1
    return done


def _write_shards(
    store: StudyDir, entries: Iterable[IndexEntry], staging: Path, done: Converted
) -> None:
    """Append every indexed run's text to shards in ``staging``, sealing the last one."""
    writer = ShardWriter(staging)
    writer.open()
    for entry in entries:
        if entry.ledger_sha256 is None:
            continue
        ledger, evaluator = store.run_bytes(entry.run_id)
        done.bytes_before += len(ledger) + len(evaluator)
        writer.append(entry.run_id, ledger, evaluator)
        done.runs += 1
    if done.runs:
        writer.seal()
    done.shards = len(shard_files(staging))
    done.bytes_after = sum(p.stat().st_size for p in staging.iterdir())


__all__ = ["Converted", "convert_to_shards"]
