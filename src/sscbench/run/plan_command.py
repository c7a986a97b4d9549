"""The ``sscbench plan CONFIG`` command (mounted in ``sscbench/cli.py``)."""

from __future__ import annotations

from pathlib import Path

import typer

from sscbench.run.cli_model import (
    BaseUrl,
    KeepAgents,
    Models,
    OperatorNames,
    Repetitions,
    Temperature,
    UserModel,
    WorldChoice,
    model_options,
)


def plan_command(
    config: Path | None = typer.Argument(
        None, help="study config (TOML); default: the embedded study"
    ),
    model: Models = None,
    base_url: BaseUrl = None,
    user_model: UserModel = None,
    operators: OperatorNames = None,
    world: WorldChoice = None,
    repetitions: Repetitions = None,
    temperature: Temperature = None,
    keep_agents: KeepAgents = False,
) -> None:
    """Print what a study would run, without calling any model: clean and faulted run
    counts, an upper bound on model requests from the step limits and, with a [prices]
    table and token bounds, an upper bound on cost; what simulates the user and which
    key variables the study's endpoints need but are unset. Takes ``run``'s --model
    options."""
    from sscbench.errors import DataError
    from sscbench.run.dry_run import plan_lines, plan_report
    from sscbench.run.preflight import unset_keys, user_line
    from sscbench.study.config import load_config
    from sscbench.terminal import plain, print_error

    options = model_options(
        model, base_url, user_model, operators, world, repetitions, temperature, keep_agents
    )
    try:
        study, _ = load_config(config, options)
        report = plan_report(study)
    except DataError as exc:
        from rich.console import Console

        print_error(Console(stderr=True), exc)
        raise typer.Exit(2) from None
    typer.echo(f"plan of {config or 'the embedded default study'}:")
    typer.echo(user_line(study))
    unset = unset_keys(study)
    if unset:
        names = ", ".join(f"${name}" for name in unset)
        typer.echo(f"keys: {names} unset: export before sscbench run (its preflight checks)")
    elif any(a.kind == "openai" for a in study.agents) or study.user.kind == "llm":
        typer.echo("keys: every key variable the endpoints need is set")
    for line in plan_lines(report, study.prices):
        typer.echo(plain(line))
