"""The ``stance`` section: Y_end (final stance toward the fault) of adopted runs by
arrival stratum and by whether counterevidence preceded the first faulty reliance; it
says that stance is not repair."""

from __future__ import annotations

from collections.abc import Sequence

from sscbench.analysis.populations import ORDERS, PRIMARY_ADOPTION, STANCES, STRATA
from sscbench.core.definitions import Y_END_WORDING
from sscbench.report.context import ReportContext
from sscbench.report.entries import Entry, runs_at
from sscbench.report.model import RunSets, Section, Table, text

ID = "stance"
TITLE = "Final stance"
NONE_WORDING = "'none' counts rows that carry no Y_end value at all."
ORDER_WORDS = {
    "before": "T_E < T_U",
    "after": "T_E ≥ T_U",
    "absent": "T_E = ∞",
    "undecidable": "order undecidable",
}
NOT_REPAIR = (
    "Stance is not repair: Y_end says whether the agent still endorses the faulty "
    "assertion at the end of observation; it is no evidence that an earlier external "
    "effect (a write or action taken under the fault) was undone."
)


def build(ctx: ReportContext) -> Section:
    """Y_end of the primary population's adopted runs."""
    if not ctx.primary:
        return ctx.not_sscbench(ID, TITLE)
    return stance_section(ctx.cells, ctx.sets)


def stance_section(cells: Sequence[Entry], sets: RunSets) -> Section:
    """Y_end (final stance toward the fault) of adopted runs by arrival stratum, each
    stratum cut by whether counterevidence preceded the first faulty reliance (T_E < T_U,
    as in RQ3); the section says that stance is not repair. CSV rows: ``stance``."""
    table = Table(
        "stance-table",
        "Y_end of adopted runs by arrival stratum and T_E < T_U",
        PRIMARY_ADOPTION,
        ["operator", "configuration", "stratum", "T_E vs T_U", *STANCES],
    )
    csv_rows = []
    for c in cells:
        for s, order in ((s, o) for s in STRATA for o in ORDERS):
            keys = [f"Y_end_{s}_{order}_{y}" for y in STANCES]
            counts = [c[k] for k in keys]
            if not any(counts):
                continue
            where = [c["operator"], c["config_id"], s, ORDER_WORDS[order]]
            table.add(*where, *[sets.count(runs_at(c)[k]) for k in keys])
            named = zip(("operator", "config_id", "stratum", "T_E_vs_T_U"), where, strict=True)
            csv_rows.append(
                {
                    "population": PRIMARY_ADOPTION,
                    **dict(named),
                    **dict(zip(STANCES, counts, strict=True)),
                }
            )
    section = Section(
        ID,
        TITLE,
        intro=f"Population: adopted runs of {PRIMARY_ADOPTION}. {Y_END_WORDING} {NONE_WORDING} "
        "Rows cut each stratum by where counterevidence stood at the first faulty reliance: "
        "T_E < T_U (before), T_E ≥ T_U (at or after), T_E = ∞.",
        tables=[table],
        notes=[text(NOT_REPAIR)],
        csvs={"stance": csv_rows},
    )
    if not table.rows:
        section.reason = "no adopted run in the primary population"
    return section
