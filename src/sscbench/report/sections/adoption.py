"""The ``adoption`` section (Fig. 3): A_T and A_P per configuration and adoption per
arrival stratum, every count linked to its runs (``tables/cells.csv``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sscbench.analysis.populations import PRIMARY_ADOPTION, STRATA
from sscbench.analysis.sensitivity import interval_fields
from sscbench.report import figures
from sscbench.report.context import ReportContext
from sscbench.report.entries import CsvRow, Entry, interval_at, runs_at
from sscbench.report.model import Cell, Figure, RunSets, Section, Table, rate

ID = "adoption"
TITLE = "Adoption"


def build(ctx: ReportContext) -> Section:
    """Fig. 3 of the primary population."""
    if not ctx.primary:
        return ctx.not_sscbench(ID, TITLE)
    return adoption_section(ctx.cells, ctx.pooled, ctx.sets, ctx.figures)


def _stratum(c: Entry, s: str, sets: RunSets) -> Cell:
    """One arrival stratum's adoption: k/n rate and the stratum's total runs and clusters."""
    iv = interval_at(c, f"a_{s}")
    if not iv.observed:
        return [{"t": "0/0/0 unobserved", "cls": "unobserved"}]
    runs = runs_at(c)
    return [
        *rate(iv, sets, runs[f"a_{s}_adopted"], runs[f"a_{s}_evaluable"]),
        {"t": "; stratum total "},
        *sets.count(runs[f"a_{s}_total"]),
        {"t": f"/{c[f'a_{s}_total_clusters']} clusters"},
    ]


def adoption_section(
    cells: Sequence[Entry], pooled: Sequence[Entry], sets: RunSets, folder: Path
) -> Section:
    """Fig. 3: A_T vs A_P per configuration; adoption per arrival stratum; CSV rows
    ``cells`` (one per quantity)."""
    section = Section(
        ID,
        TITLE,
        intro=f"Population: {PRIMARY_ADOPTION}; A_T over "
        "triggered runs. Empty strata read 0/0/0 unobserved.",
    )
    overall = Table(
        "adoption-table",
        "A_T and A_P per configuration (Fig. 3 a/c)",
        PRIMARY_ADOPTION,
        ["operator", "configuration", "A_T", "A_P"],
    )
    strata = Table(
        "adoption-strata-table",
        "Adoption per arrival stratum (Fig. 3 b/d)",
        PRIMARY_ADOPTION,
        ["operator", "configuration", *STRATA],
    )
    csv_rows: list[CsvRow] = []
    for c in [*cells, *pooled]:
        runs = runs_at(c)
        a_t = rate(interval_at(c, "A_T"), sets, runs["A_T_adopted"], runs["A_T_evaluable"])
        a_p = rate(interval_at(c, "A_P"), sets, runs["A_P_adopted"], runs["A_P_evaluable"])
        overall.add(c["operator"], c["config_id"], a_t, a_p)
        strata.add(c["operator"], c["config_id"], *[_stratum(c, s, sets) for s in STRATA])
        for q in ("A_T", "A_P", *[f"a_{s}" for s in STRATA]):
            where = {"operator": c["operator"], "config_id": c["config_id"], "quantity": q}
            csv_rows.append(
                {"population": PRIMARY_ADOPTION, **where, **interval_fields(interval_at(c, q))}
            )
    section.tables += [overall, strata]
    section.csvs["cells"] = csv_rows
    png = figures.adoption_figure(cells, folder)
    triggered = sum(interval_at(c, "A_T").denominator for c in cells)
    figure = Figure(
        "adoption",
        f"Adoption per configuration and arrival stratum, n = {triggered} triggered runs.",
        "interval plots of A_T, A_P and adoption per stratum",
        png,
    )
    section.figures.append(figure)
    return section
