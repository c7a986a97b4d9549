"""Execute a study's plan: clean run first, faulted run only when the clean task was solved.

Runs are written to disk as they finish and forgotten, so memory stays flat as a
study grows; a rerun of the same command resumes where a killed one stopped.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.agents.base import AgentFactory, RunContext
from sscbench.faults.case import Case
from sscbench.faults.registry import get_operator
from sscbench.run.builders import (
    build_agent_factory,
    build_cases,
    build_user_factory,
    build_worlds,
    check_replay_plan,
    clean_disqualifies,
    derive_seed,
    repetitions_for,
)
from sscbench.run.config import StudyConfig
from sscbench.run.episode import EpisodeResult, run_episode
from sscbench.run.ledger import ContextIntervention, RunStart
from sscbench.run.storage import IndexEntry, StudyDir
from sscbench.users.base import UserFactory
from sscbench.world.world import World

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def run_id_for(case_id: str, config_id: str, repetition: int, kind: str) -> str:
    """A file-name-safe, stable id of one run."""
    return f"{_UNSAFE.sub('_', case_id)}--{config_id}--r{repetition}--{kind}"


@dataclass(frozen=True)
class PlanUnit:
    """One (case, agent configuration, repetition): a clean run and maybe a faulted run."""

    case: Case
    config_id: str
    repetition: int

    def plan_line(self) -> dict:
        """The unit as a line of ``plan.jsonl``."""
        return {
            "case_id": self.case.case_id,
            "config_id": self.config_id,
            "repetition": self.repetition,
            "clean_run_id": run_id_for(self.case.case_id, self.config_id, self.repetition, "clean"),
            "faulted_run_id": run_id_for(
                self.case.case_id, self.config_id, self.repetition, "faulted"
            ),
        }


@dataclass
class StudySummary:
    """What an invocation of the study did and what the study now holds."""

    out: Path
    planned_runs: int
    resumed: bool
    statuses: Counter = field(default_factory=Counter)
    executed_now: int = 0

    @property
    def finished_runs(self) -> int:
        """Runs with an index line (completed, not qualified or missing)."""
        return sum(self.statuses.values())


def make_plan(config: StudyConfig, cases: list[Case]) -> list[PlanUnit]:
    """Every (case, agent configuration, repetition), in a fixed order (a replay agent
    runs one repetition per selected recording of the case's task)."""
    return [
        PlanUnit(case, agent.id, repetition)
        for case in cases
        for agent in config.agents
        for repetition in range(repetitions_for(agent, case, config.study.repetitions))
    ]


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

    def _record(self, entry: IndexEntry) -> IndexEntry:
        self.store.append_index(entry)
        self.finished[entry.run_id] = entry
        self.on_entry(entry)
        return entry

    async def _episode(self, unit: PlanUnit, kind: str, run_id: str) -> IndexEntry:
        case = unit.case
        world = self.worlds[case.domain]
        task = world.task(case.task_id)
        seed = derive_seed(self.config.study.seed, case.case_id, unit.config_id, unit.repetition)
        system_prompt = world.policy
        injections: list = []
        context_faults: tuple[ContextIntervention, ...] = ()
        if kind == "faulted":
            operator = get_operator(case.operator)
            injections = (
                operator.injections(case, world, seed=seed)
                if getattr(operator, "seeded", False)
                else operator.injections(case, world)
            )
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
        result: EpisodeResult = await run_episode(
            world,
            task,
            self.agents[unit.config_id](context),
            self.user(context),
            system_prompt=context.system_prompt,
            injections=injections,
            max_steps=case.max_steps,
            first_tool_call_only=self.config.study.first_tool_call_only,
            idempotency_keys=self.config.world.idempotency_keys,
            context_interventions=context_faults,
        )
        start = RunStart(
            run_id=run_id,
            case_id=case.case_id,
            config_id=unit.config_id,
            repetition=unit.repetition,
            kind=kind,
            world=world.name,
            task_id=task.task_id,
            max_steps=case.max_steps,
            seed=seed,
        )
        assert result.end is not None
        evaluator = [start, *result.evaluator, result.end]
        digest = self.store.write_run(run_id, result.ledger, evaluator)
        end = result.end
        return IndexEntry(
            run_id=run_id,
            case_id=case.case_id,
            config_id=unit.config_id,
            repetition=unit.repetition,
            kind=kind,
            status=end.status,
            ledger_sha256=digest,
            reward=end.reward,
            triggered=end.triggered if kind == "faulted" else None,
            termination=end.termination,
            agent_turns=end.agent_turns,
        )

    async def run_unit(self, unit: PlanUnit) -> None:
        """Clean run (unless finished), then the faulted run or its not-qualified record."""
        line = unit.plan_line()
        clean_id, faulted_id = line["clean_run_id"], line["faulted_run_id"]
        if faulted_id in self.finished:
            return
        clean = self.finished.get(clean_id)
        if clean is None:
            clean = self._record(await self._episode(unit, "clean", clean_id))
        base = {
            "run_id": faulted_id,
            "case_id": unit.case.case_id,
            "config_id": unit.config_id,
            "repetition": unit.repetition,
            "kind": "faulted",
        }
        if clean.status == "missing":
            self._record(IndexEntry(**base, status="missing", reason="clean run missing"))
        elif reason := clean_disqualifies(self.settings[unit.config_id], clean.reward):
            self._record(IndexEntry(**base, status="not-qualified", reason=reason))
        else:
            self._record(await self._episode(unit, "faulted", faulted_id))


async def _drain(units: Iterator[PlanUnit], runner: StudyRunner, concurrency: int) -> None:
    async def worker() -> None:
        for unit in units:
            await runner.run_unit(unit)

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def _drain_and_close(
    units: Iterator[PlanUnit], runner: StudyRunner, concurrency: int, factories: list
) -> None:
    try:
        await _drain(units, runner, concurrency)
    finally:
        for factory in factories:
            close = getattr(factory, "aclose", None)
            if close is not None:
                await close()


def execute_study(
    config: StudyConfig,
    toml_text: str,
    out: str | Path,
    *,
    restart: bool = False,
    progress: bool = True,
) -> StudySummary:
    """Plan and run a study into ``out``, resuming a previous invocation of the same config."""
    store = StudyDir(out)
    if restart and store.root.exists():
        shutil.rmtree(store.root)
    worlds = build_worlds(config)
    cases = build_cases(config, worlds)
    plan = make_plan(config, cases)
    check_replay_plan(config, {unit.config_id for unit in plan})
    resumed = store.initialize(
        config.config_hash(),
        config.canonical_json(),
        toml_text,
        cases,
        (unit.plan_line() for unit in plan),
    )
    store.repair_index()
    finished = {entry.run_id: entry for entry in store.read_index()}
    summary = StudySummary(store.root, planned_runs=2 * len(plan), resumed=resumed)
    summary.statuses.update(entry.status for entry in finished.values())
    agents = {a.id: build_agent_factory(a) for a in config.agents}
    user = build_user_factory(config.user)

    from sscbench.run.progress import StudyProgress

    with StudyProgress(summary, enabled=progress) as bar:

        def on_entry(entry: IndexEntry) -> None:
            summary.statuses[entry.status] += 1
            summary.executed_now += 1
            bar.update()

        runner = StudyRunner(config, worlds, agents, user, store, finished, on_entry)
        asyncio.run(
            _drain_and_close(iter(plan), runner, config.study.concurrency, [*agents.values(), user])
        )
    return summary
