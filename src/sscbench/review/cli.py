"""``sscbench review export`` and ``sscbench agreement`` (mounted by the main CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from sscbench.errors import DataError
from sscbench.review.labels import QUANTITIES, STEP_QUANTITIES
from sscbench.study.lock import warn_if_being_written
from sscbench.terminal import plain, print_error, safe, table_console

if TYPE_CHECKING:  # imported where used: the CLI starts without the agreement module
    from sscbench.review.agreement import AgreementSummary

console = Console()
review_app = typer.Typer(help="Review runs by hand.", no_args_is_help=True)


def _fail(exc: Exception) -> NoReturn:
    """Print ``error: ...`` exactly as written (never wrapped, never parsed as markup)."""
    print_error(console, exc)
    raise typer.Exit(2)


@review_app.command("export")
def export_command(
    study: Path = typer.Argument(..., help="study directory"),
    out: Path = typer.Option(..., "--out", help="the reviewer's folder (must be empty or new)"),
    runs: int | None = typer.Option(None, "--runs", help="how many runs to draw (default: all)"),
    seed: int = typer.Option(0, "--seed", help="seed of the draw and of the page order"),
    stratify: str | None = typer.Option(
        None, "--stratify", help="draw evenly across strata: operator, stratum, config"
    ),
    key: Path | None = typer.Option(
        None, "--key", help="where the review-id key goes (default: STUDY/review-keys/OUT.json)"
    ),
    second_reading: bool = typer.Option(
        False,
        "--second-reading",
        help="show, on the pages of runs second-read sent to the judge model, the rule "
        "reading and its proposals side by side (those pages are then not blind)",
    ),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
    unread: bool = typer.Option(
        False, "--unread", help="runs whose measurement carries unread marks first"
    ),
) -> None:
    """Write one masked reviewer page per run, an index and an empty labels.jsonl; the key
    mapping review ids to runs is kept apart."""
    from sscbench.review.export import export_review, parse_stratify

    warn_if_being_written(study, "this review export")
    try:
        summary = export_review(
            study,
            out,
            runs=runs,
            seed=seed,
            stratify=parse_stratify(stratify),
            key=key,
            second_reading=second_reading,
            unread_first=unread,
        )
    except (DataError, OSError) as exc:
        _fail(exc)
    if as_json:
        print(json.dumps(summary, indent=1))
        return
    console.print(
        f"exported {summary['exported']} of {summary['population']} runs to {summary['out']} "
        f"(labels: {Path(summary['out']) / 'labels.jsonl'}; key kept apart: {summary['key']})",
        highlight=False,
    )
    for stratum, count in summary["strata"].items():
        console.print(f"  {stratum}: {count}", highlight=False)
    if unread:
        console.print(
            f"  first: {summary['unread']} runs with unread marks (review ids from r001)",
            highlight=False,
        )


def show_command(
    study: Path = typer.Argument(..., help="study directory"),
    run: str = typer.Argument(..., help="run id, or a unique prefix of one"),
    as_json: bool = typer.Option(False, "--json", help="the events as JSON lines"),
    unchecked: bool = typer.Option(
        False,
        "--unchecked",
        help="print a ledger whose sha256 differs from the index's record, after a warning",
    ),
) -> None:
    """Print a run's numbered model-visible ledger and nothing else (no measurement, no
    labels, no evaluator log, no contract): what a labeller reads. The ledger is first
    checked against the sha256 the index recorded; a mismatch is an error (exit 2)
    unless ``--unchecked``, which prints it after a ``warning:`` line on stderr."""
    from sscbench.review.show import (
        find_run,
        format_ledger,
        json_lines,
        read_events,
        terminal_text,
    )
    from sscbench.study.folder import StudyDir
    from sscbench.study.verify import ledger_problem

    try:
        store = StudyDir(study)  # one folder object: its shard reader finds the run once
        found = find_run(store, run)  # the index read once
        run_id = str(found.run_id)
        problem = ledger_problem(store, run_id, found)
        if problem is not None and not unchecked:
            raise problem
        events = read_events(store, run_id)
    except (DataError, OSError) as exc:
        _fail(exc)
    if problem is not None:
        typer.echo(plain(f"warning: {problem}; shown unchecked (--unchecked)"), err=True)
    text = json_lines(events) if as_json else terminal_text(format_ledger(events))
    typer.echo(text)


@review_app.command("cases")
def cases_command(
    source: Path = typer.Argument(..., help="a cases.jsonl (sscbench admit) or a study folder"),
    out: Path = typer.Option(..., "--out", help="the case-review folder (must be empty or new)"),
) -> None:
    """Write one case-level review page per admitted case (contract, fault, injection
    context, witness; no run outcome), an index and an undecided semantic-review.jsonl."""
    from sscbench.review.case_pages import cases_of, write_case_pages

    try:
        summary = write_case_pages(cases_of(source), out)
    except (DataError, OSError) as exc:
        _fail(exc)
    console.print(
        f"wrote {summary['cases']} case pages to {out} (decisions: "
        f"{out / 'semantic-review.jsonl'})",
        highlight=False,
    )


def _mount_round() -> None:
    from sscbench.review.round_cli import (
        adjudicate_command,
        agree_command,
        plan_command,
        reference_command,
    )

    review_app.command("plan")(plan_command)
    review_app.command("agree")(agree_command)
    review_app.command("adjudicate")(adjudicate_command)
    review_app.command("reference")(reference_command)


_mount_round()


def _cells(summary: dict, name: str) -> tuple[str, str, str]:
    interval = summary[name]
    agree = summary["agree" if name == "exact" else "agree_within_1"]
    if interval["estimate"] is None:
        return (f"{agree}/{summary['n']}", "unobserved", "")
    return (
        f"{agree}/{summary['n']}",
        f"{interval['estimate'] * 100:.1f}",
        f"{interval['low'] * 100:.1f}–{interval['high'] * 100:.1f}",
    )


_STEP_LABEL = {"exact": "exact", "within_1": "±1"}


def _group_order(group: str) -> tuple[int, str]:
    """``all`` first, then every operator, then every stratum."""
    kind = group.split(":", 1)[0]
    return ({"all": 0, "operator": 1, "stratum": 2}.get(kind, 3), group)


def population_note(data: AgreementSummary) -> str:
    """The table's footnote: which runs each quantity is scored over."""
    from sscbench.review.agreement import ADOPTING_ONLY, ADOPTING_RUNS

    adopting = data["adopting_runs"]
    runs = "run" if adopting == 1 else "runs"
    return (
        f"{' and '.join(ADOPTING_ONLY)} over the {adopting} adopting {runs} only "
        f"({ADOPTING_RUNS}), as the paper reports them; every other quantity over all "
        f"{data['runs']} labelled runs."
    )


