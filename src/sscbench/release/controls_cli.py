"""The campaign's controls in ``sscbench release STUDY``: the negative-controls and the
unsolvable-trials tables on the terminal and as CSV next to ``families.csv``.

The numbers are :mod:`sscbench.release.negative` and :mod:`sscbench.release.unsolvable`
(the same rows the gate checks and the report's release section shows); this module
only lays them out.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from sscbench.analysis.stats import Interval, method_name
from sscbench.core.files import atomic_text_writer
from sscbench.reading import write_csv_rows
from sscbench.terminal import safe

if TYPE_CHECKING:
    from sscbench.release.evidence import ReleaseEvidence

NEGATIVE_CSV = "negative_controls.csv"
UNSOLVABLE_CSV = "unsolvable.csv"


def short(interval: Interval | None) -> str:
    """``k/n estimate [low, high] method`` with the caveat keys after a ⚠; the methods
    and caveats are spelled out once under the tables (``release.cli._legend``)."""
    if interval is None:
        return "—"
    if not interval.observed or interval.estimate is None:
        return f"unobserved ({int(interval.numerator)}/{interval.denominator})"
    tag = method_name(interval.method)
    if interval.method == "clustered" and interval.n_effective is not None:
        tag = f"{tag}, n_eff {interval.n_effective:.3g}"
    elif interval.method != "wilson":
        tag = interval.method_tag()
    caveats = f" ⚠ {', '.join(interval.caveats)}" if interval.caveats else ""
    return (
        f"{int(interval.numerator)}/{interval.denominator} {interval.estimate:.2f} "
        f"[{interval.low:.2f}, {interval.high:.2f}] {tag}{caveats}"
    )


def _table(title: str, columns: tuple[str, ...]) -> Table:
    table = Table(title=safe(title))
    for col in columns:
        table.add_column(col)
    return table


def _flag(count: int) -> str:
    """A count that must be zero: red when it is not."""
    return f"[bold red]{count}[/]" if count else f"[green]{count}[/]"


def negative_controls_table(evidence: ReleaseEvidence) -> Table:
    """One row per (configuration, family) of the runs with no fault injected: escapes
    and interventions (both must be 0: either blocks the gate) and the agent's own
    failures without a fault (shown, not gated)."""
    table = _table(
        "Negative controls: runs with no fault injected (0 escapes, 0 interventions expected)",
        (
            "config",
            "family",
            "runs",
            "escapes",
            "escape rate",
            "with an intervention",
            "intervention rate",
            "agent's own failures",
        ),
    )
    for r in evidence.negative_controls:
        table.add_row(
            safe(r.config_id),
            safe(r.family),
            str(r.runs),
            _flag(r.escapes),
            short(r.escape),
            _flag(r.interfered),
            short(r.intervention),
            str(r.agent_failures),
        )
    return table


def unsolvable_table(evidence: ReleaseEvidence) -> Table:
    """One row per (configuration, unsolvable family): its activated injected runs, how
    many the agent "completed" (a failure) and the safe-stop rate."""
    table = _table(
        "Unsolvable trials: a safe stop is right, a completion is a failure",
        ("config", "family", "runs", "completed (failures)", "completion rate", "safe stop"),
    )
    for u in evidence.unsolvable:
        table.add_row(
            safe(u.config_id),
            safe(u.family),
            str(u.runs),
            _flag(u.completed),
            short(u.completion),
            short(u.safe_stop),
        )
    return table


def control_tables(evidence: ReleaseEvidence) -> list[Table]:
    """The controls' terminal tables (none for a table without rows)."""
    tables = []
    if evidence.negative_controls:
        tables.append(negative_controls_table(evidence))
    if evidence.unsolvable:
        tables.append(unsolvable_table(evidence))
    return tables


_RATE_COLUMNS = ("numerator", "denominator", "estimate", "low", "high", "method")


def _rate(interval: Interval | None) -> list[object]:
    if interval is None:
        return [None] * len(_RATE_COLUMNS)
    return [getattr(interval, k) for k in _RATE_COLUMNS]


def write_control_csvs(evidence: ReleaseEvidence, out: Path) -> list[Path]:
    """``negative_controls.csv`` and ``unsolvable.csv`` under ``out`` (one row per
    configuration, family and rate; written with a header even when empty, so a
    campaign without controls shows it)."""
    negative, unsolvable = out / NEGATIVE_CSV, out / UNSOLVABLE_CSV
    head = ["config_id", "family", "runs", "count", "rate", *_RATE_COLUMNS]
    with atomic_text_writer(negative, newline="") as handle:
        rows = [
            [r.config_id, r.family, r.runs, count, name, *_rate(iv), r.agent_failures]
            for r in evidence.negative_controls
            for name, count, iv in (
                ("escape", r.escapes, r.escape),
                ("intervention", r.interfered, r.intervention),
            )
        ]
        write_csv_rows(handle, [*head, "agent_failures_without_fault"], rows)
    with atomic_text_writer(unsolvable, newline="") as handle:
        rows = [
            [u.config_id, u.family, u.runs, count, name, *_rate(iv)]
            for u in evidence.unsolvable
            for name, count, iv in (
                ("completion", u.completed, u.completion),
                ("safe_stop", u.runs - u.completed, u.safe_stop),
            )
        ]
        write_csv_rows(handle, head, rows)
    return [negative, unsolvable]


__all__ = [
    "NEGATIVE_CSV",
    "UNSOLVABLE_CSV",
    "control_tables",
    "negative_controls_table",
    "short",
    "unsolvable_table",
    "write_control_csvs",
]
