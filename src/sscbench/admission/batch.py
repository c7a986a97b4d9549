"""Admission of several operators at once, and its record: the one code path behind
``sscbench admit`` and a study that admits its own cases (``[cases] operators``).

Both read the semantic review the same way (:mod:`sscbench.admission.semantic`, each
verdict checked against the chosen operators' candidates), screen each operator in its
frozen order (:func:`sscbench.admission.funnel.admit`), and write the same
``order.jsonl`` (:func:`sscbench.admission.order.order_rows`) and ``admission.json``
(world, seed, review file, one funnel per operator with the cases it admitted).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sscbench.admission.funnel import Funnel, admit
from sscbench.admission.order import order_rows
from sscbench.admission.prefer import Preference
from sscbench.admission.semantic import read_semantic_review, rejected_ids
from sscbench.admission.store import write_jsonl
from sscbench.core.files import atomic_write
from sscbench.faults.case import Candidate, Case
from sscbench.faults.operators.base import FaultOperator
from sscbench.world.world import World


@dataclass
class OperatorAdmission:
    """One operator's admission: its candidates, admitted cases, funnel, drop reasons."""

    candidates: list[Candidate]
    cases: list[Case]
    funnel: Funnel
    reasons: dict[str, str]


@dataclass
class Admission:
    """The admission of a set of operators, and what its record says about its inputs."""

    world: str
    seed: int
    review: str | None = None
    operators: list[OperatorAdmission] = field(default_factory=list)

    def order(self) -> list[dict[str, Any]]:
        """Every operator's frozen order as ``order.jsonl`` lines (rank from 1 each)."""
        rows: list[dict[str, Any]] = []
        for one in self.operators:
            by_id = {c.candidate_id: c for c in one.candidates}
            rows.extend(order_rows([by_id[cid] for cid in one.funnel.order]))
        return rows

    def record(self) -> dict[str, Any]:
        """``admission.json``: the world, seed, review file and each operator's funnel
        with the ids of the cases it admitted (the report matches the study's cases)."""
        funnels = [
            {**one.funnel.record(), "cases": [c.case_id for c in one.cases]}
            for one in self.operators
        ]
        return {"world": self.world, "seed": self.seed, "review": self.review, "operators": funnels}


def review_rejections(
    review: Path | None, chosen: list[FaultOperator], worlds: dict[str, World]
) -> frozenset[str] | None:
    """The case ids a semantic-review file rejects (None: no review), each verdict checked
    against the chosen operators' candidates; errors name the file, line and field."""
    if review is None:
        return None
    verdicts = read_semantic_review(review)
    known = [c.candidate_id for op in chosen for c in op.enumerate(worlds[op.domain])]
    return rejected_ids(review, verdicts, known)


def admit_operator(
    operator: FaultOperator,
    world: World,
    per_operator: int,
    prefer: Preference | None = None,
    *,
    rejected: frozenset[str] | None = None,
    stored: tuple[str | Path, list[str]] | None = None,
) -> OperatorAdmission:
    """One operator's admission (:func:`sscbench.admission.funnel.admit`), kept whole."""
    found, cases, funnel, reasons = admit(
        operator, world, per_operator, prefer, rejected=rejected, stored=stored
    )
    return OperatorAdmission(found, cases, funnel, reasons)


def write_admission(out: Path, admission: Admission) -> None:
    """Write ``out/order.jsonl`` and ``out/admission.json`` (atomically each)."""
    write_jsonl(out / "order.jsonl", admission.order())
    record = json.dumps(admission.record(), indent=1).encode("utf-8")
    atomic_write(out / "admission.json", record)


__all__ = [
    "Admission",
    "OperatorAdmission",
    "admit_operator",
    "review_rejections",
    "write_admission",
]
