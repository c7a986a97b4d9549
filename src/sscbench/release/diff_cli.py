"""``sscbench release diff A B``: two releases' metrics, transfer matrices and controls
side by side (:mod:`sscbench.release.diff` compares; this module prints and writes)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from sscbench.core.files import clean_stale, write_all
from sscbench.errors import DataError, InternalError, naming
from sscbench.reading import write_csv_rows
from sscbench.terminal import print_error, safe, table_console

_OVERLAP = {True: "yes", False: "NO", None: "—"}


def _signed(value: float | None, latency: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+g} steps" if latency else f"{value * 100:+.1f} pt"


def _label(side: dict[str, Any]) -> str:
    return safe(side["label"] or "—")


def _names(row: dict[str, Any], what: str) -> list[str]:
    """The row's configuration, family, metric or checkpoint, and A's and B's labels."""
    return [safe(row["config_id"]), safe(row["family"]), what, _label(row["a"]), _label(row["b"])]


def _table(title: str, columns: tuple[str, ...]) -> Table:
    """A left-titled table whose every column folds a long cell rather than cut it."""
    table = Table(title=title, title_justify="left")
    for name in columns:
        table.add_column(name, overflow="fold")
    return table


def _metrics_table(rows: list[dict[str, Any]], shown: int) -> Table:
    title = f"Metrics A vs B ({shown} of {len(rows)} rows shown)"
    return _table(title, ("config", "family", "metric", "A", "B", "B − A", "overlap"))


def _transfer_table(rows: list[dict[str, Any]], shown: int) -> Table:
    title = (
        f"Transfer matrix P(checkpoint invalid | activated), A vs B "
        f"({shown} of {len(rows)} cells shown)"
    )
    columns = ("config", "family", "checkpoint", "A", "B", "B − A", "overlap", "first invalid")
    return _table(title, columns)


_CONTROL_NAMES = {"negative_controls": "negative control", "unsolvable": "unsolvable"}


def _controls_table(diff: dict[str, Any], rows: list[dict[str, Any]]) -> Table:
    """Negative controls (escape, intervention: 0 expected) and unsolvable trials
    (completion: a failure), A vs B; a side written before these were kept is named."""
    total = len(diff.get("controls", []))
    title = (
        f"Controls A vs B: negative controls (escape, intervention) and unsolvable "
        f"trials (completion) ({len(rows)} of {total} rows shown)"
    )
    table = _table(title, ("table", "config", "family", "rate", "A", "B", "B − A", "overlap"))
    kept = diff.get("controls_kept", {})
    for side in ("a", "b"):
        if kept.get(side) is False:
            table.caption = f"{side.upper()} has no control rows (written before they were kept)"
    for r in rows:
        table.add_row(
            _CONTROL_NAMES[r["table"]],
            *_names(r, r["rate"]),
            _signed(r["difference"]),
            _OVERLAP[r["overlap"]],
        )
    return table


def print_release_diff(console: Console, diff: dict[str, Any], show_all: bool) -> None:
    """Print the rows that differ (every row with ``show_all``) and a closing count."""
    console.print(f"A: {safe(diff['a'])}\nB: {safe(diff['b'])}", highlight=False)
    from sscbench.release.diff import LATENCY, changed

    metrics = [r for r in diff["metrics"] if show_all or changed(r)]
    table = _metrics_table(diff["metrics"], len(metrics))
    for r in metrics:
        difference = _signed(r["difference"], r["metric"] == LATENCY)
        table.add_row(*_names(r, r["metric"]), difference, _OVERLAP[r["overlap"]])
    console.print(table)
    cells = [r for r in diff["transfer"] if show_all or changed(r)]
    transfer = _transfer_table(diff["transfer"], len(cells))
    for r in cells:
        first = r["first_invalid"]
        moved = f"{first['a'] or '-'} → {first['b'] or '-'}"
        transfer.add_row(
            *_names(r, r["checkpoint"]), _signed(r["difference"]), _OVERLAP[r["overlap"]], moved
        )
    console.print(transfer)
    controls = diff.get("controls", [])
    console.print(_controls_table(diff, [r for r in controls if show_all or changed(r)]))
    apart = sum(r["overlap"] is False for r in [*diff["metrics"], *diff["transfer"], *controls])
    console.print(
        f"{sum(map(changed, diff['metrics']))} of {len(diff['metrics'])} metric rows, "
        f"{sum(map(changed, diff['transfer']))} of {len(diff['transfer'])} transfer cells and "
        f"{sum(map(changed, controls))} of {len(controls)} control rows "
        f"differ; {apart} with intervals that do not overlap"
    )


