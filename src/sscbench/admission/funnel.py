"""Candidates to admitted cases: validity, frozen-order screening, witnesses, semantic
review with replacement from the same order, and the funnel that records it all."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.admission.order import follow_stored, frozen_order
from sscbench.admission.prefer import Preference
from sscbench.admission.witness import search_witness
from sscbench.faults.case import Candidate, Case
from sscbench.faults.operators.base import FaultOperator
from sscbench.json_types import JsonObject
from sscbench.world.world import World


@dataclass
class Funnel:
    """One operator's funnel: enumerated → valid → considered → witnessed → admitted.

    ``screened`` counts the candidates considered in the frozen order (the rank the
    screening got to); ``rejected_in_review`` the witnessed candidates a semantic review
    rejected; ``replaced`` how many of the first ``target`` witnessed candidates (the
    selection without review) were replaced by later ones of the same order;
    ``rank_reached`` the frozen-order rank of the last admitted case ("30 reached by
    rank 84"), ``None`` when nothing was admitted.
    """

    operator: str
    enumerated: int = 0
    valid: int = 0
    screened: int = 0
    witnessed: int = 0
    admitted: int = 0
    controls: int = 0
    invalid_reasons: Counter = field(default_factory=Counter)
    unresolved_reasons: Counter = field(default_factory=Counter)
    paper_candidates: int | None = None
    prefer: str | None = None
    preferred: int = 0
    """With a case preference: how many valid candidates it put first."""
    target: int = 0
    reviewed: bool = False
    rejected_in_review: int = 0
    replaced: int = 0
    rank_reached: int | None = None
    order: list[str] = field(default_factory=list)
    """The frozen order's candidate ids (rank 1 first)."""

    def record(self) -> JsonObject:
        """The funnel as plain data (``admission.json``), without the order itself."""
        return {
            "operator": self.operator,
            "enumerated": self.enumerated,
            "valid": self.valid,
            "target": self.target,
            "candidates_considered": self.screened,
            "witnessed": self.witnessed,
            "reviewed": self.reviewed,
            "rejected_in_review": self.rejected_in_review,
            "replaced": self.replaced,
            "admitted": self.admitted,
            "rank_reached": self.rank_reached,
            "controls": self.controls,
            "prefer": self.prefer,
            "invalid_reasons": dict(self.invalid_reasons),
            "unresolved_reasons": dict(self.unresolved_reasons),
        }


def _valid(
    operator: FaultOperator, world: World, candidates: list[Candidate], funnel: Funnel
) -> tuple[list[Candidate], dict[str, str]]:
    reasons: dict[str, str] = {}
    valid: list[Candidate] = []
    for candidate in candidates:
        problems = operator.validate(candidate, world)
        if problems:
            funnel.invalid_reasons[problems[0].split(" (")[0]] += 1
            reasons[candidate.candidate_id] = "invalid: " + "; ".join(problems)
        else:
            valid.append(candidate)
    funnel.valid = len(valid)
    return valid, reasons


def _screen(
    operator: FaultOperator,
    world: World,
    order: list[Candidate],
    funnel: Funnel,
    rejected: frozenset[str],
    reasons: dict[str, str],
) -> list[Case]:
    """Screen ``order`` until ``funnel.target`` cases are admitted; a witnessed candidate
    rejected in review is skipped, so the next admissible one replaces it."""
    cases: list[Case] = []
    witnessed: list[str] = []
    for rank, candidate in enumerate(order, start=1):
        if len(cases) >= funnel.target:
            break
        funnel.screened += 1
        result = search_witness(operator, candidate, world)
        if result.case is None:
            funnel.unresolved_reasons[result.reason.split(" (")[0].split(":")[0]] += 1
            reasons[candidate.candidate_id] = "unresolved: " + result.reason
            continue
        funnel.witnessed += 1
        witnessed.append(candidate.candidate_id)
        if candidate.candidate_id in rejected:
            funnel.rejected_in_review += 1
            reasons[candidate.candidate_id] = "rejected in semantic review"
            continue
        cases.append(result.case)
        funnel.admitted += 1
        funnel.controls += int(result.case.control)
        funnel.rank_reached = rank
    initial = set(witnessed[: funnel.target])
    funnel.replaced = sum(c.case_id not in initial for c in cases)
    return cases


def admit(
    operator: FaultOperator,
    world: World,
    per_operator: int,
    prefer: Preference | None = None,
    *,
    rejected: frozenset[str] | None = None,
    stored: tuple[str | Path, list[str]] | None = None,
) -> tuple[list[Candidate], list[Case], Funnel, dict[str, str]]:
    """Screen candidates in the frozen order until ``per_operator`` are admitted.

    ``prefer`` (e.g. ``early-trigger``, :mod:`sscbench.admission.prefer`) screens the
    candidates it prefers first; ``stored`` (the file and the ids of an ``order.jsonl``)
    replaces the computed order with the stored one, which must hold the same candidates
    (:func:`sscbench.admission.order.follow_stored`); ``rejected`` holds the case ids a
    semantic review rejected (:mod:`sscbench.admission.semantic`), each replaced by the
    next admissible candidate of the same order. Returns all candidates, the admitted
    cases, the funnel and each dropped candidate's reason. Evaluated agents' outcomes
    are never consulted.
    """
    candidates = operator.enumerate(world)
    funnel = Funnel(
        operator.name,
        enumerated=len(candidates),
        paper_candidates=operator.paper_candidates,
        prefer=prefer,
        target=per_operator,
        reviewed=rejected is not None,
    )
    valid, reasons = _valid(operator, world, candidates, funnel)
    computed, funnel.preferred = frozen_order(valid, world, prefer)
    screening = (
        computed if stored is None else follow_stored(stored[0], operator.name, valid, stored[1])
    )
    funnel.order = [c.candidate_id for c in screening]
    cases = _screen(operator, world, screening, funnel, rejected or frozenset(), reasons)
    return candidates, cases, funnel, reasons


__all__ = ["Funnel", "admit"]
