"""``sscbench diff A B``: two studies' config, provenance and claims side by side
(:mod:`sscbench.report.diff` compares; this module prints)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from sscbench.cli_options import fail
from sscbench.errors import DataError
from sscbench.json_types import JsonValue
from sscbench.terminal import plain, safe, table_console

if TYPE_CHECKING:  # the comparison itself is imported when the command runs
    from sscbench.report.diff import Change, ClaimRow, StudyDiff

MAX_CELL = 60  # characters of a config value shown in a cell


def _cell(value: JsonValue) -> str:
    if value is None:
        return "—"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return safe(text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…")


def _fields_table(title: str, rows: list[Change]) -> Table:
    table = Table(title=title, title_justify="left")
    for name in ("field", "A", "B"):
        table.add_column(name, overflow="fold")
    for row in rows:
        table.add_row(safe(row["path"]), _cell(row["a"]), _cell(row["b"]))
    return table


def _percent(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value * 100:+.1f} pt" if signed else f"{value * 100:.1f}%"


def _claims_table(rows: list[ClaimRow], shown: int) -> Table:
    table = Table(title=f"Claims ({shown} of {len(rows)} rows shown)", title_justify="left")
    for name in ("claim", "operator", "configuration", "A", "B", "B − A", "overlap"):
        table.add_column(name, overflow="fold")
    return table


def _claim_cells(row: ClaimRow) -> list[str]:
    overlap = {True: "yes", False: "NO", None: "—"}[row["overlap"]]
    return [
        safe(row["claim"]),
        safe(row["operator"]),
        safe(row["config_id"]),
        safe(row["a"] or "—"),
        safe(row["b"] or "—"),
        _percent(row["difference"], signed=True),
        overlap,
    ]


def print_diff(console: Console, diff: StudyDiff, show_all: bool) -> None:
    """Print the comparison: missing files, config hash and changed fields, provenance,
    and the claims that differ (every claim with ``show_all``)."""
    console.print(f"A: {safe(diff['a'])}\nB: {safe(diff['b'])}", highlight=False)
    for missing in diff["missing"]:
        console.print(f"missing: {safe(missing)} (not compared)", highlight=False)
    config = diff["config"]
    if diff["same_config"]:
        console.print(f"config: the same (hash {str(diff['config_hash']['a'])[:12]}…)")
    elif config is not None:
        console.print(f"config: {len(config)} fields differ")
        console.print(_fields_table("Config", config))
    provenance = diff["provenance"]
    if provenance is not None:
        if provenance:
            console.print(_fields_table("Provenance", provenance))
        else:
            console.print("provenance: the same sscbench, Python and libraries")
    claims = diff["claims"]
    if claims is None:
        return
    changed = [row for row in claims if show_all or not row["same"]]
    if not changed:
        console.print(f"claims: all {len(claims)} the same")
        return
    table = _claims_table(claims, len(changed))
    for row in changed:
        table.add_row(*_claim_cells(row))
    console.print(table)
    apart = sum(1 for row in claims if row["overlap"] is False)
    differ = len(claims) - sum(row["same"] for row in claims)
    console.print(
        f"claims: {differ} of {len(claims)} differ; {apart} with intervals that do not overlap"
    )


def diff_command(
    a: Path = typer.Argument(..., help="the first study directory"),
    b: Path = typer.Argument(..., help="the second study directory"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
    show_all: bool = typer.Option(False, "--all", help="list every claim, not only changed"),
) -> None:
    """Compare two studies: config fields, provenance (sscbench, Python, libraries) and
    the report's claims (A, B, B − A, intervals overlapping). Exit 0 when nothing
    differs, 1 when something does, 2 when a study cannot be read."""
    from sscbench.report.diff import differs, study_diff

    try:
        diff = study_diff(a, b)
    except (DataError, OSError) as exc:
        fail(exc)
    if as_json:
        print(plain(json.dumps(diff, indent=2, sort_keys=True)))
    else:
        print_diff(table_console(), diff, show_all)
    raise typer.Exit(1 if differs(diff) else 0)


__all__ = ["diff_command", "print_diff"]
