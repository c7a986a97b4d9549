"""Shared pieces of every package's command line: the repeated options, and the error exit.

Each package's ``cli.py`` declares its commands with these annotated aliases, so an
option that several commands take (``--world``, ``--data``, ``--seed``, the study
directory, ...) is spelled, typed and explained once::

    def world_check(world: WorldName = "generated", data: DataFolder = None, seed: Seed = 0):

This module sits at the bottom with ``terminal.py`` and ``errors.py``: every package's
command may import it, and it imports nothing of sscbench but ``terminal``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from sscbench.terminal import print_error

console = Console()
"""The console every package's command prints its messages and errors on."""

WorldName = Annotated[
    str, typer.Argument(help="generated | tau-bench, optionally /airline or /retail")
]
"""A world argument: its source, optionally with one domain (``tau-bench/airline``)."""
WorldSource = Annotated[str, typer.Option(help="generated | tau-bench")]
"""``--world``: the world source (both domains)."""
DataFolder = Annotated[
    Path | None,
    typer.Option(help="τ-bench data folder or checkout (default: the packaged τ-bench data)"),
]
"""``--data``: the τ-bench data folder (``tau-bench`` reads the packaged data without it)."""
Seed = Annotated[int, typer.Option(help="seed of the generated world")]
"""``--seed``: the generated world's seed."""
Operators = Annotated[str, typer.Option(help="comma-separated operator names")]
"""``--operators``: SSCBench operators by name."""
CasesOut = Annotated[Path, typer.Option(help="output directory")]
"""``--out`` of the admission commands."""
StudyFolder = Annotated[Path, typer.Argument(help="study directory")]
"""The study directory a command reads."""


def fail(exc: Exception) -> NoReturn:
    """Print ``error: ...`` (the message exactly as written) and exit with code 2."""
    print_error(console, exc)
    raise typer.Exit(2)


__all__ = [
    "CasesOut",
    "DataFolder",
    "Operators",
    "Seed",
    "StudyFolder",
    "WorldName",
    "WorldSource",
    "console",
    "fail",
]
