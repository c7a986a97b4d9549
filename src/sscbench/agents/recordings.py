"""Recordings as study agents: which recorded runs replay a case, and the factories.

A study agent of kind ``replay`` replays, for a case on task *t*, the recorded runs of
*t* that its selection picks (recorded ``trials``, or ``"all"`` / the first n runs in
file order); the k-th selected run is repetition k. Or it replays exactly the pairs
of a pairs file (:mod:`sscbench.agents.pairs`): pair k is repetition k, its edits
applied to the faulted run only. The agent's factory puts the run it replays into
``RunContext.replay`` (:class:`~sscbench.core.agent.ReplayChoice`), where the recorded user
(:mod:`sscbench.users.replay`) finds it: agent and user of a run replay the same
recording.

τ²-bench results are matched to τ-bench's tasks by content
(:mod:`sscbench.recordings.task_match`); a run's ``info["match"]`` keeps the match and its
score, and an unmatched conversation replays no case. A pairs study of a τ² file whose
pairs all name their recording reads and matches only the conversations it names: the
file is indexed once by simulation id (:mod:`sscbench.recordings.tau2_index`), each named
conversation read back by its byte span; ``run`` keeps the index and the matches in the
study (:func:`named_rows`) and seeds the next command with them (:func:`seed_tau2_index`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sscbench.agents.edits import apply_edits
from sscbench.agents.pairs import Pair, read_pairs
from sscbench.agents.replay import ReplayAgent
from sscbench.core.agent import RunContext
from sscbench.errors import DataError
from sscbench.recordings.formats import detect_file, load_recording, recording_id, run_format
from sscbench.recordings.recorded import RecordedRun
from sscbench.recordings.task_match import TaskMatch, match_task
from sscbench.recordings.tau2_index import Span, Tau2Index
from sscbench.world.task import Task

UNMATCHED = "unmatched"


@lru_cache(maxsize=8)
def _load(path: str, sha256: str | None) -> tuple[RecordedRun, ...]:
    return tuple(load_recording(path))


def recorded_runs(path: str | Path, sha256: str | None = None) -> tuple[RecordedRun, ...]:
    """A recording file's runs, parsed once per (path, content hash)."""
    return _load(str(path), sha256)


@lru_cache(maxsize=8)
def _read_pairs(path: str, sha256: str | None) -> tuple[Pair, ...]:
    return tuple(read_pairs(path))


@lru_cache(maxsize=4)
def _tasks(path: str, domain: str | None, data: str | None, split: str) -> tuple[Task, ...]:
    """The τ-bench tasks of ``split`` a τ² recording of ``domain`` is matched against."""
    from sscbench.world.load import load_world

    if domain not in ("airline", "retail"):
        raise DataError(path, "info.environment_info.domain_name", f"unknown domain {domain!r}")
    if data is None:
        raise DataError(path, None, "a τ² recording replays on the tau-bench world (world.data)")
    world = load_world("tau-bench", domain, data, 0)
    return tuple(t for t in world.tasks if t.task_id.startswith(f"{split}/"))


def _with_match(run: RecordedRun, match: TaskMatch) -> RecordedRun:
    """The run under its matched task id (or ``unmatched/<recording>``), the match kept."""
    task = match.task_id or f"{UNMATCHED}/{match.recording}"
    return run.model_copy(update={"task_id": task, "info": {**run.info, "match": match.row()}})


@lru_cache(maxsize=8)
def _matched(
    path: str, sha256: str | None, data: str | None, split: str
) -> tuple[tuple[RecordedRun, ...], tuple[TaskMatch, ...]]:
    runs = recorded_runs(path, sha256)
    if not runs or not run_format(runs[0]).matches_tasks:
        return runs, ()
    domain = runs[0].info.get("domain")
    tasks = list(_tasks(path, domain if isinstance(domain, str) else None, data, split))
    matches = tuple(match_task(run, tasks, recording_id(run)) for run in runs)
    out = tuple(_with_match(run, match) for run, match in zip(runs, matches, strict=True))
    return out, matches


_SEEDED: dict[tuple[str, str], Tau2Index] = {}


