"""The ``arrival`` section (Table IV): pre/late/absent with n/k runs/entities per
operator × configuration, co-delivered operators in one line each, and the
case–configuration groups whose arrival crosses strata across repetitions."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from sscbench.analysis.populations import PRIMARY, STRATA, crossing_groups, repeated_groups
from sscbench.analysis.sensitivity import interval_fields
from sscbench.core.definitions import Z_S_WORDING
from sscbench.report import figures
from sscbench.report.context import ReportContext
from sscbench.report.entries import CsvRow, Entry, int_at, interval_at, runs_at, text_at
from sscbench.report.model import Figure, RunSets, Section, Table, text

ID = "arrival"
TITLE = "Counterevidence arrival"


def build(ctx: ReportContext) -> Section:
    """Table IV of the primary population, with ``arrival`` and ``crossing`` CSV rows."""
    if not ctx.primary:
        return ctx.not_sscbench(ID, TITLE)
    structures = {
        c.operator: c.contract.structure for c in ctx.cases.values() if c.contract is not None
    }
    repeated = repeated_groups(ctx.rows)
    section = arrival_section(
        ctx.cells,
        ctx.pooled,
        structures,
        crossing_groups(ctx.rows),
        ctx.sets,
        ctx.figures,
        repeated=len(repeated),
    )
    section.csvs["crossing"] = [{**g, "strata": json.dumps(g["strata"])} for g in repeated]
    return section


def arrival_section(
    cells: Sequence[Entry],
    by_operator: Sequence[Entry],
    structures: Mapping[str, str],
    crossing: Sequence[Entry],
    sets: RunSets,
    folder: Path,
    *,
    repeated: int | None = None,
) -> Section:
    """Table IV: pre/late/absent with n/k runs/entities per operator × configuration;
    co-delivered operators summarised in one line each; the groups crossing strata as
    k/n, n the groups with decidable arrival in more than one repetition (``repeated``).
    Its CSV rows are ``arrival``."""
    section = Section(
        ID,
        TITLE,
        intro=f"Population: {PRIMARY}; runs in P with decidable Z_S. n/k = runs/entities. "
        + Z_S_WORDING,
    )
    for entry in by_operator:
        if structures.get(text_at(entry, "operator")) == "co-delivered":
            section.notes.append(_co_delivered(entry, sets))
    table = Table(
        "arrival-table",
        "Arrival for acquisition-dependent operators (Table IV)",
        PRIMARY,
        ["operator", "configuration", *STRATA, "decidable n/k", "u_Z"],
    )
    csv_rows: list[CsvRow] = []
    for c in cells:
        runs = runs_at(c)
        row_cells = [[*sets.count(runs[f"arrival_{s}"]), {"t": f"/{c[f'k_{s}']}"}] for s in STRATA]
        if structures.get(text_at(c, "operator")) != "co-delivered":
            decidable = [*sets.count(runs["n_Z"]), {"t": f"/{c['k_Z']}"}]
            table.add(c["operator"], c["config_id"], *row_cells, decidable, sets.count(runs["u_Z"]))
        csv_rows += [_csv_row(c, s) for s in STRATA]
    section.csvs["arrival"] = csv_rows
    if table.rows:
        section.tables.append(table)
    _add_crossing(section, crossing, len(crossing) if repeated is None else repeated)
    png = figures.arrival_figure(cells, folder)
    n = sum(int_at(c, "n_Z") for c in cells)
    figure = Figure(
        "arrival",
        f"Arrival per operator × configuration, n = {n} runs.",
        "stacked bars of pre, late and absent arrival shares",
        png,
    )
    section.figures.append(figure)
    return section


def _co_delivered(entry: Entry, sets: RunSets) -> list[dict[str, str]]:
    """A co-delivered operator's one line: its evaluable runs and how they split."""
    if entry["n_pre"] == entry["n_Z"]:
        words = "received valid counterevidence before first use (pre)"
    else:
        words = "are split " + ", ".join(f"{s} {entry[f'n_{s}']}" for s in STRATA)
    return [
        {"t": f"{entry['operator']} (co-delivered): all "},
        *sets.count(runs_at(entry)["n_Z"]),
        {"t": f" evaluable runs, {entry['k_Z']} entities, {words}."},
    ]


def _csv_row(c: Entry, stratum: str) -> CsvRow:
    """One stratum of one cell in ``arrival.csv``."""
    return {
        "population": PRIMARY,
        "operator": c["operator"],
        "config_id": c["config_id"],
        "stratum": stratum,
        "runs": c[f"n_{stratum}"],
        "entities": c[f"k_{stratum}"],
        **interval_fields(interval_at(c, f"arrival_{stratum}")),
    }


def _add_crossing(section: Section, crossing: Sequence[Entry], n: int) -> None:
    """The groups whose arrival crosses strata across repetitions: a note and a table."""
    share = f"{len(crossing)}/{n}"
    cross = Table(
        "crossing-table",
        f"Case–configuration groups whose arrival crosses strata across repetitions: {share}",
        f"faulted runs of every repetition with decidable Z_S; {share} of the groups with "
        "decidable arrival in more than one repetition",
        ["case", "configuration", "strata by repetition"],
    )
    for g in crossing:
        strata = g["strata"]  # stratum by repetition
        assert isinstance(strata, dict)
        cross.add(g["case_id"], g["config_id"], ", ".join(f"r{k}: {v}" for k, v in strata.items()))
    section.notes.append(
        text(
            f"{share} case–configuration groups with decidable arrival in more than one "
            "repetition cross arrival strata across repetitions."
        )
    )
    if crossing:
        section.tables.append(cross)
