"""Execute a study's plan: clean run first, faulted run only when the clean task was solved.

Runs are written to disk as they finish and forgotten: the plan is made on demand,
a finished clean run is kept as four numbers until the study ends
(:mod:`sscbench.run.clean_outcomes`), the cost summary as sums
(:class:`~sscbench.study.cost.CostTally`), so memory stays flat as a study grows; a rerun
of the same command resumes where a killed one stopped.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.core.agent import AgentFactory
from sscbench.core.user import UserFactory
from sscbench.run.builders import (
    clean_disqualifies,
)
from sscbench.run.clean_outcomes import CleanOutcome, CleanOutcomes
from sscbench.run.cost_cap import CostCap
from sscbench.run.drain import drain_and_close
from sscbench.run.episodes import EpisodeMaker, EpisodeSource, RunKind, index_entry
from sscbench.run.finished import FinishedRuns
from sscbench.run.heap import runs_heap
from sscbench.run.planning import PlanUnit
from sscbench.run.prepare import Prepared, open_study, prepare_study
from sscbench.run.shared_clean import beyond_case_limit
from sscbench.run.stopper import SignalStopper
from sscbench.run.writer import RunWriter
from sscbench.study.config import StudyConfig
from sscbench.study.cost import CostTally, calls_a_model
from sscbench.study.cost_words import local_free_models
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.lock import StudyLock
from sscbench.world.world import World

Recording = asyncio.Future[IndexEntry]
"""A run's record asked of the writer: done once its index line is written and counted."""


def reason_group(reason: str | None) -> str:
    """What a missing run's reason is counted under: its text before the first ``": "``
    (``"agent connection failed"``, ``"user timed out"``, ``"clean run missing"``)."""
    return (reason or "no reason recorded").split(": ", 1)[0]


@dataclass
class StudySummary:
    """What an invocation of the study did and what the study now holds."""

    out: Path
    planned_runs: int
    resumed: bool
    statuses: Counter = field(default_factory=Counter)
    executed_now: int = 0
    requeued: int = 0  # runs re-run from scratch after their worker was lost (Ray)
    runs_wall_s: float = 0.0  # from the first unit started to the last run recorded, now
    rerun: int = 0
    took_over: str | None = None
    missing_reasons: Counter = field(default_factory=Counter)  # by reason group, live
    cost_lines: list[str] = field(default_factory=list)  # requests, tokens, price, pass^k
    journals: Counter = field(default_factory=Counter)  # runs continued from a journal, answers
    halted: bool = False  # ``stop_when`` stopped the campaign: runs left unscheduled
    retried: int = 0  # missing runs taken out of the index to run again (--retry-missing)
    max_cost: float | None = None  # the cost cap in dollars (--max-cost), None: none
    capped: bool = False  # the cost cap stopped the study: units left unstarted
    spent_usd: float = 0.0  # dollars the study's finished runs spent (priced)
    caps: list[str] = field(default_factory=list)  # what caps the plan, counted
    spend: str = ""  # the spend so far in the one wording, live (empty: no model is called)

    def count(self, entry: IndexEntry) -> None:
        """Count a finished run's status (and, when missing, the group of its reason)."""
        self.statuses[entry.status] += 1
        if entry.status == "missing":
            self.missing_reasons[reason_group(entry.reason)] += 1

    @property
    def finished_runs(self) -> int:
        """Runs with an index line (completed, not qualified or missing)."""
        return sum(self.statuses.values())


