"""What caps a study's plan, counted and said: nothing is left out in silence.

``sscbench plan`` and ``sscbench run`` print these lines, and the run stores them in
``STUDY/caps.json`` for the report's Table I:

* ``[cases] per_operator``: how many cases each operator got against the cap, and how
  many valid candidates the cap left unscreened (or that the world had no more);
* a replay agent's recording: how many recorded runs replay a case of the study, how
  many match a task the study has no case on (raise ``per_operator`` to replay them)
  and how many match no task of the world;
* the repetitions a recording supplies: the study's ``repetitions`` does not apply to
  replay, each task runs once per selected recorded run.

Faulted runs a clean run did not qualify are counted where the runs are (the run
summary, Table I's "not qualified").
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from sscbench.faults.case import Case
from sscbench.study.config import StudyConfig

if TYPE_CHECKING:
    from sscbench.admission.batch import Admission


def _admission_lines(config: StudyConfig, admission: Admission | None) -> list[str]:
    from sscbench.study.config_domains import foreign_operators

    cap = config.cases.per_operator
    lines = []
    if not config.cases.file:
        for name, domain in foreign_operators(config.cases.operators, config.world.domains).items():
            lines.append(
                f"cap: {name} (in the default [cases] operators) applies only to {domain}: "
                f"no case in this study of {', '.join(config.world.domains)}"
            )
    for one in admission.operators if admission is not None else []:
        f = one.funnel
        if f.admitted >= cap:
            left = max(f.valid - f.screened, 0)
            lines.append(
                f"cap: {f.operator} got {f.admitted} cases, capped by [cases] per_operator = "
                f"{cap}; {left} of its {f.valid} valid candidates were not screened"
            )
        else:
            lines.append(
                f"cap: {f.operator} got {f.admitted} of per_operator = {cap} cases: the world "
                f"has no more admissible ({f.valid} valid candidates, {f.witnessed} witnessed)"
            )
    return lines


def _replay_lines(config: StudyConfig, cases: list[Case]) -> list[str]:
    from sscbench.agents.recordings import UNMATCHED
    from sscbench.run.builders import _recording_factory

    tasks = {c.task_id for c in cases}
    hint = (
        ""
        if config.cases.file
        else f" ([cases] per_operator = {config.cases.per_operator} caps the cases: raise it "
        "to replay them)"
    )
    lines = []
    for agent in config.agents:
        if agent.replay is None or agent.replay.pairs is not None:
            continue
        factory = _recording_factory(agent)
        split = factory.selection.split
        ids = [r.taubench_task_id(split) for r in factory.runs]
        unmatched = sum(i.startswith(f"{UNMATCHED}/") for i in ids)
        replayed = Counter(i for i in ids if i in tasks)
        selected = {t: len(factory.runs_for(t)) for t in tasks}
        other = len(ids) - unmatched - sum(replayed.values())
        used = sum(selected.values())
        lines.append(
            f"cap: replay {agent.id}: {len(ids)} recorded runs; {used} replay a task with "
            f"a case of the study; {other} match a task without a case{hint}; "
            f"{unmatched} match no task of the world"
            + (
                f"; {sum(replayed.values()) - used} not selected (trials/count)"
                if any(replayed[t] > selected[t] for t in tasks)
                else ""
            )
        )
        spread = Counter(n for n in selected.values() if n)
        reps = ", ".join(f"{n} on {k} task{'s' * (k != 1)}" for n, k in sorted(spread.items()))
        if reps:
            lines.append(
                f"cap: replay {agent.id}: repetitions come from the recording, not "
                f"[study] repetitions: {reps}"
            )
    return lines


def plan_caps(config: StudyConfig, cases: list[Case], admission: Admission | None) -> list[str]:
    """The lines that count and explain what caps the plan (see the module)."""
    return _admission_lines(config, admission) + _replay_lines(config, cases)
