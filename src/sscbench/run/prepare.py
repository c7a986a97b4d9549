"""A study made ready to run: built and validated before its folder is touched, then
started in the (locked) folder or resumed from it, keeping the finished runs whose files
hold (:func:`resume_records`, which Inspect's study binding uses too)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.admission.batch import Admission, write_admission
from sscbench.core.files import atomic_path
from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.jsonl import model_line
from sscbench.llm.journal_carry import carry_forward
from sscbench.run.builders import (
    build_agent_factory,
    build_study_cases,
    build_user_factory,
    check_replay_plan,
    hash_inputs,
    input_files,
)
from sscbench.run.episodes import EpisodeMaker, EpisodeSource
from sscbench.run.finished import FinishedRuns, read_finished
from sscbench.run.plan_caps import plan_caps
from sscbench.run.planning import Plan, PlanUnit, make_plan
from sscbench.run.recordings_kept import kept_recordings, seed_from_study
from sscbench.run.shared_clean import check_plan_format
from sscbench.study.caps import write_caps
from sscbench.study.config import StudyConfig
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.placement import chosen_executor, ray_workers
from sscbench.study.recordings_file import write_recordings
from sscbench.study.runfiles import choose_layout
from sscbench.study.worlds import build_worlds
from sscbench.terminal import plain
from sscbench.world.world import World


def resume_records(
    store: StudyDir, plan: Iterable[PlanUnit], retry_missing: bool = False
) -> tuple[dict[str, IndexEntry], int]:
    """The finished runs whose files hold, as index entries (Inspect's study binding reads
    them back); the others leave the index to run again (:func:`drop_untrusted`).
    Returns (finished, dropped). ``sscbench run`` keeps them flat instead
    (:func:`~sscbench.run.finished.read_finished`)."""
    dropped = drop_untrusted(store, plan, retry_missing)
    finished = {entry.run_id: entry for entry in store.read_index()}
    _carry_journals(store, finished)
    return finished, dropped


def drop_untrusted(
    store: StudyDir,
    plan: Iterable[PlanUnit],
    retry_missing: bool = False,
    planned: Callable[[str], bool] | None = None,
) -> int:
    """Take the runs whose files fail the check out of the index (and the faulted runs
    paired with a clean run to re-run), so they run again; returns how many left it. A
    resumed study (here or in Inspect) keeps only what it can trust. With
    ``retry_missing`` the missing runs (lost to the harness) leave it too; every completed
    and not-qualified run is kept as it is. The index is streamed (checked, then
    rewritten line by line when a run leaves it): nothing is kept per run but the ids of
    the runs that leave. ``planned``: whether a run id is in the study's plan, when the
    caller knows (else ``plan.jsonl``'s ids are read, :func:`check_study`)."""
    from sscbench.study.missing import is_retryable_missing
    from sscbench.study.verify import check_study

    if not store.index.exists():  # stopped before its first run finished: nothing to check
        return 0
    check = check_study(store.root, keep_entries=False, planned=planned)
    bad = set(check.problems)
    if retry_missing:
        bad |= {e.run_id for e in store.read_index() if is_retryable_missing(e)}
    if bad:
        for unit in plan:
            if unit.clean_run_id in bad:
                bad.add(unit.faulted_run_id)
    if not bad and not check.copies:
        return 0
    dropped = 0
    with atomic_path(store.index) as tmp, tmp.open("wb") as out:
        for entry in store.read_index():
            if entry.run_id in bad:
                dropped += 1
            else:
                out.write((model_line(entry) + "\n").encode("utf-8"))
    for run_id in bad:
        store.remove_run_files(run_id)
    return dropped


def _carry_journals(store: StudyDir, finished: Container[str]) -> None:
    """Carry the unfinished runs' recorded answers forward into one file, before any run
    starts (:mod:`sscbench.llm.journal_carry`); the finished runs' are dropped."""
    for note in carry_forward(store.runs, finished):
        print(f"note: {plain(note)}", file=sys.stderr)


def episode_source(
    config: StudyConfig,
    worlds: dict[str, World],
    cases: list[Case],
    toml_text: str,
    executor: str,
    address: str | None,
    out: Path,
    workers: int | None = None,
) -> EpisodeSource:
    """Where the study's episodes are made: this process (``local``, keeping a response
    journal per run that calls a model in the process's book, :mod:`sscbench.llm.journal`),
    ``workers`` child processes on this machine (``processes``, each its own book) or a Ray
    cluster (``ray``, ``workers`` actors per pool when given)."""
    if executor == "ray":
        from sscbench.run.ray_executor import RayEpisodes

        if workers is not None:
            study = config.study.model_copy(update={"ray": ray_workers(config.study.ray, workers)})
            config = config.model_copy(update={"study": study})
        return RayEpisodes.connect(config, toml_text, cases, address)
    if executor == "processes":
        from sscbench.run.processes import ProcessEpisodes

        return ProcessEpisodes.start(config, toml_text, cases, StudyDir(out).runs, workers)
    agents = {a.id: build_agent_factory(a) for a in config.agents}
    user = build_user_factory(config.user)
    return EpisodeMaker(config, worlds, agents, user, journal_dir=StudyDir(out).runs)


@dataclass
class Prepared:
    """A study built and validated before its folder is touched: the folder, the worlds,
    the cases (and their admission, when the study admitted them), the plan, the inputs'
    hashes and where the episodes are made."""

    store: StudyDir
    worlds: dict[str, World]
    cases: list[Case]
    admission: Admission | None
    plan: Plan
    inputs: dict[str, str]
    source: EpisodeSource
    caps: list[str] = field(default_factory=list)  # what caps the plan (run/plan_caps.py)


def prepare_study(
    config: StudyConfig,
    toml_text: str,
    out: str | Path,
    executor: str | None,
    address: str | None,
    workers: int | None = None,
) -> Prepared:
    """Build and validate everything the study needs, then create its folder (closing the
    episode source when that fails); ``workers``: the executor's worker count, if given."""
    store = StudyDir(out)
    store.check_writable()
    worlds = build_worlds(config)
    cases, admission = build_study_cases(config, worlds)
    plan = make_plan(config, cases)
    if store.is_study():  # resuming: the named conversations' spans the study kept
        seed_from_study(config, store.root)
    check_replay_plan(config, plan.config_ids(), cases)
    inputs = hash_inputs(input_files(config))
    executor, address = chosen_executor(config.study, executor, address)
    source = episode_source(
        config, worlds, cases, toml_text, executor, address, store.root, workers
    )
    try:
        store.root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        asyncio.run(source.aclose())
        raise DataError(store.root, None, f"cannot create: {exc.strerror or exc}") from exc
    caps = plan_caps(config, cases, admission)
    return Prepared(store, worlds, cases, admission, plan, inputs, source, caps)


def open_study(
    prepared: Prepared,
    config: StudyConfig,
    toml_text: str,
    restart: bool,
    retry_missing: bool = False,
    each: Callable[[IndexEntry, float], None] | None = None,
) -> tuple[bool, FinishedRuns, int]:
    """Start the study in its (locked) folder or resume it: write or check its inputs and
    plan, the admission, and keep the finished runs whose files hold (with
    ``retry_missing``, not the missing ones), flat (:class:`FinishedRuns`), calling
    ``each`` with every one and its wall time. Returns (resumed, finished runs, runs
    dropped to run again)."""
    store, plan = prepared.store, prepared.plan
    if restart:
        store.remove_study()
    resumed = store.initialize(
        config.config_hash(),
        config.canonical_json(),
        toml_text,
        prepared.cases,
        (unit.plan_line() for unit in plan),
        inputs=prepared.inputs,
        base_dir=config.base_dir,
        layout=choose_layout(
            config.study.store, len(plan) + plan.slot_count, config.study.concurrency
        ),
    )
    same_plan = False
    if resumed:
        same_plan = check_plan_format(store.plan, lambda: (unit.plan_line() for unit in plan))
    if prepared.admission is not None:  # the study admitted its cases: their funnel and order
        write_admission(store.root, prepared.admission)
    write_caps(store.root, prepared.caps)
    write_recordings(store.root, kept_recordings(config))
    store.repair_index()
    finished, dropped = FinishedRuns(plan), 0
    if resumed:
        # the stored plan is this plan line for line: its ids are found without reading them
        planned = (lambda run_id: plan.locate(run_id) is not None) if same_plan else None
        dropped = drop_untrusted(store, plan, retry_missing, planned)
        finished = read_finished(store, plan, each or (lambda entry, wall_s: None))
        _carry_journals(store, finished)
    for done in store.open_runs():  # a shard frame a kill cut is cut off before any append
        print(f"note: run store: {plain(done)}", file=sys.stderr)  # said, never silent
    return resumed, finished, dropped
