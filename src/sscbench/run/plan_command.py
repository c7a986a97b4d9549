"""The ``sscbench plan CONFIG`` command (mounted in ``sscbench/cli.py``)."""

from __future__ import annotations

from pathlib import Path

import typer


def plan_command(
    config: Path | None = typer.Argument(
        None, help="study config (TOML); default: the embedded study"
    ),
) -> None:
    """Print what a study would run, without calling any model: clean and faulted run
    counts, an upper bound on model requests from the step limits and, with a [prices]
    table and token bounds, an upper bound on cost."""
    from sscbench.errors import DataError
    from sscbench.run.dry_run import plan_lines, plan_report
    from sscbench.study.config import load_config
    from sscbench.terminal import plain, print_error

    try:
        study, _ = load_config(config)
        report = plan_report(study)
    except DataError as exc:
        from rich.console import Console

        print_error(Console(stderr=True), exc)
        raise typer.Exit(2) from None
    typer.echo(f"plan of {config or 'the embedded default study'}:")
    for line in plan_lines(report, study.prices):
        typer.echo(plain(line))