class StudyRunner:
    """Runs plan units against the study directory, one clean-then-faulted pipeline each.

    The episodes come from ``source`` (default: made in this process from ``worlds``,
    ``agents`` and ``user``; the Ray executor passes its workers): whatever makes them,
    this runner alone decides qualification and writes the files and the index.

    ``finished`` holds the runs finished before (a resumed study) as index entries;
    runs finished now are added to it only with ``keep_finished`` (Inspect reads them
    back), else kept only as their clean outcome and cost sums (``costs``). ``before``
    holds them flat instead (``sscbench run``: a byte per unit, four numbers per clean
    run, :class:`~sscbench.run.finished.FinishedRuns`). ``hold_files`` keeps the index,
    timings and open shard open until the writer closes (``sscbench run``, under the
    study's lock for the whole invocation).
    """

    def __init__(
        self,
        config: StudyConfig,
        worlds: dict[str, World],
        agents: dict[str, AgentFactory],
        user: UserFactory | None,
        store: StudyDir,
        finished: dict[str, IndexEntry],
        on_entry: Callable[[IndexEntry], None],
        source: EpisodeSource | None = None,
        *,
        keep_finished: bool = False,
        costs: CostTally | None = None,
        before: FinishedRuns | None = None,
        hold_files: bool = False,
    ):
        self.config = config
        self.worlds = worlds
        self.agents = agents
        self.user = user
        self.store = store
        self.finished = finished
        self.on_entry = on_entry
        self.settings = {a.id: a for a in config.agents}
        if source is None:
            assert user is not None, "a runner without an episode source needs the user factory"
            source = EpisodeMaker(config, worlds, agents, user)
        self.source: EpisodeSource = source
        self.keep_finished = keep_finished
        self.costs = costs if costs is not None else CostTally(config.prices)
        # clean runs finished (before, then now): what qualification reads
        self.before = before
        self.cleans = before.cleans if before is not None else CleanOutcomes()
        self._clean_runs: dict[str, asyncio.Future] = {}  # clean runs in flight
        self._journals: dict[str, str] = {}  # run id -> its response journal, until recorded
        self.halted = False  # the campaign's abort metric crossed: no new run starts
        # the folder's writes, off the event loop while runs wait on a model endpoint
        self.writer = RunWriter(
            store,
            offload=calls_a_model(config),
            pending=config.study.concurrency,  # a record per worker may wait: flat memory
            hold_files=hold_files,
        )

    def retained(self) -> dict[str, int]:
        """The sizes of what this runner holds per run (a test of flat memory reads them):
        none may grow with the runs finished in this invocation but ``cleans_numbers``,
        a few bytes per shared clean run."""
        return {
            "finished": len(self.finished) + (self.before.held() if self.before else 0),
            "clean_runs_in_flight": len(self._clean_runs),
            "journals": len(self._journals),
            "cleans_objects": self.cleans.containers(),
            "cost_configs": len(self.costs.by_config),
        }

    def _recorded(self, entry: IndexEntry, wall_s: float = 0.0) -> None:
        """What the runner does once a run's index line is written (on the loop, for
        every run): keep it (Inspect), count its cost, tell ``on_entry``."""
        if self.keep_finished:
            self.finished[entry.run_id] = entry
        self.costs.add(entry, wall_s)
        self.on_entry(entry)

    async def _record(self, entry: IndexEntry) -> Recording:
        """Record a run without text (not qualified, or missing: its index line alone)."""
        return await self.writer.record_entry(entry, None, self._recorded)

    async def _episode(
        self, unit: PlanUnit, kind: RunKind, run_id: str
    ) -> tuple[CleanOutcome, Recording]:
        """Make the run (here or on a worker), then ask the study's one writer to record
        it (its text, timing and index lines, the journals told: one job, here); the
        run's outcome (what qualification reads) and its recording's future return as
        soon as the record is asked for."""
        output = await self.source.make(unit, kind, run_id)
        if "journal" in output.meta:
            self._journals[run_id] = output.meta["journal"]
        wall_s = round(output.wall_s, 6)  # as timings.jsonl holds it

        def entry_of(digests: tuple[str, str]) -> IndexEntry:
            return index_entry(self.config, unit, output, digests)

        recording = await self.writer.record_run(
            run_id,
            output.ledger,
            output.evaluator,
            output.wall_s,
            entry_of,
            self._journals.pop(run_id, None),  # removed after the index line
            lambda entry: self._recorded(entry, wall_s),
        )
        end = output.end
        return CleanOutcome(run_id, end.status, end.reward, end.agent_turns), recording

    async def _clean_entry(
        self, unit: PlanUnit
    ) -> tuple[IndexEntry | CleanOutcome, Recording | None]:
        """The unit's shared clean run: finished before, in flight for another unit (then
        awaited), or run now — once per study, whichever unit needs it first (which gets
        its recording's future too)."""
        clean_id = unit.clean_run_id
        done = self.finished.get(clean_id) or self.cleans.get(unit)
        if done is None and self.before is not None:
            done = self.before.clean(unit)
        if done is not None:
            return done, None
        running = self._clean_runs.get(clean_id)
        if running is not None:
            return (await asyncio.shield(running))[0], None

        async def run_clean() -> tuple[CleanOutcome, Recording]:
            try:
                outcome, recording = await self._episode(unit, "clean", clean_id)
                self.cleans.put(unit, outcome)
                return outcome, recording
            finally:
                self._clean_runs.pop(clean_id, None)

        running = asyncio.ensure_future(run_clean())
        self._clean_runs[clean_id] = running
        return await asyncio.shield(running)

    async def start_unit(self, unit: PlanUnit) -> Recording | None:
        """The task's shared clean run (unless finished), then this case's faulted run or
        its not-qualified / missing record naming the clean run; returns as soon as the
        last record is asked for, with its future (None: nothing recorded by this unit).
        A faulted run starts once its clean run's outcome is known; its record is asked
        for after its clean run's, so its index line follows (the writer is FIFO)."""
        faulted_id = unit.faulted_run_id
        if faulted_id in self.finished or (self.before and self.before.faulted_done(unit)):
            return None
        clean, recording = await self._clean_entry(unit)
        if self.halted:
            return recording  # not started, so not recorded: nothing of it is lost
        base = {
            "run_id": faulted_id,
            "case_id": unit.case.case_id,
            "config_id": unit.config_id,
            "repetition": unit.repetition,
            "kind": "faulted",
            "clean_run_id": clean.run_id,
        }
        if clean.status == "missing":
            return await self._record(
                IndexEntry(**base, status="missing", reason="clean run missing")
            )
        if reason := clean_disqualifies(self.settings[unit.config_id], clean.reward) or (
            beyond_case_limit(clean.agent_turns, unit.case)
        ):
            return await self._record(IndexEntry(**base, status="not-qualified", reason=reason))
        return (await self._episode(unit, "faulted", faulted_id))[1]

    async def run_unit(self, unit: PlanUnit) -> None:
        """:meth:`start_unit`, then wait for its records (and so, the writer being FIFO,
        for every record asked for before them): the unit's runs are in the index."""
        recording = await self.start_unit(unit)
        if recording is not None:
            await recording


