"""The ``reliance`` section (Fig. 4): the signed gap T_U − T_E among adopted runs and
q_U = P(T_E < T_U | A = 1) per configuration with a pooled estimate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from sscbench.analysis.populations import PRIMARY_ADOPTION, adopted_primary, gap_of
from sscbench.analysis.sensitivity import interval_fields
from sscbench.core.definitions import T_U_WORDING
from sscbench.report import figures
from sscbench.report.context import ReportContext
from sscbench.report.entries import CsvRow, Entry, interval_at, runs_at, text_at
from sscbench.report.model import Figure, RunSets, Section, Table, rate
from sscbench.study.rows import MeasurementRow

ID = "reliance"
TITLE = "Arrival relative to first faulty reliance"


def build(ctx: ReportContext) -> Section:
    """Fig. 4 of the primary population."""
    if not ctx.primary:
        return ctx.not_sscbench(ID, TITLE)
    return reliance_section(ctx.primary, ctx.cells, ctx.pooled, ctx.sets, ctx.figures)


@dataclass
class Gaps:
    """The adopted runs' signed gaps per operator, and the runs behind each gap value."""

    values: dict[str, list[int | str]] = field(default_factory=dict)
    runs: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    adopted: dict[str, int] = field(default_factory=dict)


def _gaps(primary: list[MeasurementRow]) -> Gaps:
    """Each adopted run's signed gap T_U − T_E, by operator."""
    gaps = Gaps()
    for r in adopted_primary(primary):
        operator = cast(str, r.operator)  # a faulted run names its operator
        gaps.adopted[operator] = gaps.adopted.get(operator, 0) + 1
        g = gap_of(r)
        if g is not None:
            gaps.values.setdefault(operator, []).append(g)
            gaps.runs.setdefault((operator, str(g)), []).append(r.run_id)
    return gaps


def reliance_section(
    primary: list[MeasurementRow],
    cells: Sequence[Entry],
    pooled: Sequence[Entry],
    sets: RunSets,
    folder: Path,
) -> Section:
    """Fig. 4: signed gap T_U − T_E and q_U per configuration with a pooled estimate; CSV
    rows ``cells`` (q_U) and ``gaps``."""
    section = Section(
        ID,
        TITLE,
        intro=f"Population: adopted runs of {PRIMARY_ADOPTION}. q_U = P(T_E < T_U | A = 1). "
        + T_U_WORDING,
    )
    gaps = _gaps(primary)
    table, q_rows = _q_table(cells, pooled, sets)
    gap_table, gap_rows = _gap_table(gaps, sets)
    section.tables += [table, gap_table]
    section.csvs.update(cells=q_rows, gaps=gap_rows)
    by_op = {text_at(c, "operator"): c for c in pooled}
    png = figures.reliance_figure(gaps.values, cells, by_op, folder, gaps.adopted)
    each = ", ".join(f"{op} n = {k}" for op, k in sorted(gaps.adopted.items()))
    caption = (
        f"Signed gap and q_U per operator, n = {sum(gaps.adopted.values())} adopted runs"
        f"{f' ({each})' if each else ''}; bar heights are shares of the operator's n "
        "adopted runs, labelled k/n."
    )
    section.figures.append(
        Figure("reliance", caption, "bar charts of the signed gap and interval plots of q_U", png)
    )
    return section


def _q_table(
    cells: Sequence[Entry], pooled: Sequence[Entry], sets: RunSets
) -> tuple[Table, list[CsvRow]]:
    """q_U per configuration and pooled, and its rows of ``cells.csv``."""
    table = Table(
        "reliance-table",
        "q_U per configuration and pooled (Fig. 4 b/d)",
        PRIMARY_ADOPTION,
        ["operator", "configuration", "q_U before/n_q", "k_q", "u_q", "T_S ≤ T_E < T_U"],
    )
    csv_rows: list[CsvRow] = []
    for c in [*cells, *pooled]:
        runs, q_u = runs_at(c), interval_at(c, "q_U")
        table.add(
            c["operator"],
            c["config_id"],
            rate(q_u, sets, runs["q_U_before"], runs["q_U_ordered"]),
            q_u.n_clusters,
            sets.count(runs["q_U_undecidable"]),
            sets.count(runs["between_anchors"]),
        )
        csv_rows.append(
            {
                "population": PRIMARY_ADOPTION,
                "operator": c["operator"],
                "config_id": c["config_id"],
                "quantity": "q_U",
                "u_q": c["q_U_undecidable"],
                "between_anchors": c["between_anchors"],
                **interval_fields(q_u),
            }
        )
    return table, csv_rows


def _gap_order(item: tuple[tuple[str, str], list[str]]) -> tuple[str, bool, int]:
    """Gaps by operator, then by value, ∞ (absent) last."""
    (op, g), _ = item
    return op, g == "inf", int(g) if g != "inf" else 0


def _gap_table(gaps: Gaps, sets: RunSets) -> tuple[Table, list[CsvRow]]:
    """The signed gap among adopted runs, and the rows of ``gaps.csv``."""
    gap_table = Table(
        "gap-table",
        "Signed gap T_U − T_E among adopted runs (Fig. 4 a/c)",
        PRIMARY_ADOPTION,
        ["operator", "gap", "runs", "share of adopted runs"],
    )
    gap_rows = []
    for (op, g), ids in sorted(gaps.runs.items(), key=_gap_order):
        adopted = gaps.adopted[op]
        share = f"{len(ids)}/{adopted} ({len(ids) / adopted:.0%})"
        gap_table.add(op, "∞ (absent)" if g == "inf" else g, sets.count(ids), share)
        gap_rows.append(
            {
                "population": PRIMARY_ADOPTION,
                "operator": op,
                "gap": g,
                "runs": len(ids),
                "adopted": adopted,
            }
        )
    return gap_table, gap_rows
