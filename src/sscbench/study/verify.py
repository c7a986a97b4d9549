"""Verify a study folder against its index before anything is measured or resumed.

The index is the record of what ran; every run file must be the one it recorded. One
row per run id (an exact copy of a line counts once, two different lines for one run
id are an error), each run's case in ``cases.jsonl`` and its id in ``plan.jsonl``, and
each run's ledger and evaluator log present with the sha256 the index recorded (in a
sharded study: its last frame, checked against its own sha256s and its closed shard
against the seal in ``runs/shards.json``, :mod:`sscbench.study.shards`; an
older index without the evaluator's hash: the log must start with the run's
``run_start`` and end with a ``run_end``); the plan and cases files themselves must be
there with the sha256 the study marker recorded (:func:`check_recorded_files`). ``measure``, ``report`` and ``gate`` stop
on the first problem, naming the file and the run; a resumed study re-runs the runs
whose files fail the check.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Container, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sscbench.errors import DataError
from sscbench.jsonl import iter_jsonl_at, loads_object, read_jsonl, read_objects
from sscbench.progress import progress
from sscbench.reading import loads_json
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.index_search import IndexSearch, search_index
from sscbench.study.marker import read_marker
from sscbench.study.seen_ids import LineIds, line_at


@dataclass(frozen=True)
class RunProblem:
    """A run whose record does not hold: which file, which run, why."""

    run_id: str
    path: Path
    reason: str

    def error(self, others: int = 0) -> DataError:
        """The problem as a DataError naming the file and the run."""
        more = f" (and {others} more runs fail the check)" if others else ""
        return DataError(self.path, f"run {self.run_id}", self.reason + more)


@dataclass
class StudyCheck:
    """The outcome of checking a study: its runs (one per id) and the problems found."""

    store: StudyDir
    entries: dict[str, IndexEntry] = field(default_factory=dict)  # empty when streamed
    copies: int = 0
    runs: int = 0  # the runs checked (one per run id)
    problems: dict[str, RunProblem] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether every run holds."""
        return not self.problems


def _sha256(path: Path) -> str | None:
    try:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except FileNotFoundError:
        return None


def _file_problem(path: Path, recorded: str | None) -> str | None:
    actual = _sha256(path)
    if actual is None:
        return "missing: the index records this run but its file is gone"
    if recorded is not None and actual != recorded:
        return (
            f"sha256 {actual[:12]}… differs from the {recorded[:12]}… the index recorded "
            "(the file was changed, cut or replaced)"
        )
    return None


def _evaluator_shape(path: Path, run_id: str) -> str | None:
    """For an index without the log's hash: the log is whole (run_start … run_end)."""
    try:
        rows = read_objects(path)
    except DataError as exc:
        return exc.reason
    if not rows or rows[0].get("type") != "run_start" or rows[0].get("run_id") != run_id:
        return "does not start with this run's run_start"
    if rows[-1].get("type") != "run_end":
        return "cut short: it does not end with run_end"
    return None


def _check_entry(
    store: StudyDir, entry: IndexEntry, case_ids: set[str], planned: Container[str]
) -> RunProblem | None:
    run_id = entry.run_id
    if entry.case_id not in case_ids:
        return RunProblem(run_id, store.cases, f"case {entry.case_id!r} of this run is absent")
    if run_id not in planned:
        return RunProblem(run_id, store.plan, "this run is not in the study's plan")
    if entry.ledger_sha256 is None:
        if entry.status == "completed":
            return RunProblem(run_id, store.index, "a completed run without ledger_sha256")
        return None  # not qualified, or missing before any file was written
    if store.sharded:
        found = store.shard_problem(run_id, entry.ledger_sha256, entry.evaluator_sha256)
        return RunProblem(run_id, *found) if found else None
    ledger = store.ledger_path(run_id)
    reason = _file_problem(ledger, entry.ledger_sha256)
    if reason:
        return RunProblem(run_id, ledger, reason)
    log = store.evaluator_path(run_id)
    reason = _file_problem(log, entry.evaluator_sha256)
    if reason is None and entry.evaluator_sha256 is None:
        reason = _evaluator_shape(log, run_id)
    return RunProblem(run_id, log, reason) if reason else None


