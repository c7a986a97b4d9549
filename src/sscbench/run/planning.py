"""The study plan: every (case, configuration, repetition) unit and the shared clean runs.

Each unit is one faulted run; the units of one (domain, task, configuration,
repetition) share one clean run (:mod:`sscbench.run.shared_clean`), which
``plan.jsonl`` names on every line, so the plan says which clean run qualified which
faulted run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.run.builders import pair_run_id, pair_source, repetition_numbers
from sscbench.run.run_ids import case_part, run_id_for
from sscbench.run.shared_clean import CleanSlot, clean_run_id, step_limits
from sscbench.study.config import StudyConfig, check_plan_size


@dataclass(frozen=True)
class Place:
    """Where a run is in the plan (:meth:`Plan.locate`): a faulted run's case and
    configuration numbers, repetition and position (``index``), or a clean run's
    repetition and slot number (``index``; case and configuration -1)."""

    kind: str  # "faulted" or "clean"
    case_index: int
    agent_index: int
    repetition: int
    index: int


@dataclass(frozen=True)
class _Parts:
    """What :meth:`Plan.locate` finds a run id's place by (see :meth:`Plan._parts`)."""

    cases: dict[str, int]
    tasks: dict[str, tuple[str, str]]
    agents: dict[str, int]
    offsets: list[int]
    named: dict[str, tuple[int, int, int, int]]


@dataclass(frozen=True)
class PlanUnit:
    """One (case, agent configuration, repetition): its faulted run, qualified by the
    task's shared clean run (``clean``)."""

    case: Case
    config_id: str
    repetition: int
    clean: CleanSlot
    name: str | None = None  # the faulted run's id from a pairs file (None: generated)
    position: int = field(default=-1, compare=False)  # its number in the plan's order

    @property
    def clean_run_id(self) -> str:
        """The shared clean run that qualifies this unit's faulted run."""
        return self.clean.run_id

    @property
    def faulted_run_id(self) -> str:
        """The unit's faulted run (same id as before clean runs were shared), or the
        id a pairs file gives it."""
        if self.name is not None:
            return self.name
        return run_id_for(self.case.case_id, self.config_id, self.repetition, "faulted")

    def plan_line(self) -> dict:
        """The unit as a line of ``plan.jsonl``: which clean run qualifies which faulted run."""
        return {
            "case_id": self.case.case_id,
            "config_id": self.config_id,
            "repetition": self.repetition,
            "task": self.clean.task,
            "clean_run_id": self.clean_run_id,
            "faulted_run_id": self.faulted_run_id,
        }


