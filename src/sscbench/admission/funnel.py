"""Candidates to admitted cases: validity, cluster-cycling screening, witnesses, the funnel."""

from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import dataclass, field

from sscbench.admission.prefer import Preference, preferred_first
from sscbench.admission.witness import search_witness
from sscbench.faults.case import Candidate, Case
from sscbench.faults.operators.base import FaultOperator
from sscbench.world.world import World


@dataclass
class Funnel:
    """One operator's funnel: enumerated → valid → witnessed → admitted, with drop reasons."""

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


def cluster_cycle(candidates: list[Candidate]) -> list[Candidate]:
    """Frozen order that cycles through entity clusters: the first of each, then the second..."""
    clusters: OrderedDict[str, list[Candidate]] = OrderedDict()
    for candidate in sorted(candidates, key=lambda c: c.rank):
        clusters.setdefault(candidate.cluster, []).append(candidate)
    out: list[Candidate] = []
    depth = 0
    while len(out) < len(candidates):
        for members in clusters.values():
            if depth < len(members):
                out.append(members[depth])
        depth += 1
    return out


def admit(
    operator: FaultOperator, world: World, per_operator: int, prefer: Preference | None = None
) -> tuple[list[Candidate], list[Case], Funnel, dict[str, str]]:
    """Screen candidates in cluster-cycling order until ``per_operator`` are admitted.

    ``prefer`` (e.g. ``early-trigger``, :mod:`sscbench.admission.prefer`) screens the
    candidates it prefers first, each group in cluster-cycling order. Returns all
    candidates, the admitted cases, the funnel and each dropped candidate's reason.
    Evaluated agents' outcomes are never consulted.
    """
    candidates = operator.enumerate(world)
    funnel = Funnel(
        operator.name,
        enumerated=len(candidates),
        paper_candidates=operator.paper_candidates,
        prefer=prefer,
    )
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
    cases: list[Case] = []
    order = cluster_cycle(valid)
    if prefer is not None:
        chosen, funnel.preferred = preferred_first(valid, world, prefer)
        order = cluster_cycle(chosen[: funnel.preferred]) + cluster_cycle(
            chosen[funnel.preferred :]
        )
    for candidate in order:
        if len(cases) >= per_operator:
            break
        funnel.screened += 1
        result = search_witness(operator, candidate, world)
        if result.case is None:
            funnel.unresolved_reasons[result.reason.split(" (")[0].split(":")[0]] += 1
            reasons[candidate.candidate_id] = "unresolved: " + result.reason
            continue
        funnel.witnessed += 1
        cases.append(result.case)
        funnel.admitted += 1
        funnel.controls += int(result.case.control)
    return candidates, cases, funnel, reasons
