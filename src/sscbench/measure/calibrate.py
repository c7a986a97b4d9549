"""``sscbench calibrate``: measurements against the scripted agents' own intentions.

Scripted profiles log which step used which fact, whether it relied on an injected
value, and what they read. Measurement never reads these labels; here they are turned
into T_E, T_S, T_U, Z_S and A for the case's affected fact and compared.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sscbench.core.definitions import arrival
from sscbench.core.ledger import CalibrationLabels, EvaluatorEvent
from sscbench.core.values import INF, NOT_APPLICABLE, Step
from sscbench.faults.case import Case
from sscbench.faults.registry import family
from sscbench.json_types import JsonMapping, JsonObject

if TYPE_CHECKING:
    from sscbench.study.study import Study

FIELDS = ("T_E", "T_S", "T_U", "Z_S", "A")


def fact_key(case: Case) -> str:
    """The calibration-label key of a case's affected fact (its family's own key)."""
    return family(case.operator).calibration_fact(case)


def label_evidence(case: Case, labels: dict[str, Any], t_f: int) -> Any:
    """T_E as the agent's own record of what it read implies (read by the family)."""
    return family(case.operator).labelled_evidence(case, labels, t_f)


def label_measurement(case: Case, labels: dict[str, Any], t_f: int) -> JsonObject:
    """T_E, T_S, T_U, Z_S and A from calibration labels."""
    key = fact_key(case)
    uses = sorted(
        (
            u
            for u in labels.get("uses", [])
            # a check of the disputed value is a dependent use too (Def. 3.2), never a reliance
            if u["fact"] == key and u["step"] > t_f and u["kind"] in ("use", "verify")
        ),
        key=lambda u: u["step"],
    )

    t_s: Step = uses[0]["step"] if uses else INF
    faulty = [u["step"] for u in uses if family(case.operator).labelled_reliance(u)]
    t_e = label_evidence(case, labels, t_f)
    return {
        "T_E": t_e,
        "T_S": t_s,
        "T_U": faulty[0] if faulty else NOT_APPLICABLE,
        "Z_S": arrival(t_e, t_s),
        "A": 1 if faulty else 0,
    }


@dataclass
class Comparison:
    """One run's measured and labelled values."""

    run_id: str
    measured: Mapping[str, object]
    labelled: JsonMapping

    @property
    def agrees(self) -> bool:
        """All five quantities equal."""
        return all(self.measured.get(f) == self.labelled.get(f) for f in FIELDS)


def labels_of(evaluator: list[EvaluatorEvent]) -> dict[str, Any] | None:
    """The calibration labels of a run, if its agent kept any."""
    for record in evaluator:
        if isinstance(record, CalibrationLabels):
            return record.labels
    return None


def labelled_runs(study: str | Path | Study) -> Iterator[Comparison]:
    """Every triggered faulted run of a study (a folder or a loaded ``Study``) whose
    agent kept calibration labels, with its measurement and the same quantities derived
    from the labels."""
    from sscbench.measure.rows import measure_run
    from sscbench.measure.study import contract_runs
    from sscbench.progress import counted
    from sscbench.study.study import Study

    loaded = Study.of(study)
    runs = list(contract_runs(loaded.store, loaded.cases))
    for entry, case in counted(runs, "comparing calibration labels"):
        evaluator = loaded.evaluator(entry.run_id)
        labels = labels_of(evaluator)
        if labels is None:
            continue
        measured = measure_run(case, loaded.ledger(entry.run_id), evaluator)
        if not measured.triggered or not isinstance(measured.T_F, int):
            continue
        labelled = label_measurement(case, labels, measured.T_F)
        yield Comparison(entry.run_id, measured.columns(), {"operator": case.operator, **labelled})
