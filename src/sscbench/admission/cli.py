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


def admit_cases(
    world: WorldSource = "generated",
    data: DataFolder = None,
    seed: Seed = 0,
    operators: Operators = OPERATORS,
    per_operator: int = typer.Option(30, help="cases to admit per operator"),
    out: CasesOut = Path("sscbench-cases"),
) -> None:
    """Screen candidates for pre-use revealability witnesses; write candidates.jsonl and cases.jsonl."""
    from sscbench.admission.funnel import admit
    from sscbench.admission.store import write_jsonl

    try:
        chosen, worlds = _operator_worlds(world, data, seed, operators)
    except DataError as exc:
        fail(exc)
    all_candidates: list[Any] = []
    all_cases: list[Any] = []
    drops: list[dict[str, str]] = []
    for operator in chosen:
        found, cases, funnel, reasons = admit(operator, worlds[operator.domain], per_operator)
        all_candidates.extend(found)
        all_cases.extend(cases)
        drops.extend({"candidate_id": k, "reason": v} for k, v in reasons.items())
        paper = f" (paper: {funnel.paper_candidates} candidates)" if world == "tau-bench" else ""
        print(
            f"{operator.name}: enumerated {funnel.enumerated}{paper} → valid {funnel.valid} → "
            f"screened {funnel.screened} → witnessed {funnel.witnessed} → admitted "
            f"{funnel.admitted} ({funnel.controls} target-value controls)"
        )
        for reason, count in funnel.invalid_reasons.most_common():
            print(f"    invalid ({count}): {reason}")
        for reason, count in funnel.unresolved_reasons.most_common():
            print(f"    unresolved ({count}): {reason}")
        if funnel.admitted < per_operator:
            print(f"    only {funnel.admitted}/{per_operator} admitted: candidates ran out")
    write_jsonl(out / "candidates.jsonl", all_candidates)
    write_jsonl(out / "cases.jsonl", all_cases)
    write_jsonl(out / "drops.jsonl", drops)
    print(
        plain(f"wrote {out / 'candidates.jsonl'}, {out / 'cases.jsonl'} and {out / 'drops.jsonl'}")
    )


__all__ = ["OPERATORS", "admit_cases", "candidates"]
