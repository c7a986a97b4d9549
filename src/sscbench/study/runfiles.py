"""A run's files in either layout: one API for writing and reading a run's text.

A study records its layout in its marker (``sscbench-study.json``), never guessed from
the files: ``files`` (each run's ``runs/ID.ledger.jsonl`` and ``runs/ID.evaluator.jsonl``,
every study before the sharded store) or ``shards`` (:mod:`sscbench.study.shards`).
:class:`RunFiles` (a base of :class:`~sscbench.study.folder.StudyDir`) writes, finds,
reads and checks a run the same way in both, so no reader opens a run file by its name.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from sscbench.core.files import write_new
from sscbench.errors import DataError
from sscbench.jsonl import split_lines
from sscbench.names import check_name
from sscbench.study.shard_reader import ShardReader
from sscbench.study.shard_writer import ShardWriter

Layout = Literal["files", "shards"]
LAYOUTS: tuple[Layout, ...] = ("files", "shards")
SHARDS_ABOVE = 2000
"""``[study] store = "auto"``: a study of more runs than this keeps them in shards."""
SHARDS_FROM_CONCURRENCY = 128
"""``[study] store = "auto"``: a study that makes this many runs at once keeps them in
shards. A file pair per run costs the directory work of two new names a run, on the cores
the event loop and a local endpoint share: at concurrency 256 against a 0.5 s endpoint
``benchmarks/overhead.py`` measured about +4.3-5.1% with files and +3.9-4.4% with shards;
at 64 the two are within a point of each other (+1.5% and +1.1%)."""


def choose_layout(setting: str, runs: int, concurrency: int = 1) -> Layout:
    """The layout a new study of ``runs`` runs, made ``concurrency`` at a time, records:
    ``[study] store`` when it names one, else (``auto``) shards above
    :data:`SHARDS_ABOVE` runs, where a file pair per run costs tens of thousands of
    files, or from :data:`SHARDS_FROM_CONCURRENCY` runs at once, where their directory
    work costs the harness time; files otherwise, where each is easy to open."""
    if setting in LAYOUTS:
        return setting
    many = runs > SHARDS_ABOVE or concurrency >= SHARDS_FROM_CONCURRENCY
    return "shards" if many else "files"


class RunFiles:
    """Where a study's runs are, in its layout (``self.layout``, from its marker)."""

    runs: Path
    layout: Layout

    _shard_reader: ShardReader | None = None
    _shard_writer: ShardWriter | None = None
    _hold_shard = False  # keep the open shard open between frames (hold_run_files)

    @property
    def sharded(self) -> bool:
        """Whether this study keeps its runs in shards."""
        return self.layout == "shards"

    def shard_reader(self) -> ShardReader:
        """The study's shard reader (one per folder object: its catalogue is kept)."""
        if self._shard_reader is None:
            self._shard_reader = ShardReader(self.runs)
        return self._shard_reader

    def shard_writer(self) -> ShardWriter:
        """The study's one shard writer (the caller holds the study's lock)."""
        if self._shard_writer is None:
            self._shard_writer = ShardWriter(self.runs)
            self._shard_writer.hold = self._hold_shard
        return self._shard_writer

    def hold_run_files(self) -> None:
        """Keep the open shard open from its next frame on (until :meth:`close_run_files`;
        a sealed shard is closed and the next one opened). Files of the ``files`` layout
        are each written whole once: nothing to hold."""
        self._hold_shard = True
        if self._shard_writer is not None:
            self._shard_writer.hold = True

    def close_run_files(self) -> None:
        """Close the open shard if it is held open, and stop holding it."""
        self._hold_shard = False
        if self._shard_writer is not None:
            self._shard_writer.close()

    def ledger_path(self, run_id: str) -> Path:
        """Where a run's model-visible ledger lives in the ``files`` layout (a run id that
        is not one safe file name, :func:`~sscbench.reading.name_problem`, is refused:
        it names no run)."""
        return self.runs / f"{check_name(run_id, self.runs, 'run id')}.ledger.jsonl"

    def evaluator_path(self, run_id: str) -> Path:
        """Where a run's evaluator-only log lives in the ``files`` layout (its run id
        checked as the ledger's)."""
        return self.runs / f"{check_name(run_id, self.runs, 'run id')}.evaluator.jsonl"

    def write_run_bytes(self, run_id: str, ledger: bytes, evaluator: bytes) -> tuple[str, str]:
        """Store a run's ledger and evaluator bytes (atomic files, or one frame appended
        to the open shard); return the sha256 of each, the ones the index records."""
        if self.sharded:
            check_name(run_id, self.runs, "run id")
            shas = self.shard_writer().append(run_id, ledger, evaluator)
            self._shard_reader = None  # its catalogue may name an older frame of this run
            return shas
        write_new(self.evaluator_path(run_id), evaluator)  # trusted once the index names it
        write_new(self.ledger_path(run_id), ledger)
        return hashlib.sha256(ledger).hexdigest(), hashlib.sha256(evaluator).hexdigest()

    def open_runs(self) -> list[str]:
        """Make the run store ready to append (under the study's lock, before the first
        run): a shard frame a kill cut is cut off. Returns what was done."""
        return self.shard_writer().open() if self.sharded else []

    def remove_run_files(self, run_id: str) -> None:
        """Delete a run's files before it is run again (in shards its frame stays: the run
        is appended again, and the last frame of a run id is the one read)."""
        if self.sharded:
            return
        self.ledger_path(run_id).unlink(missing_ok=True)
        self.evaluator_path(run_id).unlink(missing_ok=True)

    def has_run_files(self, run_id: str) -> bool:
        """Whether the run's text is stored (its ledger file, or a frame in a shard)."""
        if self.sharded:
            return self.shard_reader().locate(run_id) is not None
        return self.ledger_path(run_id).exists()

    def run_where(self, run_id: str) -> Path:
        """Where a run's ledger is (its file, or its shard): what messages name."""
        if self.sharded:
            return self.shard_reader().shard_of(run_id)
        return self.ledger_path(run_id)

    def run_text_where(self, run_id: str) -> str:
        """How a person reads a run's full text: its ledger file, or ``sscbench show``."""
        if self.sharded:
            return f"sscbench show {self.runs.parent} {run_id}"
        return str(self.ledger_path(run_id))

    def run_bytes(self, run_id: str) -> tuple[bytes, bytes]:
        """A run's ledger and evaluator bytes, each checked in a shard against the sha256
        of its frame (and the shard against its seal); :class:`DataError` names the file."""
        if self.sharded:
            ledger, evaluator, _ = self.shard_reader().read(run_id)
            return ledger, evaluator
        return _read(self.ledger_path(run_id)), _read(self.evaluator_path(run_id))

    def ledger_text(self, run_id: str) -> str:
        """A run's ledger as text (header first)."""
        if self.sharded:
            return _decode(self.run_bytes(run_id)[0], self.run_where(run_id), run_id)
        path = self.ledger_path(run_id)
        return _decode(_read(path), path, None)

    def evaluator_text(self, run_id: str) -> str:
        """A run's evaluator-only log as text."""
        if self.sharded:
            return _decode(self.run_bytes(run_id)[1], self.run_where(run_id), run_id)
        path = self.evaluator_path(run_id)
        return _decode(_read(path), path, None)

    def ledger_lines(self, run_id: str) -> list[str]:
        """A run's ledger lines (header first); a ledger file that cannot be read raises
        its ``OSError``, a shard's :class:`DataError` names the shard and the run."""
        if not self.sharded:
            return split_lines(self.ledger_path(run_id).read_text("utf-8"))
        return split_lines(self.ledger_text(run_id))

    def shard_problem(
        self, run_id: str, ledger_sha256: str, evaluator_sha256: str | None
    ) -> tuple[Path, str] | None:
        """Why a sharded run is not the one the index recorded (absent, its shard's seal
        or its frame's text broken, its sha256 another), or None when it is."""
        reader = self.shard_reader()
        try:
            frame = reader.read(run_id)[2]
        except DataError as exc:
            return exc.path, exc.reason
        for what, recorded, actual in (
            ("ledger", ledger_sha256, frame.ledger_sha256),
            ("evaluator log", evaluator_sha256, frame.evaluator_sha256),
        ):
            if recorded is not None and actual != recorded:
                hidden = "; ".join(reader.hiding(frame))
                later = f"; a later one may be in a damaged shard: {hidden}" if hidden else ""
                return frame.shard, (
                    f"its {what}'s sha256 {actual[:12]}… differs from the {recorded[:12]}… "
                    f"the index recorded (the run's frame is another{later})"
                )
        return None


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise DataError(path, None, "cannot read: file not found") from None
    except OSError as exc:
        raise DataError(path, None, f"cannot read: {exc.strerror or exc}") from None


def _decode(data: bytes, where: Path, run_id: str | None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        field = f"run {run_id}" if run_id else None
        raise DataError(where, field, f"not UTF-8 text (byte {exc.start})") from None


__all__ = [
    "LAYOUTS",
    "SHARDS_ABOVE",
    "SHARDS_FROM_CONCURRENCY",
    "Layout",
    "RunFiles",
    "choose_layout",
]