def _missing_count(store: StudyDir) -> int:
    """Runs the index records missing before ``--retry-missing`` takes them out."""
    if not store.index.exists():
        return 0
    return sum(e.status == "missing" for e in store.read_index())


class StudyInterrupted(Exception):
    """SIGINT or SIGTERM stopped the study; the runs written so far are kept."""

    def __init__(self, summary: StudySummary, signum: int):
        self.summary = summary
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


def execute_study(
    config: StudyConfig,
    toml_text: str,
    out: str | Path,
    *,
    restart: bool = False,
    progress: bool = True,
    on_run: Callable[[IndexEntry], None] | None = None,
    executor: str | None = None,
    address: str | None = None,
    stop_when: Callable[[IndexEntry], bool] | None = None,
    retry_missing: bool = False,
    max_cost: float | None = None,
    workers: int | None = None,
) -> StudySummary:
    """Plan and run a study into ``out``, resuming a previous invocation of the same config.

    Everything is built and validated before the folder is touched; the folder is then
    locked for this process (:class:`~sscbench.study.lock.StudyLock`). ``restart`` removes
    only what sscbench wrote. On resume, the inputs' hashes and every finished run's
    files are checked; runs whose files fail are run again. SIGINT/SIGTERM stop the
    study promptly and raise :class:`StudyInterrupted` (the study resumes where it stopped).
    ``on_run`` is called with each run's index entry once its files are written (e.g.
    live traces). ``executor`` (default: ``[study] executor``) makes the episodes here
    (``local``), in ``workers`` child processes (``processes``, :mod:`sscbench.run.processes`)
    or on a Ray cluster at ``address`` (``ray``, :mod:`sscbench.run.ray_executor`);
    either way this process alone writes the study folder. ``stop_when`` (e.g. the
    containment plan's abort metric) is asked after each recorded run; once it says
    True no new run is scheduled, runs in flight finish, and ``summary.halted`` is set.
    ``retry_missing`` runs again, on resume, the runs recorded missing (lost to the
    harness), keeping every other finished run. ``max_cost`` (dollars; checked by
    :func:`~sscbench.run.cost_cap.cost_bound`) stops starting units before the spend could
    cross it (:class:`~sscbench.run.cost_cap.CostCap`); ``summary.capped`` says it did.
    """
    prepared = prepare_study(config, toml_text, out, executor, address, workers)
    store, plan, source = prepared.store, prepared.plan, prepared.source
    with StudyLock(store.root) as lock:
        store.clean_temporaries()  # what a killed run left (temporary run files)
        summary = StudySummary(store.root, len(plan) + plan.clean_count(), resumed=False)
        costs = CostTally(config.prices, local_free_models(config))

        def count(entry: IndexEntry, wall_s: float) -> None:  # each run finished before
            summary.count(entry)
            costs.add(entry, wall_s)

        try:
            missing_before = _missing_count(store) if retry_missing else 0
            resumed, finished, dropped = open_study(
                prepared, config, toml_text, restart, retry_missing, count
            )
        except BaseException:
            asyncio.run(source.aclose())
            raise
        summary.resumed = resumed
        summary.caps = list(prepared.caps)
        summary.retried = min(dropped, missing_before)
        summary.rerun = dropped - summary.retried
        summary.took_over = lock.taken_over.describe() if lock.taken_over else None
        capped = max_cost is not None and calls_a_model(config)
        cap = CostCap(max_cost, costs) if capped and max_cost is not None else None
        summary.max_cost = max_cost
        run = _PlanRun(config, prepared, summary, finished, costs, on_run, stop_when, cap)
        signum = run.drain(progress)
        summary.capped = cap is not None and cap.stopped
        summary.spent_usd = costs.study().price_usd
        summary.requeued = getattr(source, "requeued", 0)
        summary.journals = Counter(getattr(source, "journal_stats", {}))
        summary.cost_lines = costs.lines(model_called=calls_a_model(config))
        if signum is not None:
            raise StudyInterrupted(summary, signum)
    return summary


