"""The study plan: every (case, configuration, repetition) unit and the shared clean runs.

Each unit is one faulted run; the units of one (domain, task, configuration,
repetition) share one clean run (:mod:`sscbench.run.shared_clean`), which
``plan.jsonl`` names on every line, so the plan says which clean run qualified which
faulted run.
"""

from __future__ import annotations

from dataclasses import dataclass

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.run.builders import pair_run_id, repetition_numbers
from sscbench.run.config import StudyConfig, check_plan_size
from sscbench.run.run_ids import run_id_for
from sscbench.run.shared_clean import CleanSlot, step_limits


@dataclass(frozen=True)
class PlanUnit:
    """One (case, agent configuration, repetition): its faulted run, qualified by the
    task's shared clean run (``clean``)."""

    case: Case
    config_id: str
    repetition: int
    clean: CleanSlot
    name: str | None = None  # the faulted run's id from a pairs file (None: generated)

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


def make_plan(config: StudyConfig, cases: list[Case]) -> list[PlanUnit]:
    """Every (case, agent configuration, repetition), in a fixed order (a replay agent
    runs one repetition per selected recording of the case's task); the units of one
    (task, configuration, repetition) share one :class:`CleanSlot`.

    A plan over the size limit, or whose run ids are not all distinct, is refused.
    """
    try:
        check_plan_size(len(cases) * len(config.agents) * config.study.repetitions)
    except ValueError as exc:
        raise DataError("<config>", "study.repetitions", str(exc)) from None
    agents = {agent.id: agent for agent in config.agents}
    triples = [
        (case, agent.id, repetition)
        for case in cases
        for agent in config.agents
        for repetition in repetition_numbers(agent, case, config.study.repetitions)
    ]
    limits = step_limits(cases)
    served: dict[tuple[str, str, str, int], list[str]] = {}
    for case, config_id, repetition in triples:
        key = (case.domain, case.task_id, config_id, repetition)
        served.setdefault(key, []).append(case.case_id)
    slots = {
        key: CleanSlot(*key, max_steps=limits[key[:2]], cases=tuple(ids))
        for key, ids in served.items()
    }
    plan = [
        PlanUnit(
            case,
            config_id,
            repetition,
            slots[(case.domain, case.task_id, config_id, repetition)],
            pair_run_id(agents[config_id], repetition),
        )
        for case, config_id, repetition in triples
    ]
    seen: dict[str, str] = {}
    for unit in plan:
        other = seen.setdefault(unit.faulted_run_id, unit.case.case_id)
        if other != unit.case.case_id:
            raise DataError(
                "<config>",
                "cases",
                f"cases {other!r} and {unit.case.case_id!r} give one run id "
                f"{unit.faulted_run_id!r}",
            )
    return plan


def clean_slots(plan: list[PlanUnit]) -> list[CleanSlot]:
    """The plan's distinct shared clean runs, in plan order."""
    return list({unit.clean_run_id: unit.clean for unit in plan}.values())