_SIDES = ("estimate", "low", "high", "n")


def _csv_rows(rows: list[dict[str, Any]], what: str) -> list[list[Any]]:
    return [
        [r["config_id"], r["family"], r[what]]
        + [r[side][k] for side in ("a", "b") for k in _SIDES]
        + [r["difference"], r["overlap"]]
        for r in rows
    ]


def _csv_text(head: list[str], rows: Any) -> str:
    """A CSV table as text (the one CSV writer, line ends as a file opened for CSV)."""
    buffer = io.StringIO(newline="")
    write_csv_rows(buffer, head, rows)
    return buffer.getvalue()


def write_release_diff(diff: dict[str, Any], out: Path) -> list[Path]:
    """``release-diff.json``, ``metrics-diff.csv``, ``transfer-diff.csv`` and
    ``controls-diff.csv`` under ``out``, all or nothing (:func:`~sscbench.core.files.
    write_all`: ``out`` may hold the user's own files, so no folder swap)."""
    with naming(out):
        out.mkdir(parents=True, exist_ok=True)
    sides = [f"{side}_{k}" for side in ("a", "b") for k in _SIDES]
    files: dict[Path, str] = {out / "release-diff.json": json.dumps(diff, indent=2, sort_keys=True)}
    for name, what, key in (
        ("metrics-diff.csv", "metrics", "metric"),
        ("transfer-diff.csv", "transfer", "checkpoint"),
    ):
        head = ["config_id", "family", key, *sides, "difference", "overlap"]
        files[out / name] = _csv_text(head, _csv_rows(diff[what], key))
    head = ["table", "config_id", "family", "rate", *sides, "difference", "overlap"]
    controls = diff.get("controls", [])
    files[out / "controls-diff.csv"] = _csv_text(
        head,
        ([r["table"], *row] for r, row in zip(controls, _csv_rows(controls, "rate"), strict=True)),
    )
    for path in files:
        clean_stale(path)
    return write_all(files)


def release_diff_command(
    a: Path = typer.Argument(..., help="the first release (STUDY/release or the study)"),
    b: Path = typer.Argument(..., help="the second release (STUDY/release or the study)"),
    out: Path | None = typer.Option(None, "--out", help="write JSON and CSV tables here"),
    as_json: bool = typer.Option(False, "--json", help="print the comparison as JSON"),
    show_all: bool = typer.Option(False, "--all", help="list every row, not only changed"),
) -> None:
    """Compare two releases: the six metrics (activation, detection, containment, escape,
    recovery with their intervals; detection latency), every transfer-matrix cell and the
    controls (negative controls' escapes and interventions, unsolvable completions), A,
    B, B − A and whether the intervals overlap. Exit 0 when nothing differs, 1 when
    something does, 2 when a folder is not a release."""
    from sscbench.release.diff import changed, release_diff

    console = table_console()
    try:
        diff = release_diff(a, b)
        written = write_release_diff(diff, out) if out is not None else []
    except (DataError, OSError) as exc:
        print_error(console, exc)
        raise typer.Exit(2) from None
    except Exception as exc:  # exit 1 means "they differ": an unexpected failure is 2
        print_error(console, InternalError(exc))
        raise typer.Exit(2) from None
    if as_json:
        print(json.dumps(diff, indent=2, sort_keys=True))
    else:
        print_release_diff(console, diff, show_all)
        for path in written:
            console.print(safe(f"wrote {path}"), highlight=False)
    rows = [*diff["metrics"], *diff["transfer"], *diff["controls"]]
    raise typer.Exit(1 if any(map(changed, rows)) else 0)


__all__ = ["print_release_diff", "release_diff_command", "write_release_diff"]
