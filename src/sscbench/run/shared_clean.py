"""Shared clean runs: one clean run per (domain, task, configuration, repetition).

The protocol qualifies a case for a configuration when that configuration solves the
*clean task*; every case on a task asks the same question, so one clean run answers it
for all of them. A shared clean run runs with the largest step limit among its task's
cases (the limit only cuts an episode; the agent never sees it), and qualifies a case
only when it was solved within that case's own limit. Its seed is the task's, not a
case's; the faulted runs keep their case seeds and ids.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.run.builders import derive_seed
from sscbench.run.run_ids import run_id_for


def task_key(domain: str, task_id: str) -> str:
    """The task a clean run belongs to, as written in index rows: ``"<domain>/<task>"``."""
    return f"{domain}/{task_id}"


def clean_run_id(domain: str, task_id: str, config_id: str, repetition: int) -> str:
    """The id of a task's shared clean run (never equal to a faulted run's: kind differs)."""
    return run_id_for(f"task.{domain}.{task_id}", config_id, repetition, "clean")


def clean_seed(study_seed: int, domain: str, task_id: str, config_id: str, repetition: int) -> int:
    """The seed of a shared clean run: the task's, the same for every case on it."""
    return derive_seed(study_seed, "clean-task", domain, task_id, config_id, repetition)


@dataclass(frozen=True)
class CleanSlot:
    """One shared clean run: its task, configuration, repetition, step limit and cases."""

    domain: str
    task_id: str
    config_id: str
    repetition: int
    max_steps: int
    cases: tuple[str, ...]
    slot_index: int = field(default=-1, compare=False)  # its number in the plan (-1: none)

    @property
    def run_id(self) -> str:
        """The clean run's id."""
        return clean_run_id(self.domain, self.task_id, self.config_id, self.repetition)

    @property
    def task(self) -> str:
        """``"<domain>/<task>"``."""
        return task_key(self.domain, self.task_id)


def step_limits(cases: Iterable[Case]) -> dict[tuple[str, str], int]:
    """The largest step limit among each task's cases: what its clean run runs with."""
    limits: dict[tuple[str, str], int] = {}
    for case in cases:
        key = (case.domain, case.task_id)
        limits[key] = max(limits.get(key, 0), case.max_steps)
    return limits


def beyond_case_limit(agent_turns: int | None, case: Case) -> str | None:
    """Why a solved shared clean run still does not qualify this case (None: it does):
    it needed more agent turns than the case's own step limit allows."""
    if agent_turns is not None and agent_turns > case.max_steps:
        return (
            f"clean task solved only after {agent_turns} agent turns, beyond this case's "
            f"step limit of {case.max_steps}"
        )
    return None


def check_plan_format(store_plan: Path, new_lines: Callable[[], Iterable[dict]]) -> bool:
    """Refuse to resume a study whose stored plan pairs its faulted runs with other
    clean runs than this plan does (a study planned with one clean run per case).

    ``store_plan`` is the study's ``plan.jsonl``; nothing is read when it is absent;
    ``new_lines`` makes this plan's lines (called again when the files differ). Returns
    whether the stored plan is this plan line for line (read side by side, so nothing is
    kept per line); only when it is not are its lines compared by run id.
    """
    if not store_plan.exists():
        return False
    with store_plan.open("rb") as handle:
        for raw, line in itertools.zip_longest(handle, new_lines()):
            if raw is None or line is None:
                break
            if raw != (json.dumps(line, sort_keys=True) + "\n").encode("utf-8"):
                break
        else:
            return True
    _check_plan_lines(store_plan, new_lines())
    return False


def _check_plan_lines(store_plan: Path, new_lines: Iterable[dict]) -> None:
    """:func:`check_plan_format` by run id: every stored faulted run is planned here, with
    the same clean run."""
    from sscbench.jsonl import read_objects

    wanted = {line["faulted_run_id"]: line["clean_run_id"] for line in new_lines}  # resume only
    for number, row in enumerate(read_objects(store_plan), start=1):
        faulted, clean = row.get("faulted_run_id"), row.get("clean_run_id")
        if faulted in wanted and wanted[faulted] != clean:
            raise DataError(
                store_plan,
                f"line {number}: clean_run_id",
                f"this study was planned with one clean run per case ({clean!r} for "
                f"{faulted!r}); this sscbench shares one clean run per task, configuration "
                f"and repetition ({wanted[faulted]!r}), so its runs cannot be resumed. Pass "
                "--restart to run the study anew under the shared plan, or finish it with "
                "the sscbench version that started it.",
            )
        if faulted not in wanted:
            raise DataError(
                store_plan,
                f"line {number}: faulted_run_id",
                f"run {faulted!r} of the stored plan is not in this plan: "
                + json.dumps(row)[:200]
                + ". Pass --restart to start anew.",
            )
