"""``sscbench review plan | agree | adjudicate | reference``: a review with several people."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sscbench.errors import DataError
from sscbench.study.lock import warn_if_being_written

if TYPE_CHECKING:
    from sscbench.review.interrater import AgreementBlock, ReviewAgreement

console = Console(soft_wrap=True)


def _fail(exc: Exception) -> None:
    console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def plan_command(
    study: Path = typer.Argument(..., help="study directory (measured)"),
    reviewers: str = typer.Option(..., "--reviewers", help="reviewer names, e.g. A,B,C"),
    runs: int | None = typer.Option(
        None, "--runs", help="runs to review (default: all but the calibration runs)"
    ),
    calibration: int = typer.Option(
        0, "--calibration", help="calibration runs, reviewed first, kept out of the reference"
    ),
    stratify: str | None = typer.Option(
        None, "--stratify", help="strata of the draw: operator, configuration, stratum"
    ),
    seed: int = typer.Option(0, "--seed", help="seed of the draw and of the order"),
    out: Path | None = typer.Option(
        None, "--out", help="the review folder (new or empty; default: ./review-<STUDY name>)"
    ),
    key: Path | None = typer.Option(
        None, "--key", help="where the key goes (default: STUDY/review-keys/<folder>.json)"
    ),
) -> None:
    """Draw runs stratified by the automatic labels (never shown) and write the review
    folder: plan.json, one self-contained page per reviewer, labels/ for the exports."""
    from sscbench.review.plan import parse_plan_stratify, parse_reviewers, plan_review

    folder = out if out is not None else Path(f"review-{Path(study).resolve().name}")
    warn_if_being_written(study, "this review plan")
    try:
        plan = plan_review(
            study,
            folder,
            reviewers=parse_reviewers(reviewers),
            runs=runs,
            calibration=calibration,
            stratify=parse_plan_stratify(stratify),
            seed=seed,
            key=key,
        )
    except (DataError, OSError) as exc:
        _fail(exc)
    console.print(
        f"planned a review of {len(plan.items)} runs (+{len(plan.calibration)} calibration) "
        f"of {plan.population} reviewable runs, {len(plan.cases)} cases, in {folder}",
        highlight=False,
    )
    for name in plan.reviewers:
        console.print(f"  page of {name}: {folder / f'review-{name}.html'}", highlight=False)
    console.print(
        f"  exports go to {folder / 'labels'}/<reviewer>.jsonl; key kept apart: {plan.key}",
        highlight=False,
    )
    console.print(f"  {len(plan.strata)} strata by {', '.join(plan.stratify) or '(none)'}")


def _kappa_table(title: str, block: AgreementBlock | ReviewAgreement) -> Table:
    table = Table(title=title)
    for column in ("quantity", "Fleiss' κ", "items", "categories"):
        table.add_column(column, justify="left" if column != "items" else "right")
    for name, k in block.kappa.items():
        value = "undefined" if k.kappa is None else f"{k.kappa:.3f}"
        table.add_row(
            name,
            value,
            str(k.items),
            ", ".join(json.dumps(c) if isinstance(c, bool) else str(c) for c in k.categories),
        )
    for name, s in block.exact_step.items():
        table.add_row(f"{name} exact step", f"{s.agree}/{s.located}", str(s.located), "located")
    return table


def agree_command(
    folder: Path = typer.Argument(..., help="review folder (with plan.json and labels/)"),
    finalise: bool = typer.Option(
        False, "--finalise", help="also build reference.jsonl (needs the adjudication)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print agreement.json"),
) -> None:
    """Pre-adjudication agreement of the reviewers' exports (labels/<reviewer>.jsonl):
    Fleiss' κ for A, Z_S, T_U and T_S status, exact steps, every disputed item."""
    from sscbench.review.interrater import agree

    try:
        result = agree(folder)
        reference = None
        if finalise:
            from sscbench.review.reference import build_reference

            reference = build_reference(folder)
    except (DataError, OSError) as exc:
        _fail(exc)
    if as_json:
        print(json.dumps(result.dump(), indent=1))
        return
    console.print(
        _kappa_table(
            f"agreement of {', '.join(result.reviewers)} on {result.items} runs "
            "(before adjudication)",
            result,
        )
    )
    console.print(
        f"unanimous: {result.unanimous}/{result.items}; disputed: {len(result.disputed)}",
        highlight=False,
    )
    for row in result.disagreements:
        values = ", ".join(f"{k}={v!r}" for k, v in row["values"].items())
        console.print(
            f"- {row['review_id']} {row['quantity']}: {values}", highlight=False, markup=False
        )
    if result.calibration_agreement is not None and result.calibration:
        cal = result.calibration_agreement
        console.print(_kappa_table(f"calibration runs ({cal.items}, not in the reference)", cal))
        console.print(f"calibration disputed: {', '.join(cal.disputed) or 'none'}", highlight=False)
    if result.case_kappa:
        cases = Table(title="case questions (yes / no / unsure)")
        for column in ("question", "Fleiss' κ", "cases"):
            cases.add_column(column, justify="right" if column == "cases" else "left")
        for name, k in result.case_kappa.items():
            value = "undefined" if k.kappa is None else f"{k.kappa:.3f}"
            cases.add_row(name, value, str(k.items))
        console.print(cases)
    console.print(f"wrote {Path(folder) / 'agreement.json'}", highlight=False)
    if reference is not None:
        console.print(f"wrote {reference}", highlight=False)


def adjudicate_command(
    folder: Path = typer.Argument(..., help="review folder"),
    adjudicator: str = typer.Option("adjudicator", "--adjudicator", help="the adjudicator's name"),
) -> None:
    """Write the adjudicator's page: the disputed items only, every reviewer's answers shown."""
    from sscbench.review.plan import valid_name
    from sscbench.review.reference import adjudication_page

    if not valid_name(adjudicator):
        _fail(
            DataError(
                "--adjudicator",
                None,
                f"bad name {adjudicator!r}: letters, digits, '_', '-', '.' only",
            )
        )
    try:
        page = adjudication_page(folder, adjudicator)
    except (DataError, OSError) as exc:
        _fail(exc)
    console.print(
        f"wrote {page}; save its export as {Path(folder) / 'labels' / 'adjudication.jsonl'}, "
        f"then run `sscbench review reference {folder}`",
        highlight=False,
    )


def reference_command(folder: Path = typer.Argument(..., help="review folder")) -> None:
    """Unanimous labels + the adjudication → FOLDER/reference.jsonl (run ids resolved)."""
    from sscbench.review.reference import build_reference

    try:
        path = build_reference(folder)
    except (DataError, OSError) as exc:
        _fail(exc)
    console.print(f"wrote {path}", highlight=False)
