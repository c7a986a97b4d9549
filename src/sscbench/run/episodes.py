"""One planned run, split where a distributed executor splits it: making vs recording.

:class:`EpisodeMaker` turns a plan unit and a kind (``clean`` / ``faulted``) into an
:class:`EpisodeOutput` — seed, step limit, fault hooks, context fault, the episode
itself and its evaluator log — touching no file. :func:`index_entry` turns an output
whose files the study's one writer has written into its ``index.jsonl`` row (usage,
price, the shared-clean fields). The local executor calls both in one process; the Ray
executor calls the first on a worker and the second on the driver, so both executors
make and record a run with the same code.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from sscbench.core.agent import AgentFactory, RunContext, RunKind
from sscbench.core.injection import Injection
from sscbench.core.ledger import (
    ContextIntervention,
    EvaluatorEvent,
    HarnessError,
    LedgerEvent,
    RunEnd,
    RunStart,
    Usage,
)
from sscbench.core.user import UserFactory
from sscbench.faults.case import Case
from sscbench.faults.registry import SeededOperator, consistent_source_hooks, get_operator
from sscbench.jsonl import escape_surrogates
from sscbench.llm.journal import JournalBook, ResponseJournal
from sscbench.llm.usage import RoleUsage, RunUsage
from sscbench.run.builders import derive_seed
from sscbench.run.episode import run_episode
from sscbench.run.planning import PlanUnit
from sscbench.run.shared_clean import clean_seed
from sscbench.study.config import StudyConfig
from sscbench.study.cost import role_price
from sscbench.study.folder import IndexEntry
from sscbench.world.world import World


@dataclass
class EpisodeOutput:
    """A run as made, before any file is written: its model-visible ledger, its whole
    evaluator-only log (``run_start`` first, ``run_end`` last) and its wall time."""

    run_id: str
    kind: RunKind
    anchor: str  # the case id the index names: the case, or a clean run's first case
    ledger: list[LedgerEvent]
    evaluator: list[EvaluatorEvent]
    end: RunEnd
    wall_s: float
    meta: dict[str, Any] = field(default_factory=dict)  # where it ran (e.g. the Ray node)


class EpisodeSource(Protocol):
    """What the study runner asks for a run: the local maker, or a remote one."""

    async def make(self, unit: PlanUnit, kind: RunKind, run_id: str) -> EpisodeOutput:
        """Run the unit's clean or faulted episode and return it whole."""
        ...

    async def aclose(self) -> None:
        """Release what the source holds (connections, workers)."""
        ...


