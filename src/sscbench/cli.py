"""The ``sscbench`` command line: each package's commands, mounted on one app.

Every command lives in its package's ``cli.py`` (``world/``, ``run/``, ``admission/``,
``measure/``, ``oracles/``, ``report/``, ``release/``, ``review/``, ``lab/``, ``local/``);
the options several commands share are annotated aliases in :mod:`sscbench.cli_options`.
This module only mounts them, each in the panel of its stage (:data:`STAGES`, the order
of the work), in the order ``sscbench --help`` lists them. To add a command: write it in
its package's ``cli.py``, then add one ``_command(...)`` (or ``_group(...)``) line below.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from sscbench.admission.cli import admit_cases, candidates
from sscbench.integrations.export_cli import export_app
from sscbench.integrations.otel_live import live_traces
from sscbench.json_types import JsonObject
from sscbench.lab.cli import lab_app
from sscbench.local.cli import serve_local
from sscbench.measure.cli import calibrate, measure
from sscbench.oracles.cli import validate_oracle_command
from sscbench.oracles.run_scoring import check_scoring
from sscbench.oracles.second_cli import second_read_command
from sscbench.release.abort import watch_campaign
from sscbench.release.cli import gate_command, release_app
from sscbench.release.containment import check_campaign
from sscbench.report.cli import measure_and_report, report
from sscbench.report.diff_cli import diff_command
from sscbench.review.cli import agreement_command, review_app, show_command
from sscbench.run.cli import run_command
from sscbench.run.plan_command import plan_command
from sscbench.run.planning import planned_faults
from sscbench.study.cli import store_app
from sscbench.study.config import StudyConfig
from sscbench.version import __version__
from sscbench.world.cli import conformance, world_app


def _check_campaign(config: StudyConfig, policy: Path) -> JsonObject:
    """``sscbench run --containment POLICY``: the run stage plans the campaign's faulted
    runs, the release layer checks them against the policy's containment plan."""
    return check_campaign(planned_faults(config), policy)


STAGES = ("Set up", "Run", "Measure", "Report", "Release", "Interop")
"""The panels of ``sscbench --help``, in the order of the work."""


def summary(function: Callable[..., object]) -> str:
    """A command's first docstring paragraph on one line: the list in ``--help`` reflows it
    to the terminal's width instead of keeping the source's line breaks."""
    paragraph = (inspect.getdoc(function) or "").split("\n\n")[0]
    return " ".join(paragraph.split())


def _print_version(value: bool) -> None:
    if value:
        print(f"sscbench {__version__}")
        raise typer.Exit()


ORDER: list[str] = []
"""Command and group names in the order they were mounted (the order of the work)."""


class _StageGroup(TyperGroup):
    """Lists commands and groups in the order they were mounted (Typer puts groups last)."""

    def list_commands(self, ctx: Any) -> list[str]:  # typer's vendored click.Context
        """The mounted names in :data:`ORDER`, then any other (none today)."""
        names = super().list_commands(ctx)
        return [n for n in ORDER if n in names] + [n for n in names if n not in ORDER]


app = typer.Typer(
    cls=_StageGroup,
    help="Arrival-aware fault-injection evaluation of tool-using agents.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version, help="Print the version."
    ),
) -> None:
    """Arrival-aware fault-injection evaluation of tool-using agents."""


def _command(name: str, stage: str, command: Callable[..., object]) -> None:
    """Mount one command in its stage's panel."""
    ORDER.append(name)
    app.command(name, short_help=summary(command), rich_help_panel=stage)(command)


def _group(name: str, stage: str, group: typer.Typer, help_text: str) -> None:
    """Mount one group of commands in its stage's panel."""
    ORDER.append(name)
    app.add_typer(group, name=name, help=help_text, rich_help_panel=stage)


# ---- set up: the world, its candidates and cases, the plan ----------------------------------
_group("world", STAGES[0], world_app, "Inspect worlds: describe, check.")
_command("conformance", STAGES[0], conformance)
_command("candidates", STAGES[0], candidates)
_command("admit", STAGES[0], admit_cases)
_command("plan", STAGES[0], plan_command)
# ---- run ------------------------------------------------------------------------------------
_command(
    "run",
    STAGES[1],
    run_command(
        after_runs=measure_and_report,
        on_run=live_traces,
        check_campaign=_check_campaign,
        check_config=check_scoring,
        watch_campaign=watch_campaign,
    ),
)
_command("show", STAGES[1], show_command)
_group("store", STAGES[1], store_app, "The study's run store: convert a per-file study to shards.")
# ---- measure and check the measurement --------------------------------------------------------
_command("measure", STAGES[2], measure)
_command("calibrate", STAGES[2], calibrate)
_command("agreement", STAGES[2], agreement_command)
_group("review", STAGES[2], review_app, "Review runs by hand.")
_command("validate-oracle", STAGES[2], validate_oracle_command)
_command("second-read", STAGES[2], second_read_command)
# ---- report ---------------------------------------------------------------------------------
_command("report", STAGES[3], report)
_command("diff", STAGES[3], diff_command)
# ---- release --------------------------------------------------------------------------------
_group(
    "release",
    STAGES[4],
    release_app,
    "Release evidence of the typed fault families: `release STUDY` (short for `release "
    "evidence STUDY`), `release diff A B`.",
)
_command("gate", STAGES[4], gate_command)
# ---- interop --------------------------------------------------------------------------------
_group("export", STAGES[5], export_app, "Export a study: Inspect logs, OTel traces.")
_command("serve-local", STAGES[5], serve_local)
_group("lab", STAGES[5], lab_app, "Laboratories on the typed fault framework.")


def main() -> None:
    """Entry point for ``python -m sscbench``."""
    app()
