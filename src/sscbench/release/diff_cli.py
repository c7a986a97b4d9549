"""``sscbench release diff A B``: two releases' metrics, transfer matrices and controls
side by side (:mod:`sscbench.release.diff` compares; this module prints and writes)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from sscbench.core.files import clean_stale, write_all
from sscbench.errors import DataError, InternalError, naming
from sscbench.json_types import JsonValue
from sscbench.reading import write_csv_rows
from sscbench.release.diff_rows import (
    ControlDiff,
    MetricDiff,
    Named,
    ReleaseDiff,
    Side,
    TransferDiff,
)
from sscbench.terminal import print_error, safe, table_console

_OVERLAP = {True: "yes", False: "NO", None: "—"}


def _signed(value: float | None, latency: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+g} steps" if latency else f"{value * 100:+.1f} pt"


def _label(side: Side) -> str:
    return safe(side["label"] or "—")


def _names(row: Named, what: str) -> list[str]:
    """The row's configuration, family, metric or checkpoint, and A's and B's labels."""
    return [safe(row["config_id"]), safe(row["family"]), what, _label(row["a"]), _label(row["b"])]


def _table(title: str, columns: tuple[str, ...]) -> Table:
    """A left-titled table whose every column folds a long cell rather than cut it."""
    table = Table(title=title, title_justify="left")
    for name in columns:
        table.add_column(name, overflow="fold")
    return table


def _metrics_table(rows: list[MetricDiff], shown: int) -> Table:
    title = f"Metrics A vs B ({shown} of {len(rows)} rows shown)"
    return _table(title, ("config", "family", "metric", "A", "B", "B − A", "overlap"))


def _transfer_table(rows: list[TransferDiff], shown: int) -> Table:
    title = (
        f"Transfer matrix P(checkpoint invalid | activated), A vs B "
        f"({shown} of {len(rows)} cells shown)"
    )
    columns = ("config", "family", "checkpoint", "A", "B", "B − A", "overlap", "first invalid")
    return _table(title, columns)


_CONTROL_NAMES = {"negative_controls": "negative control", "unsolvable": "unsolvable"}


def _controls_table(diff: ReleaseDiff, rows: list[ControlDiff]) -> Table:
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


def print_release_diff(console: Console, diff: ReleaseDiff, show_all: bool) -> None:
    """Print the rows that differ (every row with ``show_all``) and a closing count."""
    console.print(f"A: {safe(diff['a'])}\nB: {safe(diff['b'])}", highlight=False)
    from sscbench.release.diff import LATENCY, changed

    metrics = [r for r in diff["metrics"] if show_all or changed(r)]
    table = _metrics_table(diff["metrics"], len(metrics))
    for m in metrics:
        difference = _signed(m["difference"], m["metric"] == LATENCY)
        table.add_row(*_names(m, m["metric"]), difference, _OVERLAP[m["overlap"]])
    console.print(table)
    cells = [r for r in diff["transfer"] if show_all or changed(r)]
    transfer = _transfer_table(diff["transfer"], len(cells))
    for c in cells:
        first = c["first_invalid"]
        moved = f"{first['a'] or '-'} → {first['b'] or '-'}"
        transfer.add_row(
            *_names(c, c["checkpoint"]), _signed(c["difference"]), _OVERLAP[c["overlap"]], moved
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


def _csv_row(r: Named, what: str) -> list[JsonValue]:
    """A compared row's CSV cells: its configuration, family and ``what`` (the metric,
    checkpoint or rate), each side's estimate, bounds and n, B − A and the overlap."""
    sides = [v for s in (r["a"], r["b"]) for v in (s["estimate"], s["low"], s["high"], s["n"])]
    return [r["config_id"], r["family"], what, *sides, r["difference"], r["overlap"]]


def _csv_text(head: list[str], rows: Iterable[Sequence[JsonValue]]) -> str:
    """A CSV table as text (the one CSV writer, line ends as a file opened for CSV)."""
    buffer = io.StringIO(newline="")
    write_csv_rows(buffer, head, rows)
    return buffer.getvalue()


def write_release_diff(diff: ReleaseDiff, out: Path) -> list[Path]:
    """``release-diff.json``, ``metrics-diff.csv``, ``transfer-diff.csv`` and
    ``controls-diff.csv`` under ``out``, all or nothing (:func:`~sscbench.core.files.
    write_all`: ``out`` may hold the user's own files, so no folder swap)."""
    with naming(out):
        out.mkdir(parents=True, exist_ok=True)
    sides = [f"{side}_{k}" for side in ("a", "b") for k in _SIDES]
    files: dict[Path, str] = {out / "release-diff.json": json.dumps(diff, indent=2, sort_keys=True)}
    head = ["config_id", "family", "metric", *sides, "difference", "overlap"]
    metrics = [_csv_row(r, r["metric"]) for r in diff["metrics"]]
    files[out / "metrics-diff.csv"] = _csv_text(head, metrics)
    head = ["config_id", "family", "checkpoint", *sides, "difference", "overlap"]
    transfer = [_csv_row(r, r["checkpoint"]) for r in diff["transfer"]]
    files[out / "transfer-diff.csv"] = _csv_text(head, transfer)
    head = ["table", "config_id", "family", "rate", *sides, "difference", "overlap"]
    controls = [[r["table"], *_csv_row(r, r["rate"])] for r in diff.get("controls", [])]
    files[out / "controls-diff.csv"] = _csv_text(head, controls)
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