def require_study(root: str | Path) -> StudyDir:
    """The study at ``root``, or :class:`DataError` when the folder does not exist, is not
    a study or has no index (cheap: reads no run; called before a folder is locked)."""
    store = StudyDir(root)
    if not store.root.is_dir():
        raise DataError(store.root, None, "no such study folder")
    if not store.is_study():
        raise DataError(store.marker, None, f"missing: {store.root} is not a study folder")
    if not store.index.exists():
        raise DataError(store.index, None, "missing: the study has no index")
    return store


def check_recorded_files(store: StudyDir) -> None:
    """Refuse a study whose plan or cases file is gone, or differs from the sha256 the
    marker recorded when the study started (``files``; a study recorded before sscbench
    kept them: present is enough). Every reader of runs calls this, through
    :func:`check_study`: a run is measured only against the case and plan it ran under."""
    recorded = read_marker(store.marker).get("files", {})
    if not isinstance(recorded, dict):
        raise DataError(store.marker, "files", "expected an object of file -> sha256")
    for path, what in ((store.plan, "plan"), (store.cases, "cases")):
        actual = _sha256(path)
        if actual is None:
            raise DataError(
                path,
                None,
                f"missing: the study's {what} is gone, so its runs cannot be checked "
                "against it; restore the file, or run the study anew with --restart",
            )
        want = recorded.get(path.name)
        if want is not None and actual != want:
            raise DataError(
                path,
                None,
                f"sha256 {actual[:12]}… differs from the {str(want)[:12]}… "
                f"{store.marker.name} recorded when the study started (the file was edited "
                "or replaced); its runs ran under the recorded one: restore it, or run the "
                "study anew with --restart",
            )


def check_study(
    root: str | Path, keep_entries: bool = True, planned: Callable[[str], bool] | None = None
) -> StudyCheck:
    """Check every run of a study; problems are collected (see :func:`verify_study`).

    A folder that is not a study, or whose index, cases or plan cannot be read, raises
    :class:`DataError` at once. With ``keep_entries=False`` the index is streamed: each
    entry is checked as it is read and none is kept (``entries`` stays empty, ``runs``
    counts them), so checking holds nothing per run (what ``measure`` and the exporters
    use, reading the index again afterwards); the problems found are the same. The plan's
    ids are tested through :func:`plan_ids` (no string per unit), or through ``planned``,
    whether a run id is in the plan, when the caller has the plan (a resumed ``run``,
    whose plan is ``plan.jsonl`` line for line).
    """
    store = require_study(root)
    check_recorded_files(store)
    case_ids = set(_case_ids(store.cases))
    with ExitStack() as held:
        in_plan = _Planned(planned) if planned is not None else held.enter_context(plan_ids(store))
        return _check_runs(StudyCheck(store), keep_entries, case_ids, in_plan)


def _check_runs(
    check: StudyCheck, keep_entries: bool, case_ids: set[str], in_plan: Container[str]
) -> StudyCheck:
    """:func:`check_study`'s runs, against the case ids and the plan test it read."""
    store = check.store
    repeated: list[IndexEntry] = []
    if not keep_entries:
        _stream_check(check, repeated, case_ids, in_plan)
        return check
    for entry in store.read_index(repeated):
        check.entries[entry.run_id] = entry
    check.runs = len(check.entries)
    _repeated_problems(check, repeated, check.entries)
    with progress("checking run files", len(check.entries)) as bar:
        for entry in check.entries.values():
            bar.advance()
            if entry.run_id in check.problems:
                continue
            problem = _check_entry(store, entry, case_ids, in_plan)
            if problem is not None:
                check.problems[entry.run_id] = problem
    return check


def _repeated_problems(
    check: StudyCheck, repeated: list[IndexEntry], first: dict[str, IndexEntry]
) -> None:
    """Count exact copies of an index line; two different lines for one run id are a
    problem of that run (``first``: the first entry of each repeated run id)."""
    for entry in repeated:
        if entry == first[entry.run_id]:
            check.copies += 1
        else:
            check.problems[entry.run_id] = RunProblem(
                entry.run_id, check.store.index, "two different index lines record this run"
            )


def _stream_check(
    check: StudyCheck, repeated: list[IndexEntry], case_ids: set[str], planned: Container[str]
) -> None:
    """:func:`check_study` without keeping entries: check each run as the index streams,
    then (only when a run id repeats) read the index again for the first entry of each
    repeated id. Problems end in the same order as the kept path's (conflicting lines
    first, then run files in index order)."""
    store = check.store
    found: dict[str, RunProblem] = {}
    with progress("checking run files") as bar:
        for entry in store.read_index(repeated):
            check.runs += 1
            bar.advance()
            problem = _check_entry(store, entry, case_ids, planned)
            if problem is not None:
                found[entry.run_id] = problem
    if repeated:
        ids = {entry.run_id for entry in repeated}
        first = {e.run_id: e for e in store.read_index() if e.run_id in ids}
        _repeated_problems(check, repeated, first)
    for run_id, problem in found.items():
        check.problems.setdefault(run_id, problem)


