"""The ``sscbench`` command line: each package's commands, mounted on one app.

Every command lives in its package's ``cli.py`` (``world/``, ``run/``, ``admission/``,
``measure/``, ``oracles/``, ``report/``, ``release/``, ``review/``, ``lab/``, ``local/``);
the options several commands share are annotated aliases in :mod:`sscbench.cli_options`.
This module only mounts them, in the order ``sscbench --help`` lists them. To add a
command: write it in its package's ``cli.py``, then add one ``app.command(...)`` (or
``app.add_typer(...)``) line below.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from sscbench.admission.cli import admit_cases, candidates
from sscbench.integrations.export_cli import export_app
from sscbench.integrations.otel_live import live_traces
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
from sscbench.world.cli import conformance, world_app


def _check_campaign(config: Any, policy: Path) -> dict[str, Any]:
    """``sscbench run --containment POLICY``: the run stage plans the campaign's faulted
    runs, the release layer checks them against the policy's containment plan."""
    return check_campaign(planned_faults(config), policy)


app = typer.Typer(
    help="Arrival-aware fault-injection evaluation of tool-using agents.",
    no_args_is_help=True,
    add_completion=False,
)

# ---- groups ------------------------------------------------------------------------------
app.add_typer(world_app, name="world")
app.add_typer(lab_app, name="lab", help="Laboratories on the typed fault framework.")
app.add_typer(review_app, name="review", help="Review runs by hand.")
app.add_typer(export_app, name="export", help="Export a study: Inspect logs, OTel traces.")

# ---- commands ------------------------------------------------------------------------------
app.add_typer(release_app, name="release")
app.command("gate")(gate_command)
app.command("serve-local")(serve_local)
app.command("agreement")(agreement_command)
app.command("show")(show_command)
app.command("conformance")(conformance)
app.command("plan")(plan_command)
app.command("run")(
    run_command(
        after_runs=measure_and_report,
        on_run=live_traces,
        check_campaign=_check_campaign,
        check_config=check_scoring,
        watch_campaign=watch_campaign,
    )
)
app.command("candidates")(candidates)
app.command("admit")(admit_cases)
app.command("measure")(measure)
app.command("calibrate")(calibrate)
app.command("validate-oracle")(validate_oracle_command)
app.command("second-read")(second_read_command)
app.command("report")(report)
app.command("diff")(diff_command)
app.add_typer(store_app, name="store")


def main() -> None:
    """Entry point for ``python -m sscbench``."""
    app()