class EpisodeMaker:
    """Makes a study's episodes in this process from its built worlds and factories."""

    def __init__(
        self,
        config: StudyConfig,
        worlds: dict[str, World],
        agents: dict[str, AgentFactory],
        user: UserFactory,
        journal_dir: Path | None = None,
        on_note: Callable[[str], None] | None = None,
    ):
        self.config = config
        self.worlds = worlds
        self.agents = agents
        self.user = user
        self.journal_dir = journal_dir  # where runs that call a model keep their journals
        self._book: JournalBook | None = None  # this process's book of them, once needed
        self.on_note = on_note  # a journal that cannot answer says why, in one line
        self.in_flight: dict[str, ResponseJournal] = {}  # the study's progress reads them
        self.journal_stats: Counter = Counter()  # runs continued from a journal

    async def make(self, unit: PlanUnit, kind: RunKind, run_id: str) -> EpisodeOutput:
        """The unit's clean run (the task's shared control) or its faulted run, with the
        seed, step limit, fault hooks and context fault the plan gives it."""
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
        injections: list[Injection] = []
        context_faults: tuple[ContextIntervention, ...] = ()
        if kind == "faulted":
            injections, context_faults = self._faults(case, world, seed)
            if context_faults:
                system_prompt = context_faults[0].delivered
        journal = self._journal(run_id, unit.config_id)
        context = RunContext(
            world=world,
            task=task,
            system_prompt=system_prompt,
            tools=world.tool_schemas(),
            seed=seed,
            repetition=unit.repetition,
            kind=kind,
            journal=journal,
        )
        started = time.monotonic()
        try:
            result = await run_episode(
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
            if journal is not None:
                journal.ended()  # its output exists: the answers are needed no more
        finally:
            if journal is not None:
                journal.close()
                self.in_flight.pop(run_id, None)
                self.journal_stats["responses"] += journal.replayed
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
        return EpisodeOutput(
            run_id=run_id,
            kind=kind,
            anchor=anchor,
            ledger=result.ledger,
            evaluator=[start, *result.evaluator, result.end],
            end=result.end,
            wall_s=wall,
            meta={"journal": run_id} if journal is not None else {},
        )

    def _faults(
        self, case: Case, world: World, seed: int
    ) -> tuple[list[Injection], tuple[ContextIntervention, ...]]:
        """A faulted run's tool hooks and, when its operator places one, its context fault
        (the system prompt as delivered)."""
        operator = get_operator(case.operator)
        if isinstance(operator, SeededOperator) and operator.seeded:
            injections = operator.injections(case, world, seed=seed)
        else:
            injections = operator.injections(case, world)
        if self.config.world.consistent_source:
            injections = [*consistent_source_hooks(operator, case, world), *injections]
        context_fault = getattr(operator, "context_fault", None)
        delivered = context_fault(case, world, world.policy) if context_fault else None
        if delivered is None:
            return injections, ()
        fault = ContextIntervention(
            hook_id=f"{case.case_id}:context", original=world.policy, delivered=delivered
        )
        return injections, (fault,)

    def _journal(self, run_id: str, config_id: str) -> ResponseJournal | None:
        """The run's response journal when the study keeps them and the run calls a model
        (scripted runs are quick to make again and keep none)."""
        if self.journal_dir is None or not self._calls_model(config_id):
            return None
        if self._book is None:
            self._book = JournalBook(self.journal_dir)
        journal = ResponseJournal(self._book, run_id, self.on_note)
        if journal.resumed:
            self.journal_stats["runs"] += 1
        self.in_flight[run_id] = journal
        return journal

    def _calls_model(self, config_id: str) -> bool:
        agent = next(a for a in self.config.agents if a.id == config_id)
        return agent.endpoint is not None or self.config.user.kind == "llm"

    async def aclose(self) -> None:
        """Close the agent and user factories that hold connections, and the journal
        book (its files whose runs all ended are deleted)."""
        if self._book is not None:
            self._book.close()
        for factory in [*self.agents.values(), self.user]:
            close = getattr(factory, "aclose", None)
            if close is not None:
                await close()


def _models(config: StudyConfig, config_id: str) -> tuple[str | None, str | None]:
    agent = next(a for a in config.agents if a.id == config_id).endpoint
    user = config.user.endpoint if config.user.kind == "llm" else None
    return (agent.model if agent else None), (user.model if user else None)


def index_entry(
    config: StudyConfig,
    unit: PlanUnit,
    output: EpisodeOutput,
    digests: tuple[str, str],
) -> IndexEntry:
    """The index row of a run whose ledger and log were written with sha256 ``digests``:
    status, reward, termination, the first harness error's reason, usage and price."""
    end = output.end
    kind = output.kind
    events = output.evaluator
    errors = [e for e in events if isinstance(e, HarnessError)]
    reason = escape_surrogates(errors[0].reason()) if errors else None
    counters = next((e for e in events if isinstance(e, Usage)), None)
    agent_model, user_model = _models(config, unit.config_id)
    roles = (
        RoleUsage.from_counters(agent_model, counters.agent if counters else None),
        RoleUsage.from_counters(user_model, counters.user if counters else None),
    )
    priced = [role_price(role, config.prices) for role in roles]
    usage = RunUsage(
        agent=roles[0],
        user=roles[1],
        price_usd=None if any(u for _, u in priced) else round(sum(d for d, _ in priced), 8),
    )
    slot = unit.clean
    shared = (
        {"task": slot.task, "cases": slot.cases}
        if kind == "clean"
        else {"clean_run_id": unit.clean_run_id}
    )
    return IndexEntry(
        run_id=output.run_id,
        case_id=output.anchor,
        config_id=unit.config_id,
        repetition=unit.repetition,
        kind=kind,
        status=end.status,
        ledger_sha256=digests[0],
        evaluator_sha256=digests[1],
        reward=end.reward,
        triggered=end.triggered if kind == "faulted" else None,
        termination=end.termination,
        agent_turns=end.agent_turns,
        reason=reason if end.status == "missing" else None,
        usage=usage,
        **shared,
    )
