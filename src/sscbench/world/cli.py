"""``sscbench world describe|check`` and ``sscbench conformance``: inspect and check worlds."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from sscbench.cli_options import DataFolder, Seed, WorldName, fail
from sscbench.errors import DataError
from sscbench.terminal import plain

if TYPE_CHECKING:
    from sscbench.world.selfcheck import SelfCheck

world_app = typer.Typer(help="Inspect worlds.", no_args_is_help=True)


@world_app.command("describe")
def world_describe(world: WorldName = "generated", data: DataFolder = None, seed: Seed = 0) -> None:
    """Print the number of records and tasks of a world."""
    from sscbench.world.load import load_world, parse_world_name

    source, domains = parse_world_name(world)
    try:
        for domain in domains:
            loaded = load_world(source, domain, data, seed)
            counts = loaded.counts()
            tasks = counts.pop("tasks")
            records = ", ".join(f"{count} {name}" for name, count in counts.items())
            print(f"{loaded.name}: {records}; {tasks} tasks; {len(loaded.tools.specs)} tools")
    except DataError as exc:
        fail(exc)


_CHECK_HELP = (
    "Suite self-check: score every task's ground truth with its own reward, per split, and "
    "list each ground truth that meets a tool error. τ-bench's data has 38 retail tasks whose "
    "ground truth does (known: τ-bench's own tools return the same errors, and its reward "
    "still scores them 1). Exit 1 when a ground truth earns less than 1 or meets any other "
    "error."
)


@world_app.command("check", help=_CHECK_HELP)
def world_check(world: WorldName = "generated", data: DataFolder = None, seed: Seed = 0) -> None:
    """Suite self-check: every ground truth scored with its reward; tool errors told apart."""
    from sscbench.world.load import load_world, parse_world_name
    from sscbench.world.selfcheck import check_world

    source, domains = parse_world_name(world)
    failed = False
    try:
        for domain in domains:
            report = check_world(load_world(source, domain, data, seed))
            _print_check(report)
            failed = failed or not report.ok
    except DataError as exc:
        fail(exc)
    raise typer.Exit(1 if failed else 0)


def _print_check(report: SelfCheck) -> None:
    """The self-check's lines: each erroring or failing task, per split, then the world."""
    from sscbench.world.selfcheck import describe_errors
    from sscbench.world.taubench_defects import TAUBENCH_COMMIT

    for task_id, errors in report.known.items():
        line = f"{report.world} {task_id}: known τ-bench data error, {describe_errors(errors)}"
        print(plain(line))
    for task_id, errors in report.unexpected.items():
        line = f"{report.world} {task_id}: unexpected tool error, {describe_errors(errors)}"
        print(plain(line))
    for task_id, reason in report.failed.items():
        print(plain(f"{report.world} {task_id}: reward 0: {reason}"))
    splits = report.by_split()
    if len(splits) > 1:
        for split, row in splits.items():
            print(
                f"{report.world} {split}: {row['rewarded']}/{row['tasks']} ground truths earn "
                f"reward 1, {row['errors']} meet a tool error"
            )
    erroring = len(report.known) + len(report.unexpected)
    summary = f"{report.world}: {report.rewarded}/{report.total} ground truths earn reward 1"
    if erroring:
        summary += (
            f"; {erroring} meet a tool error ({len(report.known)} known in τ-bench's own data "
            f"at {TAUBENCH_COMMIT}, {len(report.unexpected)} unexpected)"
        )
    else:
        summary += "; none meets a tool error"
    if report.failed:
        summary += f"; {len(report.failed)} fail"
    print(summary)


def conformance(
    episodes: Path = typer.Argument(
        ..., help="episodes.jsonl recorded from τ-bench's tools (also .jsonl.xz, .jsonl.gz)"
    ),
    data: DataFolder = None,
    show: int = typer.Option(20, help="how many differences to list"),
) -> None:
    """Replay recorded episodes and report identical observations and final hashes."""
    from sscbench.world.conformance import run_conformance
    from sscbench.world.load import load_world

    worlds: dict = {}

    def world_for(domain: str):
        if domain not in worlds:
            worlds[domain] = load_world("tau-bench", domain, data)
        return worlds[domain]

    try:
        report = run_conformance(episodes, world_for)
    except (DataError, OSError) as exc:
        fail(exc)
    for diff in report.differences[:show]:
        where = f"step {diff.step}" if diff.step is not None else "end"
        print(f"line {diff.episode} ({diff.source}) {where}, {diff.what}:")
        print(plain(f"  expected: {diff.expected[:300]}"))
        print(plain(f"  got:      {diff.got[:300]}"))
    for where in report.restored:
        print(
            f"{where}: book_reservation arguments restored to what τ-bench received "
            "(its later writes had appended to the recorded payment list)"
        )
    if len(report.differences) > show:
        print(f"... and {len(report.differences) - show} more differences")
    print(report.summary())
    raise typer.Exit(0 if report.passed else 1)


__all__ = ["conformance", "world_app"]
