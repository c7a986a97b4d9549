"""Execute a study's plan: clean run first, faulted run only when the clean task was solved.

Runs are written to disk as they finish and forgotten, so memory stays flat as a
study grows; a rerun of the same command resumes where a killed one stopped.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.core.agent import AgentFactory, RunContext
from sscbench.core.ledger import ContextIntervention, HarnessError, RunStart, Usage
from sscbench.core.user import UserFactory
from sscbench.errors import DataError
from sscbench.faults.registry import SeededOperator, consistent_source_hooks, get_operator
from sscbench.jsonl import escape_surrogates
from sscbench.llm.usage import RoleUsage, RunUsage
from sscbench.run.builders import (
    build_agent_factory,
    build_cases,
    build_user_factory,
    build_worlds,
    check_replay_plan,
    clean_disqualifies,
    derive_seed,
    hash_inputs,
    input_files,
)
from sscbench.run.config import StudyConfig
from sscbench.run.cost import role_price, summary_lines
from sscbench.run.episode import EpisodeResult, run_episode
from sscbench.run.lock import StudyLock
from sscbench.run.planning import PlanUnit, clean_slots, make_plan
from sscbench.run.run_ids import run_id_for  # noqa: F401  (re-exported: tests import it here)
from sscbench.run.shared_clean import (
    beyond_case_limit,
    check_plan_format,
    clean_seed,
)
from sscbench.run.stopper import SignalStopper
from sscbench.run.storage import IndexEntry, StudyDir
from sscbench.world.world import World


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
    rerun: int = 0
    took_over: str | None = None
    missing_reasons: Counter = field(default_factory=Counter)  # by reason group, live
    cost_lines: list[str] = field(default_factory=list)  # requests, tokens, price, pass^k

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
    """Runs plan units against the study directory, one clean-then-faulted pipeline each."""

    def __init__(
        self,
        config: StudyConfig,
        worlds: dict[str, World],
        agents: dict[str, AgentFactory],
        user: UserFactory,
        store: StudyDir,
        finished: dict[str, IndexEntry],
        on_entry: Callable[[IndexEntry], None],
    ):
        self.config = config
        self.worlds = worlds
        self.agents = agents
        self.user = user
        self.store = store
        self.finished = finished
        self.on_entry = on_entry
        self.settings = {a.id: a for a in config.agents}
        self._clean_runs: dict[str, asyncio.Future] = {}

    def _record(self, entry: IndexEntry) -> IndexEntry:
        self.store.append_index(entry)
        self.finished[entry.run_id] = entry
        self.on_entry(entry)
        return entry

    def _models(self, config_id: str) -> tuple[str | None, str | None]:
        agent = self.settings[config_id].endpoint
        user = self.config.user.endpoint if self.config.user.kind == "llm" else None
        return (agent.model if agent else None), (user.model if user else None)

    async def _episode(self, unit: PlanUnit, kind: str, run_id: str) -> IndexEntry:
        case = unit.case
        slot = unit.clean
        world = self.worlds[case.domain]
        task = world.task(case.task_id)
        if kind == "clean":
            seed = clean_seed(
                self.config.study.seed, slot.domain, slot.task_id, unit.config_id, unit.repetition
            )
            max_steps, anchor = slot.max_steps, slot.cases[0]
        else:
            seed = derive_seed(
                self.config.study.seed, case.case_id, unit.config_id, unit.repetition
            )
            max_steps, anchor = case.max_steps, case.case_id
        system_prompt = world.policy
        injections: list = []
        context_faults: tuple[ContextIntervention, ...] = ()
        if kind == "faulted":
            operator = get_operator(case.operator)
            if isinstance(operator, SeededOperator) and operator.seeded:
                injections = operator.injections(case, world, seed=seed)
            else:
                injections = operator.injections(case, world)
            if self.config.world.consistent_source:
                injections = [*consistent_source_hooks(operator, case, world), *injections]
            context_fault = getattr(operator, "context_fault", None)
            delivered = context_fault(case, world, system_prompt) if context_fault else None
            if delivered is not None:
                context_faults = (
                    ContextIntervention(
                        hook_id=f"{case.case_id}:context",
                        original=system_prompt,
                        delivered=delivered,
                    ),
                )
                system_prompt = delivered
        context = RunContext(
            world=world,
            task=task,
            system_prompt=system_prompt,
            tools=world.tool_schemas(),
            seed=seed,
            repetition=unit.repetition,
        )
        started = time.monotonic()
        result: EpisodeResult = await run_episode(
            world,
            task,
            self.agents[unit.config_id](context),
            self.user(context),
            system_prompt=context.system_prompt,
            injections=injections,
            max_steps=max_steps,
            first_tool_call_only=self.config.study.first_tool_call_only,
            idempotency_keys=self.config.world.idempotency_keys,
            context_interventions=context_faults,
        )
        wall = time.monotonic() - started
        start = RunStart(
            run_id=run_id,
            case_id=anchor,
            config_id=unit.config_id,
            repetition=unit.repetition,
            kind=kind,
            world=world.name,
            task_id=task.task_id,
            max_steps=max_steps,
            seed=seed,
        )
        assert result.end is not None
        evaluator = [start, *result.evaluator, result.end]
        digest, log_digest = self.store.write_run(run_id, result.ledger, evaluator)
        end = result.end
        errors = [e for e in result.evaluator if isinstance(e, HarnessError)]
        reason = escape_surrogates(errors[0].reason()) if errors else None
        counters = next((e for e in result.evaluator if isinstance(e, Usage)), None)
        agent_model, user_model = self._models(unit.config_id)
        roles = (
            RoleUsage.from_counters(agent_model, counters.agent if counters else None),
            RoleUsage.from_counters(user_model, counters.user if counters else None),
        )
        priced = [role_price(role, self.config.prices) for role in roles]
        usage = RunUsage(
            agent=roles[0],
            user=roles[1],
            price_usd=None if any(u for _, u in priced) else round(sum(d for d, _ in priced), 8),
        )
        shared = (
            {"task": slot.task, "cases": slot.cases}
            if kind == "clean"
            else {"clean_run_id": unit.clean_run_id}
        )
        self.store.append_timing(run_id, wall)
        return IndexEntry(
            run_id=run_id,
            case_id=anchor,
            config_id=unit.config_id,
            repetition=unit.repetition,
            kind=kind,
            status=end.status,
            ledger_sha256=digest,
            evaluator_sha256=log_digest,
            reward=end.reward,
            triggered=end.triggered if kind == "faulted" else None,
            termination=end.termination,
            agent_turns=end.agent_turns,
            reason=reason if end.status == "missing" else None,
            usage=usage,
            **shared,
        )

    async def _clean_entry(self, unit: PlanUnit) -> IndexEntry:
        """The unit's shared clean run: finished before, in flight for another unit (then
        awaited), or run now — once per study, whichever unit needs it first."""
        clean_id = unit.clean_run_id
        done = self.finished.get(clean_id)
        if done is not None:
            return done
        running = self._clean_runs.get(clean_id)
        if running is None:

            async def run_clean() -> IndexEntry:
                return self._record(await self._episode(unit, "clean", clean_id))

            running = asyncio.ensure_future(run_clean())
            self._clean_runs[clean_id] = running
        return await asyncio.shield(running)

    async def run_unit(self, unit: PlanUnit) -> None:
        """The task's shared clean run (unless finished), then this case's faulted run or
        its not-qualified / missing record naming the clean run."""
        faulted_id = unit.faulted_run_id
        if faulted_id in self.finished:
            return
        clean = await self._clean_entry(unit)
        base = {
            "run_id": faulted_id,
            "case_id": unit.case.case_id,
            "config_id": unit.config_id,
            "repetition": unit.repetition,
            "kind": "faulted",
            "clean_run_id": clean.run_id,
        }
        if clean.status == "missing":
            self._record(IndexEntry(**base, status="missing", reason="clean run missing"))
        elif reason := clean_disqualifies(self.settings[unit.config_id], clean.reward) or (
            beyond_case_limit(clean.agent_turns, unit.case)
        ):
            self._record(IndexEntry(**base, status="not-qualified", reason=reason))
        else:
            self._record(await self._episode(unit, "faulted", faulted_id))


class StudyInterrupted(Exception):
    """SIGINT or SIGTERM stopped the study; the runs written so far are kept."""

    def __init__(self, summary: StudySummary, signum: int):
        self.summary = summary
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


async def _drain(
    units: Iterator[PlanUnit], runner: StudyRunner, concurrency: int, stopper: SignalStopper
) -> None:
    async def worker() -> None:
        for unit in units:
            if stopper.signum is not None:
                return
            await runner.run_unit(unit)
            await asyncio.sleep(0)  # let a stop request reach the loop between units

    stopper.loop = asyncio.get_running_loop()
    stopper.tasks = [asyncio.ensure_future(worker()) for _ in range(concurrency)]
    if stopper.signum is not None:
        stopper._cancel()
    results = await asyncio.gather(*stopper.tasks, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
            raise result


async def _drain_and_close(
    units: Iterator[PlanUnit],
    runner: StudyRunner,
    concurrency: int,
    factories: list,
    stopper: SignalStopper,
) -> None:
    try:
        await _drain(units, runner, concurrency, stopper)
    finally:
        await _close(factories)


async def _close(factories: list) -> None:
    """Close the agent and user factories that hold connections."""
    for factory in factories:
        close = getattr(factory, "aclose", None)
        if close is not None:
            await close()


def _resume_records(store: StudyDir, plan: list[PlanUnit]) -> tuple[dict[str, IndexEntry], int]:
    """The finished runs whose files hold; the others (and the faulted runs paired with a
    clean run to re-run) leave the index to run again. Returns (finished, dropped)."""
    from sscbench.run.verify import check_study

    check = check_study(store.root)
    bad = set(check.problems)
    for unit in plan:
        if unit.clean_run_id in bad:
            bad.add(unit.faulted_run_id)
    finished = {k: v for k, v in check.entries.items() if k not in bad}
    if len(finished) != len(check.entries) or check.copies or check.problems:
        store.rewrite_index(finished.values())
        for run_id in bad:
            store.remove_run_files(run_id)
    return finished, len(check.entries) - len(finished)


def execute_study(
    config: StudyConfig,
    toml_text: str,
    out: str | Path,
    *,
    restart: bool = False,
    progress: bool = True,
    on_run: Callable[[IndexEntry], None] | None = None,
) -> StudySummary:
    """Plan and run a study into ``out``, resuming a previous invocation of the same config.

    Everything is built and validated before the folder is touched; the folder is then
    locked for this process (:class:`~sscbench.run.lock.StudyLock`). ``restart`` removes
    only what sscbench wrote. On resume, the inputs' hashes and every finished run's
    files are checked; runs whose files fail are run again. SIGINT/SIGTERM stop the
    study promptly and raise :class:`StudyInterrupted` (the study resumes where it stopped).
    ``on_run`` is called with each run's index entry once its files are written (e.g.
    live traces).
    """
    store = StudyDir(out)
    store.check_writable()
    worlds = build_worlds(config)
    cases = build_cases(config, worlds)
    plan = make_plan(config, cases)
    check_replay_plan(config, {unit.config_id for unit in plan})
    inputs = hash_inputs(input_files(config))
    agents = {a.id: build_agent_factory(a) for a in config.agents}
    user = build_user_factory(config.user)
    factories = [*agents.values(), user]
    try:
        store.root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        asyncio.run(_close(factories))
        raise DataError(store.root, None, f"cannot create: {exc.strerror or exc}") from exc
    with StudyLock(store.root) as lock:
        try:
            if restart:
                store.remove_study()
            resumed = store.initialize(
                config.config_hash(),
                config.canonical_json(),
                toml_text,
                cases,
                (unit.plan_line() for unit in plan),
                inputs=inputs,
                base_dir=config.base_dir,
            )
            if resumed:
                check_plan_format(store.plan, [unit.plan_line() for unit in plan])
            store.repair_index()
            finished, dropped = _resume_records(store, plan) if resumed else ({}, 0)
        except BaseException:
            asyncio.run(_close(factories))
            raise
        summary = StudySummary(
            store.root, planned_runs=len(plan) + len(clean_slots(plan)), resumed=resumed
        )
        summary.rerun = dropped
        summary.took_over = lock.taken_over.describe() if lock.taken_over else None
        for entry in finished.values():
            summary.count(entry)

        from sscbench.run.progress import StudyProgress

        with StudyProgress(summary, enabled=progress) as bar, SignalStopper() as stopper:

            def on_entry(entry: IndexEntry) -> None:
                summary.count(entry)
                summary.executed_now += 1
                bar.update()
                if on_run is not None:
                    on_run(entry)

            runner = StudyRunner(config, worlds, agents, user, store, finished, on_entry)
            asyncio.run(
                _drain_and_close(
                    iter(plan),
                    runner,
                    config.study.concurrency,
                    factories,
                    stopper,
                )
            )
        summary.cost_lines = summary_lines(
            runner.finished.values(), config.prices, store.read_timings()
        )
        if stopper.signum is not None:
            raise StudyInterrupted(summary, stopper.signum)
    return summary