class Plan:
    """A study's plan units, made on demand in a fixed order: iterating it again gives the
    same units, and nothing per unit is kept (a plan of a million units costs the memory of
    its cases, not of its units).

    Each unit's :class:`CleanSlot` carries a dense number (``slot_index``) the executor
    keys its record of finished clean runs by.
    """

    def __init__(self, config: StudyConfig, cases: list[Case]):
        self.cases = cases
        self.agents = list(config.agents)
        # each configuration's repetitions: its own ``repetitions``, else the study's
        counts = {agent.id: config.repetitions_of(agent) for agent in self.agents}
        self.repetitions = counts
        # the repetitions each (case, configuration) runs; a range for every agent but replay
        self._reps = [
            [
                range(counts[agent.id])
                if agent.kind != "replay"
                else repetition_numbers(agent, case, counts[agent.id])
                for agent in self.agents
            ]
            for case in cases
        ]
        self._names = [
            agent.replay is not None and agent.replay.pairs is not None for agent in self.agents
        ]
        limits = step_limits(cases)
        self._limits = limits
        # per (domain, task, configuration): its cases by repetition, and the slots' numbers
        groups: dict[tuple[str, str, str], dict[int, list[str]]] = {}
        for case, reps in zip(cases, self._reps, strict=True):
            for agent, numbers in zip(self.agents, reps, strict=True):
                by_rep = groups.setdefault((case.domain, case.task_id, agent.id), {})
                if isinstance(numbers, range):
                    by_rep.setdefault(-1, []).append(case.case_id)  # every repetition
                else:
                    for number in numbers:
                        by_rep.setdefault(number, []).append(case.case_id)
        self._groups: dict[tuple[str, str, str], tuple[int, dict[int, tuple[str, ...]]]] = {}
        base = 0
        for key, by_rep in groups.items():
            served = {rep: tuple(ids) for rep, ids in by_rep.items()}
            self._groups[key] = (base, served)
            base += counts[key[2]] if -1 in served else max(served, default=-1) + 1
        self.slot_count = base
        self.size = sum(len(numbers) for reps in self._reps for numbers in reps)
        self._found: _Parts | None = None  # what locate() finds run ids by, made on first use

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[PlanUnit]:
        position = 0
        for case, reps in zip(self.cases, self._reps, strict=True):
            for agent, numbers, named in zip(self.agents, reps, self._names, strict=True):
                key = (case.domain, case.task_id, agent.id)
                base, served = self._groups[key]
                limit = self._limits[key[:2]]
                for repetition in numbers:
                    cases = served.get(-1) or served[repetition]
                    slot = CleanSlot(*key, repetition, limit, cases, base + repetition)
                    name = pair_run_id(agent, repetition) if named else None
                    yield PlanUnit(case, agent.id, repetition, slot, name, position)
                    position += 1

    def unit(self, case_index: int, agent_index: int, repetition: int, position: int) -> PlanUnit:
        """The unit of (case, configuration, repetition) at ``position``, made alone: what
        iterating the plan yields there (:class:`~sscbench.run.plan_index.PlanIndex` finds
        the numbers from a run id)."""
        case, agent = self.cases[case_index], self.agents[agent_index]
        key = (case.domain, case.task_id, agent.id)
        base, served = self._groups[key]
        cases = served.get(-1) or served[repetition]
        slot = CleanSlot(*key, repetition, self._limits[key[:2]], cases, base + repetition)
        name = pair_run_id(agent, repetition) if self._names[agent_index] else None
        return PlanUnit(case, agent.id, repetition, slot, name, position)

    def locate(self, run_id: str) -> Place | None:
        """Where a run id is in the plan — a faulted run's unit (case, configuration,
        repetition and position) or a clean run's slot number — or None when the plan has
        no such run. Found from the id's parts (``CASE--CONFIG--rN--KIND``,
        :func:`~sscbench.run.run_ids.run_id_for`) and checked by making the id again, so
        nothing per unit is kept; a pairs file's names (no ``--``) are looked up among the
        plan's named units, kept on first use (one per named recording)."""
        found = self._parts()
        if found.named and run_id in found.named:
            return Place("faulted", *found.named[run_id])
        pieces = run_id.split("--")
        digits = pieces[2][1:] if len(pieces) == 4 and pieces[2][:1] == "r" else ""
        if not (digits.isascii() and digits.isdigit() and len(digits) < 10):
            return None
        part, config_id, kind = pieces[0], pieces[1], pieces[3]
        repetition = int(digits)
        j = found.agents.get(config_id)
        if j is None or self._names[j]:  # a pairs agent's faulted runs are named
            return self._clean_place(part, config_id, repetition, run_id, kind)
        if kind == "clean":
            return self._clean_place(part, config_id, repetition, run_id, kind)
        i = found.cases.get(part)
        if kind != "faulted" or i is None:
            return None
        numbers = self._reps[i][j]
        if isinstance(numbers, range):
            k = repetition if 0 <= repetition < len(numbers) else -1
        else:
            k = numbers.index(repetition) if repetition in numbers else -1
        if k < 0 or run_id_for(self.cases[i].case_id, config_id, repetition, kind) != run_id:
            return None
        return Place("faulted", i, j, repetition, found.offsets[i * len(self.agents) + j] + k)

    def _clean_place(
        self, part: str, config_id: str, repetition: int, run_id: str, kind: str
    ) -> Place | None:
        """The slot of a shared clean run id (see :meth:`locate`)."""
        task = self._parts().tasks.get(part)
        if kind != "clean" or task is None or (*task, config_id) not in self._groups:
            return None
        base, served = self._groups[(*task, config_id)]
        planned = repetition < self.repetitions[config_id] if -1 in served else repetition in served
        if not planned or clean_run_id(*task, config_id, repetition) != run_id:
            return None
        return Place("clean", -1, -1, repetition, base + repetition)

    def unit_of(self, faulted_run_id: str) -> PlanUnit | None:
        """The unit whose faulted run this is (made alone), or None when not planned."""
        place = self.locate(faulted_run_id)
        if place is None or place.kind != "faulted":
            return None
        return self.unit(place.case_index, place.agent_index, place.repetition, place.index)

    def _parts(self) -> _Parts:
        """What :meth:`locate` reads ids by: each case's and task's id part, each
        configuration's number, where each (case, configuration) starts in the plan, and
        the named units — per case and configuration, never per unit (but named ones)."""
        if self._found is None:
            offsets, at = [], 0
            for reps in self._reps:
                for numbers in reps:
                    offsets.append(at)
                    at += len(numbers)
            named: dict[str, tuple[int, int, int, int]] = {}
            if any(self._names):
                numbers_of = {c.case_id: i for i, c in enumerate(self.cases)}
                agents_of = {a.id: j for j, a in enumerate(self.agents)}
                for unit in self:
                    if unit.name is not None:
                        i, j = numbers_of[unit.case.case_id], agents_of[unit.config_id]
                        named[unit.name] = (i, j, unit.repetition, unit.position)
            self._found = _Parts(
                cases={case_part(c.case_id): i for i, c in enumerate(self.cases)},
                tasks={case_part(f"task.{d}.{t}"): (d, t) for d, t in self._limits},
                agents={a.id: j for j, a in enumerate(self.agents)},
                offsets=offsets,
                named=named,
            )
        return self._found

    def config_ids(self) -> set[str]:
        """The configurations that run at least one unit."""
        return {
            agent.id
            for reps in self._reps
            for agent, numbers in zip(self.agents, reps, strict=True)
            if len(numbers)
        }

    def clean_slots(self) -> Iterator[CleanSlot]:
        """The distinct shared clean runs, in plan order (each once)."""
        seen = bytearray(self.slot_count)
        for unit in self:
            index = unit.clean.slot_index
            if not seen[index]:
                seen[index] = 1
                yield unit.clean

    def clean_count(self) -> int:
        """How many shared clean runs the plan has."""
        return sum(1 for _ in self.clean_slots())