def seed_tau2_index(path: str | Path, sha256: str, index: Tau2Index) -> None:
    """Use ``index`` (kept in a study by an earlier ``run``) for the τ² file ``path`` of
    content ``sha256`` instead of scanning the file again."""
    _SEEDED[(str(path), sha256)] = index


@lru_cache(maxsize=8)
def _scanned(path: str, sha256: str | None) -> Tau2Index:
    found = detect_file(path)
    index = found.index(Path(path)) if found is not None else None
    if index is None:
        raise DataError(path, None, "the recording's format has no index of its runs")
    return index


def tau2_index(path: str | Path, sha256: str | None) -> Tau2Index:
    """The τ² file's index by simulation id: seeded from a study, or scanned once per
    (path, content hash)."""
    if sha256 is not None and (str(path), sha256) in _SEEDED:
        return _SEEDED[(str(path), sha256)]
    return _scanned(str(path), sha256)


@lru_cache(maxsize=256)
def _named(
    path: str, sha256: str | None, data: str | None, split: str, recording: str
) -> tuple[tuple[Span, RecordedRun, TaskMatch], ...]:
    index = tau2_index(path, sha256)
    spans = index.find(recording)
    if not spans:
        return ()
    domain = index.domain
    tasks = list(_tasks(path, domain if isinstance(domain, str) else None, data, split))
    out = []
    for span in spans:
        run = index.run(span)
        match = match_task(run, tasks, recording_id(run))
        out.append((span, _with_match(run, match), match))
    return tuple(out)


def named_runs(
    path: str | Path, sha256: str | None, data: Path | None, split: str, recording: str
) -> tuple[tuple[Span, RecordedRun, TaskMatch], ...]:
    """The simulations of a τ² file with id ``recording`` — each read by its span, converted
    and matched alone (once per process) — with their spans and matches."""
    return _named(str(path), sha256, str(data) if data is not None else None, split, recording)


def matched_runs(
    path: str | Path, sha256: str | None, data: Path | None, split: str = "test"
) -> tuple[tuple[RecordedRun, ...], tuple[TaskMatch, ...]]:
    """A recording's runs with their τ-bench task ids, and (τ² only) every match made."""
    return _matched(str(path), sha256, str(data) if data is not None else None, split)


@dataclass(frozen=True)
class Selection:
    """Which recorded runs of a task replay it: by trial number, or all / the first n."""

    trials: tuple[int, ...] | None = None
    count: int | None = None  # None with no trials: every recorded run
    split: str = "test"

    def pick(self, runs: tuple[RecordedRun, ...], task_id: str) -> list[RecordedRun]:
        """The selected recorded runs of ``task_id``, in file order."""
        mine = [r for r in runs if r.taubench_task_id(self.split) == task_id]
        if self.trials is not None:
            wanted = set(self.trials)
            mine = [r for r in mine if r.trial in wanted]
        return mine if self.count is None else mine[: self.count]


