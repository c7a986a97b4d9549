"""``sscbench candidates`` and ``sscbench admit``: enumerate candidates, admit cases."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from sscbench.cli_options import CasesOut, DataFolder, Operators, Seed, WorldSource, fail
from sscbench.errors import DataError
from sscbench.faults.operators import DEFAULT_OPERATORS
from sscbench.terminal import plain

if TYPE_CHECKING:
    from sscbench.admission.funnel import Funnel
    from sscbench.faults.case import Candidate
    from sscbench.faults.operators.base import FaultOperator
    from sscbench.world.world import World

OPERATORS = ",".join(DEFAULT_OPERATORS)
"""The default ``--operators``: the four SSCBench operators (the one default list)."""


def _operator_worlds(world: str, data: Path | None, seed: int, operators: str):
    from sscbench.faults.operators.base import FaultOperator
    from sscbench.faults.registry import get_operator
    from sscbench.world.load import load_world

    chosen = []
    for name in [n.strip() for n in operators.split(",") if n.strip()]:
        try:
            operator = get_operator(name)
        except KeyError as exc:
            raise DataError("--operators", name, str(exc.args[0])) from exc
        if not isinstance(operator, FaultOperator):
            raise DataError("--operators", name, "not an SSCBench operator with admission")
        chosen.append(operator)
    worlds = {op.domain: load_world(world, op.domain, data, seed) for op in chosen}
    return chosen, worlds


def candidates(
    world: WorldSource = "generated",
    data: DataFolder = None,
    seed: Seed = 0,
    operators: Operators = OPERATORS,
    per_operator: int = typer.Option(
        0, help="write only the first N valid candidates per operator, in screening order (0: all)"
    ),
    out: CasesOut = Path("sscbench-cases"),
) -> None:
    """Enumerate candidates per operator (frozen order) and write candidates.jsonl."""
    from sscbench.admission.order import cluster_cycle
    from sscbench.admission.store import write_jsonl

    try:
        chosen, worlds = _operator_worlds(world, data, seed, operators)
    except DataError as exc:
        fail(exc)
    rows: list[Candidate] = []
    for operator in chosen:
        found = operator.enumerate(worlds[operator.domain])
        valid_ones = [c for c in found if not operator.validate(c, worlds[operator.domain])]
        valid = len(valid_ones)
        rows.extend(cluster_cycle(valid_ones)[:per_operator] if per_operator else found)
        paper = f" (paper: {operator.paper_candidates})" if world == "tau-bench" else ""
        print(f"{operator.name}: {len(found)} candidates{paper}, {valid} valid")
    write_jsonl(out / "candidates.jsonl", rows)
    print(plain(f"wrote {out / 'candidates.jsonl'}"))


def _review_and_order(
    review: Path | None, order: Path | None, chosen: list[FaultOperator], worlds: dict[str, World]
) -> tuple[frozenset[str] | None, dict[str, list[str]]]:
    """The rejected case ids of a semantic review (checked against the candidates) and a
    stored frozen order, each read with errors naming the file and field."""
    from sscbench.admission.batch import review_rejections
    from sscbench.admission.order import read_order

    stored = read_order(order) if order is not None else {}
    return review_rejections(review, chosen, worlds), stored


def _print_funnel(funnel: Funnel, world: str, per_operator: int) -> None:
    paper = f" (paper: {funnel.paper_candidates} candidates)" if world == "tau-bench" else ""
    print(
        f"{funnel.operator}: enumerated {funnel.enumerated}{paper} → valid {funnel.valid} → "
        f"screened {funnel.screened} → witnessed {funnel.witnessed} → admitted "
        f"{funnel.admitted} ({funnel.controls} target-value controls)"
    )
    if funnel.reviewed:
        print(
            f"    semantic review: {funnel.rejected_in_review} rejected, {funnel.replaced} "
            f"replaced from the same frozen order; {funnel.admitted} reached by rank "
            f"{funnel.rank_reached}"
        )
    for reason, count in funnel.invalid_reasons.most_common():
        print(f"    invalid ({count}): {reason}")
    for reason, count in funnel.unresolved_reasons.most_common():
        print(f"    unresolved ({count}): {reason}")
    if funnel.admitted < per_operator:
        print(f"    only {funnel.admitted}/{per_operator} admitted: candidates ran out")


def admit_cases(
    world: WorldSource = "generated",
    data: DataFolder = None,
    seed: Seed = 0,
    operators: Operators = OPERATORS,
    per_operator: int = typer.Option(30, help="cases to admit per operator"),
    review: Path | None = typer.Option(
        None,
        "--review",
        help="semantic-review file (JSONL: case_id, decision keep/reject, reason); a "
        "rejected case is replaced by the next admissible candidate of the frozen order",
    ),
    order: Path | None = typer.Option(
        None, "--order", help="follow this stored frozen order (an earlier run's order.jsonl)"
    ),
    out: CasesOut = Path("sscbench-cases"),
) -> None:
    """Screen candidates for pre-use revealability witnesses; write candidates.jsonl,
    cases.jsonl, drops.jsonl, the frozen order (order.jsonl) and the funnel (admission.json)."""
    from sscbench.admission.batch import Admission, admit_operator, write_admission
    from sscbench.admission.store import write_jsonl

    admission = Admission(world, seed, str(review) if review else None)
    try:
        chosen, worlds = _operator_worlds(world, data, seed, operators)
        rejected, stored = _review_and_order(review, order, chosen, worlds)
        for operator in chosen:
            frozen = (order, stored.get(operator.name, [])) if order is not None else None
            admission.operators.append(
                admit_operator(
                    operator,
                    worlds[operator.domain],
                    per_operator,
                    rejected=rejected,
                    stored=frozen,
                )
            )
    except DataError as exc:
        fail(exc)
    drops: list[dict[str, str]] = []
    for one in admission.operators:
        drops.extend({"candidate_id": k, "reason": v} for k, v in one.reasons.items())
        _print_funnel(one.funnel, world, per_operator)
    write_jsonl(
        out / "candidates.jsonl", [c for one in admission.operators for c in one.candidates]
    )
    write_jsonl(out / "cases.jsonl", [c for one in admission.operators for c in one.cases])
    write_jsonl(out / "drops.jsonl", drops)
    write_admission(out, admission)
    print(
        plain(f"wrote {out / 'cases.jsonl'} (and candidates, drops, order.jsonl, admission.json)")
    )


__all__ = ["OPERATORS", "admit_cases", "candidates"]
