"""A study directory on disk: config, plan, cases, one ledger and log per run, and the index.

Every run's files are written to temporary names (unique to the writing process) and
moved into place with ``os.replace``; only then is its line appended to
``index.jsonl``. A run is finished exactly when its index line is complete, so a study
killed at any moment resumes without a duplicate and without losing a finished run.
A folder is a study when it holds ``sscbench-study.json`` (written first, with the
content hashes of the study's inputs); sscbench writes into, resumes and removes only
such folders (or empty ones).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError

from sscbench.core.files import atomic_text_writer, atomic_write, clean_dead_temporaries
from sscbench.core.ledger import EvaluatorEvent, LedgerEvent, ledger_header
from sscbench.errors import DataError, naming
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.jsonl import model_line
from sscbench.reading import loads_json, read_json
from sscbench.study.appends import AppendFiles
from sscbench.study.guard import OTHER_MEMBERS, link_error, open_no_follow, refuse_links
from sscbench.study.index_entry import IndexEntry as IndexEntry  # re-exported
from sscbench.study.lock import LOCK_NAME as LOCK_FILE
from sscbench.study.marker import STUDY_MARKER, marker_format, read_marker, store_layout
from sscbench.study.provenance import study_provenance
from sscbench.study.runfiles import Layout, RunFiles
from sscbench.study.seen_ids import LineIds, line_at
from sscbench.study.shards import SEALS, SUFFIX
from sscbench.world.packaged import portable_path

# What sscbench writes in a study folder (and so what --restart may remove): files at
# the top, and folders of which only files with these suffixes are removed.
STUDY_FILES = (
    "config.toml",
    "config.json",
    "cases.jsonl",
    "order.jsonl",  # a study that admits its cases: the frozen order and the funnel
    "admission.json",
    "caps.json",  # what caps the plan, counted (sscbench/run/plan_caps.py)
    "recordings.json",  # a pairs study's named τ² conversations: spans, matches
    "plan.jsonl",
    "index.jsonl",
    "timings.jsonl",
    "measurements.jsonl",
    "claims.json",
    "report.html",
    "otel-spans.jsonl",
    "sessions.jsonl",
    "measurements.meta.json",
    STUDY_MARKER,
)
STUDY_FOLDERS = {
    # .book.jsonl: the response journals' books; .partial.jsonl: earlier versions' journals
    "runs": (
        ".ledger.jsonl",
        ".evaluator.jsonl",
        ".book.jsonl",
        ".partial.jsonl",
        ".tmp",
        SUFFIX,
        SEALS,
    ),
    "tables": (".csv", ".tmp"),
    "figures": (".png", ".svg", ".tmp"),
    "release": (".json", ".csv", ".png", ".svg", ".tmp"),
    "report": (".html", ".csv", ".json", ".png", ".svg", ".tmp"),
    "oracles": (".json", ".jsonl", ".csv", ".tmp"),  # validate-oracle --oracle NAME
}


def _jsonl(items: Iterable[object]) -> bytes:
    lines = []
    for item in items:
        if isinstance(item, BaseModel):
            lines.append(model_line(item))  # lone surrogates escaped, never a crash
        else:
            lines.append(json.dumps(item, sort_keys=True))
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


def _index_ids(fd: int) -> Callable[[int], tuple[str]]:
    """The run id of the index line at an offset of the open index (read again, as
    :meth:`StudyDir.read_index` read it: what confirms a repeat)."""

    def names(offset: int) -> tuple[str]:
        return (IndexEntry.model_validate_json(line_at(fd, offset)).run_id,)

    return names


class StudyDir(RunFiles):
    """The files of one study."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.config_toml = self.root / "config.toml"
        self.config_json = self.root / "config.json"
        self.cases = self.root / "cases.jsonl"
        self.plan = self.root / "plan.jsonl"
        self.index = self.root / "index.jsonl"
        self.timings = self.root / "timings.jsonl"

        self.sessions = self.root / "sessions.jsonl"
        self.marker = self.root / STUDY_MARKER
        self.appends = AppendFiles()  # index and timings lines (held open by the writer)
        refuse_links(self.root, (*STUDY_FILES, *STUDY_FOLDERS, *OTHER_MEMBERS))  # first
        self.layout: Layout = "files"
        if self.marker.is_file():  # every command opens a study here: its format checked
            self.layout = store_layout(read_marker(self.marker), self.marker)

    # ---- what the folder is --------------------------------------------------------
    def is_study(self) -> bool:
        """Whether the folder holds a study sscbench started (its marker is there)."""
        return self.marker.is_file()

    def check_writable(self) -> None:
        """Refuse an ``--out`` that is a file, or a folder holding something else.

        A folder may be used when it does not exist, is empty (a lock file of a
        process that died before starting the study counts as empty), or is a study.
        """
        if self.root.exists() and not self.root.is_dir():
            raise DataError(self.root, None, "--out must be a folder, and this is a file")
        if not self.root.exists() or self.is_study():
            return
        foreign = sorted(p.name for p in self.root.iterdir() if p.name != LOCK_FILE)
        if foreign:
            shown = ", ".join(foreign[:5]) + (" ..." if len(foreign) > 5 else "")
            raise DataError(
                self.root,
                None,
                f"not a study folder ({STUDY_MARKER} is absent) and not empty (holds {shown}); "
                "sscbench will neither write into it nor remove it. Choose a new or empty "
                "--out folder.",
            )

    def remove_study(self) -> list[Path]:
        """Delete what sscbench wrote here (``--restart``), nothing else; refuse a non-study.

        Files and folders sscbench does not write are left in place; the lock file stays
        (its holder is the caller). Returns what was kept.
        """
        if not self.root.exists():
            return []
        self.check_writable()
        if not self.is_study():
            return []  # empty: nothing to remove
        for name in STUDY_FILES:
            if name != STUDY_MARKER:
                (self.root / name).unlink(missing_ok=True)
        for tmp in self.root.glob(".*.tmp"):
            tmp.unlink()
        for folder, suffixes in STUDY_FOLDERS.items():
            path = self.root / folder
            if path.is_symlink():
                raise link_error(path)  # never delete through a link (refused at open too)
            if not path.is_dir():
                continue
            for child in path.rglob("*"):
                if child.is_file() and child.name.endswith(suffixes):
                    child.unlink()
            for child in sorted(path.rglob("*"), reverse=True):
                if child.is_dir() and not any(child.iterdir()):
                    child.rmdir()
            if not any(path.iterdir()):
                path.rmdir()
        self.marker.unlink()  # last: a restart cut short still leaves a study
        return sorted(p for p in self.root.iterdir() if p.name != LOCK_FILE)

    # ---- set-up and resume ---------------------------------------------------------
    def existing_config_hash(self) -> str | None:
        """The config hash a previous invocation recorded here, if any."""
        if not self.config_json.exists():
            return None
        try:
            value = read_json(self.config_json)["config_hash"]
        except (DataError, KeyError, TypeError) as exc:
            raise DataError(self.config_json, "config_hash", "unreadable; start anew") from exc
        if value is not None and not isinstance(value, str):
            raise DataError(self.config_json, "config_hash", "not a string; start anew")
        return value

    def recorded_inputs(self) -> dict[str, str]:
        """The inputs' content hashes the study recorded when it started."""
        inputs = read_marker(self.marker).get("inputs")
        if not isinstance(inputs, dict):
            raise DataError(self.marker, "inputs", "expected an object of path -> sha256")
        # a study recorded before inputs were named portably: its packaged-data cache paths
        digests = {portable_path(path): digest for path, digest in inputs.items()}
        if not all(isinstance(digest, str) for digest in digests.values()):
            raise DataError(self.marker, "inputs", "expected an object of path -> sha256")
        return {path: str(digest) for path, digest in digests.items()}

    def check_inputs(self, inputs: dict[str, str]) -> None:
        """Refuse to resume when any input's content differs from what the study read."""
        recorded = self.recorded_inputs()
        changes = []
        for path in sorted(set(recorded) | set(inputs)):
            before, now = recorded.get(path), inputs.get(path)
            if before == now:
                continue
            if before is None:
                changes.append(f"{path} is now read (it was not)")
            elif now is None:
                changes.append(f"{path} is no longer read")
            else:
                changes.append(f"{path} changed (sha256 {before[:12]}… → {now[:12]}…)")
        if changes:
            more = f" (and {len(changes) - 3} more)" if len(changes) > 3 else ""
            raise DataError(
                self.marker,
                "inputs",
                "the study's inputs changed since it started: "
                + "; ".join(changes[:3])
                + more
                + ". Resuming would measure runs against other inputs; restore them, use "
                "another --out folder, or pass --restart.",
            )

    def initialize(
        self,
        config_hash: str,
        canonical_config: str,
        toml_text: str,
        cases: Sequence[BaseModel],
        plan: Iterable[JsonMapping],
        inputs: dict[str, str] | None = None,
        base_dir: str | Path | None = None,
        layout: Layout = "files",
    ) -> bool:
        """Create the study, or check that it may be resumed. Returns True when resuming.

        A study recorded under a different config hash, or whose inputs (``path ->
        sha256`` of every file the study read) changed, is refused: its runs would mix
        two configurations or be measured against other cases. A new study records
        ``layout`` (where its runs go) in its marker; a resumed one keeps its own. The
        caller has checked
        the folder with :meth:`check_writable` (before a restart emptied it).
        """
        inputs = inputs or {}
        if self.is_study():
            if not self.config_json.exists():
                raise DataError(self.config_json, None, "missing: the study is incomplete")
            previous = self.existing_config_hash()
            if previous != config_hash:
                raise DataError(
                    self.config_json,
                    "config_hash",
                    "this study was started with a different configuration; resuming would mix "
                    "runs of both. Use another --out directory, or delete this one (or pass "
                    "--restart) to start anew.",
                )
            self.check_inputs(inputs)
            if not self.cases.exists() or self.cases.read_bytes() != _jsonl(cases):
                raise DataError(
                    self.cases,
                    None,
                    "differs from the cases this configuration gives (the file was edited, "
                    "or the world changed); resuming would mix runs of other cases. Use "
                    "another --out folder, or pass --restart.",
                )
            self.record_session("resumed")
            return True
        self.runs.mkdir(parents=True, exist_ok=True)
        marker: JsonObject = {"sscbench_study": marker_format(layout)}
        if layout != "files":
            marker["store"] = layout
        marker["inputs"] = dict(sorted(inputs.items()))
        self.layout = layout
        atomic_write(self.marker, json.dumps(marker, indent=2).encode())
        atomic_write(self.config_toml, toml_text.encode("utf-8"))
        cases_data = _jsonl(cases)
        atomic_write(self.cases, cases_data)
        plan_digest = hashlib.sha256()
        with atomic_text_writer(self.plan) as handle:  # streamed: a plan may be 2 M lines
            for line in plan:
                text = json.dumps(line, sort_keys=True) + "\n"  # ASCII: bytes as written
                handle.write(text)
                plan_digest.update(text.encode("utf-8"))
        # every reader checks these files against their recorded hashes (study/verify.py)
        marker["files"] = {
            self.cases.name: hashlib.sha256(cases_data).hexdigest(),
            self.plan.name: plan_digest.hexdigest(),
        }
        atomic_write(self.marker, json.dumps(marker, indent=2).encode())
        meta = {"config_hash": config_hash, "config": loads_json(canonical_config)}
        if base_dir is not None:
            meta["base_dir"] = str(base_dir)  # relative paths of the config are read from here
        meta["provenance"] = self.record_session("created")  # a record, outside the hash
        atomic_write(self.config_json, json.dumps(meta, indent=2, sort_keys=True).encode())
        return False

    def record_session(self, how: str) -> JsonObject:
        """Append this session's provenance (``sessions.jsonl``: sscbench, commit, Python,
        libraries) to the study; returned for ``config.json``'s record of its creation."""
        provenance = {"session": how, **study_provenance()}
        line = json.dumps(provenance, sort_keys=True) + "\n"
        with naming(self.sessions):
            fd = open_no_follow(self.sessions, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            with os.fdopen(fd, "a", encoding="utf-8") as handle:
                handle.write(line)
        return provenance

    # ---- the index -----------------------------------------------------------------
    def read_index(self, repeated: list[IndexEntry] | None = None) -> Iterator[IndexEntry]:
        """Stream the finished runs, one per run id, naming the line of a corrupt entry.

        A later line of a run id already seen is never yielded (a run counts once); it
        is appended to ``repeated`` when given, so a check can tell copies from conflicts.
        The ids seen are kept as hashes and line offsets (:class:`LineIds`, exact: a
        match is confirmed by reading the earlier line again), not as strings.
        """
        if not self.index.exists():
            return
        with self.index.open("rb") as handle:
            seen = LineIds(_index_ids(handle.fileno()))
            offset = 0
            for number, raw in enumerate(handle, start=1):
                at, offset = offset, offset + len(raw)
                if not raw.endswith(b"\n"):
                    return  # a line cut by a kill: that run is not finished
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DataError(
                        self.index, f"line {number}", f"not UTF-8 (byte {exc.start})"
                    ) from None
                if not line.strip():
                    continue
                try:
                    entry = IndexEntry.model_validate_json(line)
                except ValidationError as exc:
                    raise DataError(
                        self.index, f"line {number}", str(exc.errors()[0]["msg"])
                    ) from exc
                if not seen.add(entry.run_id, at):
                    if repeated is not None:
                        repeated.append(entry)
                    continue
                yield entry

    def rewrite_index(self, entries: Iterable[IndexEntry]) -> None:
        """Replace the index atomically by these entries (resume drops runs to re-run)."""
        self.appends.forget(self.index)
        atomic_write(self.index, _jsonl(entries))

    def repair_index(self) -> None:
        """Drop a trailing partial line left by a kill during an append."""
        if not self.index.exists():
            return
        data = self.index.read_bytes()
        if data and not data.endswith(b"\n"):
            self.appends.forget(self.index)
            cut = data.rfind(b"\n") + 1
            with self.index.open("r+b") as handle:
                handle.truncate(cut)

    def append_index(self, entry: IndexEntry) -> None:
        """Record a finished run with a single append of one whole line."""
        self.appends.append(self.index, (model_line(entry) + "\n").encode("utf-8"))

    def append_timing(self, run_id: str, wall_s: float) -> None:
        """Record how long a run took (``timings.jsonl``: outside the index, which stays
        the same for the same config; a run run again gets a later line)."""
        line = json.dumps({"run_id": run_id, "wall_s": round(wall_s, 6)}) + "\n"
        self.appends.append(self.timings, line.encode("utf-8"))

    def hold_files(self) -> None:
        """Keep the index, the timings and the open shard open from their first append
        until :meth:`close_files` (the study's writer, for its invocation): a line or a
        frame is then one write, not an open, a write and a close."""
        self.appends.hold = True
        self.hold_run_files()

    def close_files(self) -> None:
        """Close what :meth:`hold_files` kept open (the next append opens it again)."""
        self.appends.close()
        self.close_run_files()

    def read_timings(self) -> dict[str, float]:
        """Each run's wall time in seconds (its last line; a cut or bad line is skipped:
        timings are informative, never evidence)."""
        return dict(self.iter_timings())

    def iter_timings(self) -> Iterator[tuple[str, float]]:
        """Stream ``timings.jsonl``'s (run id, wall time) pairs in file order (a run's last
        pair is its time; a cut or bad line is skipped, as :meth:`read_timings` does)."""
        if not self.timings.exists():
            return
        with naming(self.timings), self.timings.open("rb") as handle:
            for raw in handle:
                try:
                    row = loads_json(raw.rstrip(b"\n"))
                    yield str(row["run_id"]), float(row["wall_s"])
                except (ValueError, KeyError, TypeError):
                    continue

    # ---- runs (their files or shards: study/runfiles.py) --------------------------
    def write_run(
        self, run_id: str, ledger: list[LedgerEvent], evaluator: list[EvaluatorEvent]
    ) -> tuple[str, str]:
        """Write a run's ledger and evaluator log (atomic files, or one shard frame);
        return the sha256 of both texts."""
        data = _jsonl([ledger_header(run_id), *ledger])
        return self.write_run_bytes(run_id, data, _jsonl(evaluator))

    def clean_temporaries(self) -> list[Path]:
        """Remove the temporary files a killed command left in the folder and in
        ``runs/`` (``.NAME.PID.tmp`` of a process that is gone); called by ``run`` under
        the study's lock, so no writer of this study is cut short."""
        return clean_dead_temporaries(self.root) + clean_dead_temporaries(self.runs)
