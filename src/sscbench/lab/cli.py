"""``lab`` sub-commands (mounted by the main CLI as ``sscbench lab``)."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

from sscbench.faults.typed import CHECKPOINTS, Rate, TerminalClass
from sscbench.lab.address import SYSTEMS, LabResult, run_lab, summary_line
from sscbench.lab.address.harness import first_invalid_name
from sscbench.terminal import safe

lab_app = typer.Typer(help="Typed fault-injection laboratories.", no_args_is_help=True)

_STYLE = {"X": "bold red", "?": "yellow", ".": "green"}
_TERMINAL_STYLE = {
    TerminalClass.ACCEPTABLE: "green",
    TerminalClass.UNKNOWN: "yellow",
    TerminalClass.UNACCEPTABLE: "bold red",
}


@lab_app.callback()
def _lab() -> None:
    """Typed fault-injection laboratories."""


def _rate(rate: Rate) -> str:
    value = rate.value
    shown = "n/a" if value is None else f"{value:.2f}"
    return f"{shown} ({rate.numerator}/{rate.denominator})"


def _metrics_table(result: LabResult) -> Table:
    table = Table(title="Per-system metrics (injected trials only)")
    for col in (
        "system",
        "activation",
        "detection",
        "containment",
        "recovery",
        "escape",
        "latency (cp)",
    ):
        table.add_column(col)
    for system in SYSTEMS:
        m = result.overall(system)
        lat = "-" if m.mean_latency_checkpoints is None else f"{m.mean_latency_checkpoints:.2f}"
        table.add_row(
            system,
            _rate(m.activation),
            _rate(m.detection),
            _rate(m.containment),
            _rate(m.recovery),
            _rate(m.escape),
            lat,
        )
    return table


def _heatmap_table(result: LabResult, system: str) -> Table:
    table = Table(title=f"Transfer heatmap, {system}: P(checkpoint invalid | fault activated)")
    table.add_column("fault")
    for cp in CHECKPOINTS:
        table.add_column(cp.value[:4].upper(), justify="center")
    table.add_column("first invalid")
    table.add_column("terminal")
    for row in result.heatmap(system):
        cells = []
        for cp in CHECKPOINTS:
            sym = row.cells[cp].symbol
            cells.append(f"[{_STYLE[sym]}]{sym}[/]")
        mode = row.terminal_mode
        first = first_invalid_name(row) or "-"
        table.add_row(row.fault, *cells, first, f"[{_TERMINAL_STYLE[mode]}]{mode.value}[/]")
    table.caption = (
        ". valid   ? suspect/unknown   X invalid   (terminal: acceptable / unknown / unacceptable)"
    )
    return table


@lab_app.command("address")
def address(
    as_json: bool = typer.Option(
        False, "--json", help="Print every record, verdict and metric as JSON."
    ),
) -> None:
    """Run the synthetic address-change lab: weak vs bounded, control + five injections."""
    result = run_lab()
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2, sort_keys=True))
        return
    console = Console(width=140)
    console.print("Typed fault-injection lab: synthetic address change", style="bold")
    for system in SYSTEMS:
        control = result.controls[system]
        console.print(
            f"control ({system}): {control.outcome.value}, effects={control.effects}",
            highlight=False,
            markup=False,
        )
    console.print(_metrics_table(result))
    for system in SYSTEMS:
        console.print(safe(summary_line(system, result.overall(system))), highlight=False)
    for system in ("bounded", "weak"):
        console.print(_heatmap_table(result, system))