def make_plan(config: StudyConfig, cases: list[Case]) -> Plan:
    """Every (case, agent configuration, repetition), in a fixed order (a replay agent
    runs one repetition per selected recording of the case's task); the units of one
    (task, configuration, repetition) share one :class:`CleanSlot`.

    A plan over the size limit, or whose run ids are not all distinct, is refused. Run
    ids made from distinct (case, configuration, repetition) are distinct
    (:func:`run_id_for`), so only the ids pairs files name are kept to compare (across
    every agent of the study).
    """
    try:
        check_plan_size(len(cases) * config.total_repetitions())
    except ValueError as exc:
        raise DataError("<config>", "study.repetitions", str(exc)) from None
    plan = Plan(config, cases)
    if any(plan._names):
        _check_distinct(plan)
    return plan


def _check_distinct(plan: Plan) -> None:
    """Refuse two planned faulted runs that get one id from pairs files — of two cases,
    or of two agents on one case (one ledger would overwrite the other) — naming both
    pairs lines. A pairs file's id holds no ``--`` and every generated id does, so a
    named id never meets a generated one."""
    seen: dict[str, PlanUnit] = {}
    agents = {agent.id: agent for agent in plan.agents}
    for unit in plan:
        if unit.name is None:
            continue
        first = seen.setdefault(unit.name, unit)
        if first is unit:
            continue
        path, line = pair_source(agents[unit.config_id], unit.repetition)
        first_path, first_line = pair_source(agents[first.config_id], first.repetition)
        raise DataError(
            path,
            f"{line}: run_id",
            f"{unit.name!r} (agent {unit.config_id!r}, case {unit.case.case_id!r}) is also "
            f"the run id of the pair in {first_path}, {first_line} (agent "
            f"{first.config_id!r}, case {first.case.case_id!r}): every run needs its own id",
        )


def clean_slots(plan: Iterable[PlanUnit]) -> list[CleanSlot]:
    """The plan's distinct shared clean runs, in plan order."""
    if isinstance(plan, Plan):
        return list(plan.clean_slots())
    return list({unit.clean_run_id: unit.clean for unit in plan}.values())


def planned_faults(config: StudyConfig) -> Counter[str]:
    """The campaign's planned faulted runs per operator, built as ``sscbench run``
    builds them (worlds, cases, plan); nothing is run or written. A containment plan
    (:mod:`sscbench.release.containment`) is checked against these counts."""
    from sscbench.run.builders import build_cases
    from sscbench.study.worlds import build_worlds

    cases = build_cases(config, build_worlds(config))
    return Counter(unit.case.operator for unit in make_plan(config, cases))