@dataclass
class _PlanRun:
    """The plan's units run in this invocation, counted into ``summary`` as they finish."""

    config: StudyConfig
    prepared: Prepared
    summary: StudySummary
    finished: FinishedRuns
    costs: CostTally
    on_run: Callable[[IndexEntry], None] | None
    stop_when: Callable[[IndexEntry], bool] | None
    cap: CostCap | None = None

    def drain(self, progress: bool) -> int | None:
        """Run every unit not finished yet under the progress bar until done, halted by
        ``stop_when`` or stopped by a signal; returns the signal's number, or None."""
        from sscbench.run.progress import StudyProgress

        summary, source = self.summary, self.prepared.source
        in_flight = getattr(source, "in_flight", {})
        with (
            StudyProgress(summary, enabled=progress, in_flight=in_flight) as bar,
            SignalStopper() as stopper,
        ):
            started = time.monotonic()
            if isinstance(source, EpisodeMaker):
                source.on_note = bar.note

            called = calls_a_model(self.config)

            def on_entry(entry: IndexEntry) -> None:
                if called:
                    totals = self.costs.study()
                    summary.spent_usd = totals.price_usd
                    summary.spend = totals.words(self.costs.local)
                summary.count(entry)
                summary.executed_now += 1
                summary.runs_wall_s = time.monotonic() - started
                bar.update()
                if self.on_run is not None:
                    self.on_run(entry)
                if self.stop_when is not None and self.stop_when(entry):
                    runner.halted = True

            runner = StudyRunner(
                self.config,
                self.prepared.worlds,
                {},
                None,
                self.prepared.store,
                {},
                on_entry,
                source,
                costs=self.costs,
                before=self.finished,
                hold_files=True,
            )
            units = iter(self.prepared.plan)
            concurrency = self.config.study.concurrency
            with runs_heap():
                asyncio.run(drain_and_close(units, runner, concurrency, stopper, self.cap))
        summary.halted = runner.halted
        return stopper.signum
