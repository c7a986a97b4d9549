"""``sscbench world describe|check`` and ``sscbench conformance``: inspect and check worlds."""

from __future__ import annotations

from pathlib import Path

import typer

from sscbench.cli_options import DataFolder, Seed, WorldName, fail
from sscbench.errors import DataError
from sscbench.terminal import plain

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


@world_app.command("check")
def world_check(world: WorldName = "generated", data: DataFolder = None, seed: Seed = 0) -> None:
    """Suite self-check: every task's ground truth must earn reward 1."""
    from sscbench.world.load import load_world, parse_world_name
    from sscbench.world.selfcheck import check_world

    source, domains = parse_world_name(world)
    failed = False
    try:
        for domain in domains:
            report = check_world(load_world(source, domain, data, seed))
            for task_id, reason in report.not_replayable.items():
                print(plain(f"{report.world} {task_id}: ground truth does not replay: {reason}"))
            for task_id, reason in report.failed.items():
                print(plain(f"{report.world} {task_id}: reward 0: {reason}"))
            print(
                f"{report.world}: {len(report.passed)}/{report.total} tasks earn reward 1, "
                f"{len(report.not_replayable)} do not replay, {len(report.failed)} fail"
            )
            failed = (
                failed
                or bool(report.failed)
                or (source == "generated" and bool(report.not_replayable))
            )
    except DataError as exc:
        fail(exc)
    raise typer.Exit(1 if failed else 0)


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
