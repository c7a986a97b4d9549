"""The cases a study makes itself from ``[cases] operators`` (no cases file).

An SSCBench operator's cases are admitted as ``sscbench admit`` admits them — the same
code path (:mod:`sscbench.admission.batch`): frozen order, witnesses, the semantic
review of ``[cases] review`` with replacement from the same order — and the admission
is kept so the study writes ``order.jsonl`` and ``admission.json`` beside its cases.
Other operators and typed families give their first cases task by task, without
admission; intensity curves give one case set per level.
"""

from __future__ import annotations

from pathlib import Path

from sscbench.admission.batch import Admission, admit_operator, review_rejections
from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.faults.operators.base import FaultOperator
from sscbench.faults.registry import get_operator
from sscbench.study.config import StudyConfig
from sscbench.world.world import World


def plain_cases(operator, world: World, limit: int, params: dict) -> list[Case]:
    """Up to ``limit`` cases of an operator without admission, task by task."""
    found: list[Case] = []
    for task in world.tasks:
        found.extend(
            operator.cases_for(world, task, **params) if params else operator.cases_for(world, task)
        )
        if len(found) >= limit:
            break
    return found[:limit]


def _operator(name: str, field: str):
    try:
        return get_operator(name)
    except KeyError as exc:
        raise DataError("<config>", field, str(exc.args[0])) from exc


def _review(config: StudyConfig, worlds: dict[str, World]) -> frozenset[str] | None:
    """The rejections of ``[cases] review`` (None: no review), checked against the
    candidates of the study's admitted operators; errors name the file, line and field."""
    if config.cases.review is None:
        return None
    chosen = [
        op
        for op in (_operator(n, "cases.operators") for n in config.cases.operators)
        if isinstance(op, FaultOperator) and op.domain in worlds
    ]
    if not chosen:  # fail closed: a review that applies to no case is a mistake
        raise DataError(
            "<config>",
            "cases.review",
            "no SSCBench operator of cases.operators is admitted in the study's domains; "
            "the semantic review would apply to no case",
        )
    return review_rejections(config.resolve(config.cases.review), chosen, worlds)


def _intensity_cases(config: StudyConfig, worlds: dict[str, World]) -> list[Case]:
    cases: list[Case] = []
    for curve in config.cases.intensity:
        operator = _operator(curve.family, "cases.intensity.family")
        base = config.cases.params.get(curve.family, {})
        for level in curve.levels:
            params = {**base, curve.parameter: level}
            for world in worlds.values():
                for case in plain_cases(operator, world, config.cases.per_operator, params):
                    # a level's case is its own case, even where it equals the base
                    update = {
                        "case_id": f"{case.case_id}~{curve.parameter}",
                        "params": case.params.merged(intensity=curve.parameter),
                    }
                    cases.append(case.model_copy(update=update))
    return cases


def operator_cases(
    config: StudyConfig, worlds: dict[str, World]
) -> tuple[list[Case], Admission | None]:
    """The study's cases from its operators, in config order, and the admission of its
    SSCBench operators (None when it has none in its worlds)."""
    rejected = _review(config, worlds)
    admission = Admission(config.world.source, config.world.seed, config.cases.review)
    cases: list[Case] = []
    for name in config.cases.operators:
        operator = _operator(name, "cases.operators")
        if isinstance(operator, FaultOperator):
            if operator.domain in worlds:
                one = admit_operator(
                    operator,
                    worlds[operator.domain],
                    config.cases.per_operator,
                    config.cases.prefer,
                    rejected=rejected,
                )
                admission.operators.append(one)
                cases.extend(one.cases)
            continue
        params = config.cases.params.get(name, {})
        for world in worlds.values():
            cases.extend(plain_cases(operator, world, config.cases.per_operator, params))
    cases.extend(_intensity_cases(config, worlds))
    return cases, admission if admission.operators else None


def review_input(config: StudyConfig) -> list[Path]:
    """The semantic-review file among the study's inputs (hashed; a change is not resumed)."""
    return [config.resolve(config.cases.review)] if config.cases.review else []


__all__ = ["operator_cases", "plain_cases", "review_input"]
