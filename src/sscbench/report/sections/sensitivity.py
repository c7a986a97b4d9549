"""The ``sensitivity`` section: every sensitivity analysis laid out like the primary
table; its cells are the rows of ``tables/sensitivity.csv``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from sscbench.analysis.sensitivity import (
    ANALYSES,
    COLUMNS,
    DESCRIPTIONS,
    STRICT_OPERATOR,
    sensitivity_table,
)
from sscbench.report.context import ReportContext
from sscbench.report.entries import Entry, text_at
from sscbench.report.model import Section, Table, label_cell

ID = "sensitivity"
TITLE = "Sensitivity analyses"


def build(ctx: ReportContext) -> Section:
    """The sensitivity analyses of the study's contract runs."""
    if not ctx.primary:
        return ctx.not_sscbench(ID, TITLE)
    rows = sensitivity_table(ctx.rows)
    section = sensitivity_section(rows)
    section.csvs["sensitivity"] = rows
    return section


def sensitivity_section(rows: Sequence[Entry]) -> Section:
    """Every sensitivity analysis laid out like the primary table; cells match the CSV."""
    section = Section(
        ID,
        TITLE,
        intro="The primary table recomputed over other stated populations. "
        "Every cell is a row of tables/sensitivity.csv.",
    )
    by_cell: dict[tuple[object, object, object], dict[object, Entry]] = defaultdict(dict)
    for r in rows:
        by_cell[(r["analysis"], r["operator"], r["config_id"])][r["quantity"]] = r
    for i, name in enumerate(ANALYSES):
        table = Table(
            f"sensitivity-table-{i}",
            name,
            DESCRIPTIONS[name],
            ["operator", "configuration", *COLUMNS],
        )
        if name == "strict admission":
            table.notes.append(
                f"The strict admission rule is {STRICT_OPERATOR}'s (paper §V-B): rows of "
                "other operators equal the primary ones."
            )
        for (analysis, op, config), quantities in by_cell.items():
            if analysis != name:
                continue
            keyed = [
                label_cell(text_at(quantities[q], "label"), f"{analysis}|{op}|{config}|{q}")
                for q in COLUMNS
            ]
            table.add(op, config, *keyed)
        section.tables.append(table)
    if not rows:
        section.reason = "no faulted run with a fault contract"
    return section