class RecordingAgentFactory:
    """Builds, for each run, a :class:`ReplayAgent` of the case task's selected recording
    (or of the run's pair)."""

    def __init__(
        self,
        path: str | Path,
        sha256: str | None,
        selection: Selection,
        data: Path | None = None,
        pairs: Path | None = None,
        pairs_sha256: str | None = None,
    ):
        self.path = Path(path)
        self.sha256 = sha256
        self.selection = selection
        self.data = data
        self.pairs_path = pairs
        self.pairs_sha256 = pairs_sha256
        self._by_task: dict[str, list[RecordedRun]] = defaultdict(list)
        self._named: bool | None = None

    @property
    def runs(self) -> tuple[RecordedRun, ...]:
        """Every run of the recording, with its τ-bench task id."""
        return matched_runs(self.path, self.sha256, self.data, self.selection.split)[0]

    def pairs(self) -> tuple[Pair, ...]:
        """The pairs file's pairs (empty without one), parsed once per (path, content hash)."""
        if self.pairs_path is None:
            return ()
        return _read_pairs(str(self.pairs_path), self.pairs_sha256)

    def reads_named_only(self) -> bool:
        """True when the agent replays a pairs file whose pairs all name their recording,
        of a recording whose format indexes its runs (τ²'s): only those conversations are
        read and matched."""
        if self._named is None:
            pairs = self.pairs()
            found = detect_file(self.path) if pairs else None
            self._named = (
                all(p.recording is not None for p in pairs) and found is not None and found.indexed
            )
        return self._named

    def named(self, recording: str) -> tuple[tuple[Span, RecordedRun, TaskMatch], ...]:
        """The named conversation(s) with id ``recording``, with spans and matches."""
        split = self.selection.split
        return named_runs(self.path, self.sha256, self.data, split, recording)

    def named_rows(self) -> list[dict[str, object]]:
        """Each conversation the pairs name, once, in pairs order: its span in the file
        and its content match (what ``run`` keeps in the study's ``recordings.json``)."""
        rows: list[dict[str, object]] = []
        seen: set[str] = set()
        for pair in self.pairs():
            if pair.recording is None or pair.recording in seen:
                continue
            seen.add(pair.recording)
            for span, _, match in self.named(pair.recording):
                rows.append({**span.row(), "match": match.row()})
        return rows

    def runs_for(self, task_id: str) -> list[RecordedRun]:
        """The recorded runs that replay ``task_id`` (one per repetition)."""
        if task_id not in self._by_task:
            self._by_task[task_id] = self.selection.pick(self.runs, task_id)
        return self._by_task[task_id]

    def repetitions(self, case_id: str, task_id: str) -> list[int]:
        """The repetition numbers of a case: its pairs' line indices, or one per selected run."""
        if self.pairs_path is None:
            return list(range(len(self.runs_for(task_id))))
        return [k for k, pair in enumerate(self.pairs()) if pair.case_id == case_id]

    def pair_run(self, pair: Pair, task_id: str) -> RecordedRun:
        """The recorded run a pair names (for a case on ``task_id``); errors name the field."""
        where = self.pairs_path or self.path
        line = f"line {pair.line}" if pair.line else f"case {pair.case_id}"
        split = self.selection.split
        if pair.recording is not None and self.reads_named_only():
            found = [run for _, run, _ in self.named(pair.recording)]
            field = "recording"
        elif pair.recording is not None:
            found = [r for r in self.runs if recording_id(r, split) == pair.recording]
            field = "recording"
        else:
            found = [
                r
                for r in self.runs
                if r.taubench_task_id(split) == task_id and r.trial == pair.trial
            ]
            field = "trial"
        if not found:
            raise DataError(
                where,
                f"{line}: {field}",
                f"no recording {pair.recording or pair.trial!r} in {self.path}",
            )
        run = found[0]
        matched = run.taubench_task_id(split)
        if not matched.startswith(f"{UNMATCHED}/") and matched != task_id:
            raise DataError(
                where,
                f"{line}: recording",
                f"recording {recording_id(run, split)} ran task {matched}, not the case's {task_id}",
            )
        return run

    def __call__(self, context: RunContext) -> ReplayAgent:
        if self.pairs_path is not None:
            pairs = self.pairs()
            run = self.pair_run(pairs[context.repetition], context.task.task_id)
            if context.kind != "clean":
                edits = pairs[context.repetition].edits
                run = apply_edits(run, edits)
                if edits:
                    run = run.model_copy(update={"info": {**run.info, "edits": len(edits)}})
        else:
            runs = self.runs_for(context.task.task_id)
            if context.repetition >= len(runs):
                raise ValueError(
                    f"{self.path}: no recorded run {context.repetition} for task "
                    f"{context.task.task_id} ({len(runs)} selected)"
                )
            run = runs[context.repetition]
        context.replay.run = run
        return ReplayAgent(run, source=str(self.path), sha256=self.sha256)


def clear_caches() -> None:
    """Forget every recording read, index and match of this process (as a new command
    starts): what the next command reads again is then what it costs."""
    for cached in (_load, _read_pairs, _matched, _tasks, _scanned, _named):
        cached.cache_clear()
    _SEEDED.clear()
