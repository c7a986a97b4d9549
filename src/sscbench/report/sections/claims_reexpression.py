"""The claims section's re-expression table: adoption as nested counts on one population.

Each row is one operator × configuration (and each operator pooled) of
:func:`sscbench.analysis.reexpression.reexpression`; every count links to its runs, and
the table says the counts are on the same runs, not rates over different populations.
"""

from __future__ import annotations

from collections.abc import Sequence

from sscbench.analysis.reexpression import COUNTS, POPULATION, WORDS
from sscbench.report.entries import CsvRow, Entry, runs_at
from sscbench.report.model import RunSets, Table


def reexpression_table(entries: Sequence[Entry], sets: RunSets) -> Table:
    """Evaluable → adopted → with eventual counterevidence → before first use, then the
    rest of the adopted runs, as counts linked to their runs."""
    table = Table(
        "reexpression-table",
        "Adoption re-expressed as counts on the same evaluable runs",
        POPULATION,
        ["operator", "configuration", *[WORDS[c] for c in COUNTS]],
    )
    for e in entries:
        table.add(
            e["operator"],
            e["config_id"],
            *[sets.count(runs_at(e)[c]) for c in COUNTS],
            key=f"{e['operator']}|{e['config_id']}",
        )
    table.notes.append(
        "Every count is among the same evaluable runs of its row (the paper's WriteEffect "
        "re-expression: 141 evaluable, 101 adopted, 44 with eventual counterevidence, 17 "
        "before first use); they are counts, not conditional rates. The last four columns "
        "split the adopted runs (before and after first use together are the eventual "
        "counterevidence, unless T_S is undecidable)."
    )
    return table


def reexpression_rows(entries: Sequence[Entry]) -> list[CsvRow]:
    """The tidy rows of ``tables/reexpression.csv`` (counts, no run ids)."""
    return [{k: v for k, v in e.items() if k != "runs"} for e in entries]