class _Planned:
    """A membership test made of a predicate (``run_id in planned``)."""

    def __init__(self, test: Callable[[str], bool]):
        self.test = test

    def __contains__(self, run_id: object) -> bool:
        return isinstance(run_id, str) and self.test(run_id)


def _unit_ids(row: dict[str, Any]) -> tuple[object, object]:
    """The run ids a plan line names: its clean and its faulted run."""
    return row.get("clean_run_id", ""), row.get("faulted_run_id", "")


@contextmanager
def plan_ids(store: StudyDir) -> Iterator[LineIds]:
    """Every run id ``plan.jsonl`` names (clean and faulted), as an exact membership test
    that keeps no string per unit (:class:`LineIds`: each id's hash and its line's offset,
    confirmed by reading the line again), open while the ``with`` block runs. The plan is
    streamed (never read whole), each line an object or a :class:`DataError` naming it."""
    fd = os.open(store.plan, os.O_RDONLY)
    try:

        def names(offset: int) -> tuple[object, ...]:
            return _unit_ids(loads_object(line_at(fd, offset).decode("utf-8")))

        ids = LineIds(names)
        for offset, row in iter_jsonl_at(store.plan, loads_object):
            for run_id in _unit_ids(row):
                if isinstance(run_id, str):
                    ids.add(run_id, offset)
        yield ids
    finally:
        os.close(fd)


def _case_ids(path: Path) -> list[str]:
    """The case ids of a cases file, in order (a repeated one is an error naming both lines)."""

    def parse(line: str) -> str:
        value = loads_json(line)
        if not isinstance(value, dict) or not isinstance(value.get("case_id"), str):
            raise ValueError("expected a case with a case_id")
        case_id: str = value["case_id"]
        return case_id

    return read_jsonl(path, parse, ("case_id", lambda case_id: case_id))


def verify_study(root: str | Path, keep_entries: bool = True) -> StudyCheck:
    """Check a study and raise :class:`DataError` naming the file and run of the first
    problem; what ``measure``, ``report`` and ``gate`` call before they read a run.

    ``keep_entries=False`` streams the index and keeps no entry (memory does not grow
    with the study): what every caller that only needs the check passes (see
    :func:`check_study`)."""
    check = check_study(root, keep_entries)
    if check.problems:
        first = next(iter(check.problems.values()))
        raise first.error(len(check.problems) - 1)
    return check


__all__ = [
    "RunProblem",
    "StudyCheck",
    "check_recorded_files",
    "check_study",
    "ledger_problem",
    "plan_ids",
    "verify_study",
]


def ledger_problem(
    root: str | Path | StudyDir, run_id: str, found: IndexSearch | None = None
) -> DataError | None:
    """Why one run's ledger is not the one the index recorded (gone, its sha256 another,
    two different index lines for it), or None when it is: the check ``sscbench show``
    makes before it prints a ledger, the same every other reader makes through
    :func:`verify_study`. ``found``: the index's lines of the run when the caller has
    searched it (:func:`~sscbench.study.index_search.search_index`), so it is read once."""
    store = root if isinstance(root, StudyDir) else StudyDir(root)
    if found is None or found.run_id != run_id:
        found = search_index(store.index, run_id)
    if found.run_id != run_id or not found.entries:
        return DataError(store.index, f"run {run_id}", "absent from the index")
    if found.conflict:
        return DataError(store.index, f"run {run_id}", "two different index lines record this run")
    entry = found.entries[0]
    if entry.ledger_sha256 is None:
        if entry.status == "completed":
            return DataError(store.index, f"run {run_id}", "a completed run without ledger_sha256")
        return None  # no ledger was recorded: reading it fails on its own
    if store.sharded:
        problem = store.shard_problem(run_id, entry.ledger_sha256, entry.evaluator_sha256)
        return DataError(problem[0], f"run {run_id}", problem[1]) if problem else None
    path = store.ledger_path(run_id)
    reason = _file_problem(path, entry.ledger_sha256)
    return DataError(path, f"run {run_id}", reason) if reason else None