def agreement_table(data: AgreementSummary) -> Table:
    """The agreement as one table: every quantity in every group (``all``, each operator,
    each stratum); a quantity with no scored run in a group is shown as unobserved."""
    from sscbench.review.agreement import ADOPTING_ONLY, cell_summary

    groups = sorted({g for q in data["quantities"].values() for g in q} | {"all"}, key=_group_order)
    table = Table(title=f"agreement on {data['runs']} labelled runs (95% Wilson intervals)")
    for column in ("group", "quantity", "agree/n", "%", "95% CI"):
        table.add_column(column, justify="left" if column in ("group", "quantity") else "right")
    for group in groups:
        for q in QUANTITIES:
            summary = data["quantities"].get(q, {}).get(group) or cell_summary(q)
            names = ("exact", "within_1") if q in STEP_QUANTITIES else ("exact",)
            for name in names:
                label = q if q not in STEP_QUANTITIES else f"{q} {_STEP_LABEL[name]}"
                label += " (A=true)" if q in ADOPTING_ONLY else ""
                table.add_row(safe(group), label, *_cells(summary, name))
        table.add_section()
    return table


def unread_table(data: AgreementSummary) -> Table:
    """The agreement split by unread marks: each quantity (exact) over the runs whose
    measurement carries marks, those that carry none, and those never checked (rows
    measured before the marks existed), so a reviewer sees where the misses sit."""
    from sscbench.review.agreement import ADOPTING_ONLY, UNREAD_STATUSES, cell_summary

    counts = data.get("unread_runs", {})
    statuses = [s for s in UNREAD_STATUSES if counts.get(s)]
    title = "agreement by unread marks: " + ", ".join(f"{counts[s]} {s}" for s in statuses)
    table = Table(title=title)
    table.add_column("quantity", justify="left")
    for status in statuses:
        table.add_column(f"{status} agree/n", justify="right")
        table.add_column("%", justify="right")
    for q in QUANTITIES:
        cells = data["by_unread"].get(q, {})
        row = [q + (" (A=true)" if q in ADOPTING_ONLY else "")]
        for status in statuses:
            agree, percent, _ = _cells(cells.get(status) or cell_summary(q), "exact")
            row += [agree, percent]
        table.add_row(*row)
    return table


def agreement_command(
    study: Path = typer.Argument(..., help="study directory"),
    reference: Path = typer.Option(..., "--reference", help="labels file (docs/reviewing.md)"),
    key: Path | None = typer.Option(
        None, "--key", help="review key (default: found in STUDY/review-keys)"
    ),
    measurements: Path | None = typer.Option(
        None, "--measurements", help="measurement file to score (default: STUDY/measurements.jsonl)"
    ),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Measurement against reference labels on T_F, T_E, T_S, T_U (exact and ±1), A, Z_S
    and Y_end, by operator and stratum, with Wilson intervals; every disagreement listed."""
    from sscbench.review.agreement import agreement, dumps

    try:
        result = agreement(study, reference, key=key, measurements=measurements)
    except (DataError, OSError) as exc:
        _fail(exc)
    if as_json:
        print(dumps(result))
        return
    data = result.to_dict()
    table_console().print(agreement_table(data))
    console.print(population_note(data), highlight=False, soft_wrap=True)
    if data.get("by_unread"):
        table_console().print(unread_table(data))
    outside = data["out_of_population"]
    if any(outside.values()):
        counts = ", ".join(f"{q} {n}" for q, n in outside.items() if n)
        console.print(f"labelled outside the adopting runs, not scored: {counts}", highlight=False)
    if data["unmeasured_runs"]:
        console.print(f"labelled runs without a measurement: {len(data['unmeasured_runs'])}")
    console.print(f"disagreements: {len(data['disagreements'])}", highlight=False)
    for d in data["disagreements"]:
        who = d["run_id"] + (f" ({d['review_id']})" if d["review_id"] else "")
        console.print(
            plain(
                f"- {who} {d['quantity']}: reference {d['reference']!r}, "
                f"measured {d['measured']!r}" + (f" (note: {d['note']})" if d["note"] else "")
            ),
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        for quote in d["quotes"]:
            console.print(
                plain(
                    f"    step {quote['step']} {quote['role']}: {' '.join(quote['text'].split())}"
                ),
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
