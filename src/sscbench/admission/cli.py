"""``sscbench candidates`` and ``sscbench admit``: enumerate candidates, admit cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from sscbench.cli_options import CasesOut, DataFolder, Operators, Seed, WorldSource, fail
from sscbench.errors import DataError
from sscbench.terminal import plain

OPERATORS = "ReturnDate,ItemOption,PaySource,WriteEffect"
"""The default ``--operators``: the four SSCBench operators."""


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
    from sscbench.admission.funnel import cluster_cycle
    from sscbench.admission.store import write_jsonl

    try:
        chosen, worlds = _operator_worlds(world, data, seed, operators)
    except DataError as exc:
        fail(exc)
    rows: list[Any] = []
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
    review: Path | None, order: Path | None, chosen: list[Any], worlds: dict[str, Any]
) -> tuple[frozenset[str] | None, dict[str, list[str]]]:
    """The rejected case ids of a semantic review (checked against the candidates) and a
    stored frozen order, each read with errors naming the file and field."""
    from sscbench.admission.order import read_order
    from sscbench.admission.semantic import read_semantic_review, rejected_ids

    stored = read_order(order) if order is not None else {}
    if review is None:
        return None, stored
    verdicts = read_semantic_review(review)
    known = [c.candidate_id for op in chosen for c in op.enumerate(worlds[op.domain])]
    return rejected_ids(review, verdicts, known), stored


def _print_funnel(funnel: Any, world: str, per_operator: int) -> None:
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
    import json

    from sscbench.admission.funnel import admit
    from sscbench.admission.order import order_rows
    from sscbench.admission.store import write_jsonl
    from sscbench.core.files import atomic_write

    try:
        chosen, worlds = _operator_worlds(world, data, seed, operators)
        rejected, stored = _review_and_order(review, order, chosen, worlds)
        results = []
        for operator in chosen:
            frozen = (order, stored.get(operator.name, [])) if order is not None else None
            results.append(
                admit(
                    operator,
                    worlds[operator.domain],
                    per_operator,
                    rejected=rejected,
                    stored=frozen,
                )
            )
    except DataError as exc:
        fail(exc)
    all_candidates: list[Any] = []
    all_cases: list[Any] = []
    drops: list[dict[str, str]] = []
    ranks: list[dict[str, Any]] = []
    funnels: list[dict[str, Any]] = []
    for found, cases, funnel, reasons in results:
        all_candidates.extend(found)
        all_cases.extend(cases)
        drops.extend({"candidate_id": k, "reason": v} for k, v in reasons.items())
        by_id = {c.candidate_id: c for c in found}
        ranks.extend(order_rows([by_id[cid] for cid in funnel.order]))
        funnels.append({**funnel.record(), "cases": [c.case_id for c in cases]})
        _print_funnel(funnel, world, per_operator)
    write_jsonl(out / "candidates.jsonl", all_candidates)
    write_jsonl(out / "cases.jsonl", all_cases)
    write_jsonl(out / "drops.jsonl", drops)
    write_jsonl(out / "order.jsonl", ranks)
    record = {
        "world": world,
        "seed": seed,
        "review": str(review) if review else None,
        "operators": funnels,
    }
    atomic_write(out / "admission.json", json.dumps(record, indent=1).encode("utf-8"))
    print(
        plain(f"wrote {out / 'cases.jsonl'} (and candidates, drops, order.jsonl, admission.json)")
    )


__all__ = ["OPERATORS", "admit_cases", "candidates"]
