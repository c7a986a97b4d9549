"""``sscbench export inspect`` and ``sscbench export otel`` (mounted by the main CLI).

Each command imports its extra only when it runs; a missing extra is a clear error
naming the ``pip install`` that provides it.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from sscbench.errors import DataError
from sscbench.progress import progress
from sscbench.study.lock import warn_if_being_written
from sscbench.terminal import plain, print_error

console = Console()
export_app = typer.Typer(
    help="Export a study to other tools: Inspect AI logs, OpenTelemetry traces.",
    no_args_is_help=True,
)


def _fail(exc: Exception) -> None:
    print_error(console, exc)
    raise typer.Exit(2)


def _need(module: str, extra: str) -> None:
    """Exit with the install command when an optional extra is not installed."""
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        _fail(
            DataError(
                f"<extra {extra}>",
                None,
                f"{module} is not installed; install it with: pip install 'sscbench[{extra}]'",
            )
        )


@export_app.command("inspect")
def export_inspect_command(
    study: Path = typer.Argument(..., help="study directory"),
    out: Path = typer.Option(..., "--out", help="the Inspect log to write (.eval or .json)"),
) -> None:
    """The study as an Inspect eval log: one sample per run, the model-visible ledger as
    its messages, the evaluator-only log as events, the measurement as its score."""
    _need("inspect_ai", "inspect")
    from sscbench.integrations.inspect_export import export_inspect

    warn_if_being_written(study)
    try:
        with progress("export inspect: building the eval log"):
            path, count = export_inspect(study, out)
    except (DataError, OSError) as exc:
        _fail(exc)
    print(plain(f"wrote {path}: {count} samples (inspect view --log-dir {path.parent})"))


@export_app.command("otel")
def export_otel_command(
    study: Path = typer.Argument(..., help="study directory"),
    out: Path | None = typer.Option(None, "--out", help="OTLP/JSON lines file to write"),
    endpoint: str | None = typer.Option(
        None, "--endpoint", help="OTLP/HTTP traces URL, e.g. http://127.0.0.1:4318/v1/traces"
    ),
    include_content: bool = typer.Option(
        False,
        "--include-content",
        help="add tool-call arguments, results and the faults' original and delivered values",
    ),
) -> None:
    """The study as OpenTelemetry GenAI traces: one trace per run (invoke_agent and
    execute_tool spans, the fault as a span event, measurement as evaluation events)."""
    _need("opentelemetry.sdk", "otel")
    _need("opentelemetry.exporter.otlp.proto.http", "otel")
    from sscbench.integrations.otel_export import export_otel

    warn_if_being_written(study)
    try:
        with progress("export otel: building the traces"):
            count = export_otel(study, out=out, endpoint=endpoint, include_content=include_content)
    except (DataError, OSError) as exc:
        _fail(exc)
    where = " and ".join(str(x) for x in (out, endpoint) if x is not None)
    print(plain(f"exported {count} traces (one per run) to {where}"))
