"""The ``funnel`` section (Table III a): the primary execution funnel per operator and in
total, n_Z/u_Z, the study's case and qualification selections, and the admission
funnel beside it (:mod:`~sscbench.report.sections.funnel_admission`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sscbench.analysis.populations import PRIMARY
from sscbench.json_types import JsonMapping
from sscbench.report import figures
from sscbench.report.context import ReportContext, recorded_config
from sscbench.report.entries import CsvRow, Entry, int_at, runs_at, text_at
from sscbench.report.model import Figure, RunSets, Section, Table, text
from sscbench.report.sections.funnel_admission import add_admission
from sscbench.terminal import count

ID = "funnel"
TITLE = "Execution funnel"
FUNNEL = (
    "scheduled",
    "not_qualified",
    "missing",
    "observed",
    "not_triggered",
    "triggered",
    "no_use",
    "undecidable_use",
    "measurement_missing",
    "P",
)


def selection_notes(config: JsonMapping) -> list[str]:
    """The study's case and qualification selections, stated beside the funnel.

    ``[cases] prefer`` (e.g. early-trigger) chose which admitted cases run, and an agent
    with ``qualify = "completed"`` ran faulted runs after unsolved clean runs: neither
    may pass silently.
    """
    notes = []
    cases = config.get("cases")
    prefer = cases.get("prefer") if isinstance(cases, dict) else None
    if prefer:
        also = (
            " and whose opening request needs a read before any write"
            if prefer == "read-first"
            else ""
        )
        notes.append(
            f"Selection: cases.prefer = {prefer!r} — candidates whose fault-bearing "
            f"call is an early natural call of the task{also} were screened first; "
            "the cases are not a sample of all admissible candidates."
        )
    agents = config.get("agents")
    loose = [
        str(a["id"])
        for a in (agents if isinstance(agents, list) else [])
        if isinstance(a, dict) and a.get("qualify") == "completed"
    ]
    if loose:
        notes.append(
            f"Selection: agents {', '.join(loose)} qualify a faulted run by a "
            "completed clean run (not reward 1, the paper's protocol)."
        )
    return notes


def build(ctx: ReportContext) -> Section:
    """The funnel of the primary population with the study's admission record."""
    if not ctx.primary:
        return ctx.not_sscbench(ID, TITLE)
    notes = selection_notes(recorded_config(ctx.loaded))
    section = funnel_section(ctx.total, ctx.pooled, ctx.sets, ctx.figures, notes)
    rows = [dict(row) for row in section.csvs["funnel"]]  # admission columns added to each
    add_admission(section, rows, ctx.study, ctx.cases, ctx.loaded.record)
    section.csvs["funnel"] = rows
    return section


def funnel_section(
    total: Entry,
    by_operator: Sequence[Entry],
    sets: RunSets,
    folder: Path,
    notes: Sequence[str] = (),
) -> Section:
    """Table III a: the primary execution funnel per operator and in total, n_Z/u_Z, with
    its CSV rows (``funnel``). ``notes`` are the study's selections
    (:func:`selection_notes`), shown as lines."""
    table = Table(
        "funnel-table",
        "Execution funnel per operator (Table III a)",
        PRIMARY,
        ["operator", *[k.replace("_", " ") for k in FUNNEL], "n_Z/u_Z", "controls in P"],
    )
    csv_rows: list[CsvRow] = []
    for entry in [*by_operator, total]:
        runs = runs_at(entry)
        table.add(
            entry["operator"],
            *[sets.count(runs[k]) for k in FUNNEL],
            [*sets.count(runs["n_Z"]), {"t": "/"}, *sets.count(runs["u_Z"])],
            sets.count(runs["controls"]),
            key=text_at(entry, "operator"),
        )
        counts = {k: entry[k] for k in (*FUNNEL, "n_Z", "u_Z", "controls")}
        csv_rows.append({"population": PRIMARY, "operator": entry["operator"], **counts})
    png = figures.funnel_figure(total, folder)
    figure = Figure(
        "funnel",
        f"Primary funnel, n = {count(int_at(total, 'scheduled'), 'faulted run')}.",
        "bar chart of scheduled, observed, triggered and P runs",
        png,
    )
    return Section(
        ID,
        TITLE,
        intro=f"Population: {PRIMARY}. P holds triggered runs with a decidable first "
        "dependent use; n_Z/u_Z are decidable/undecidable arrival within P. "
        f"P = {total['P']} runs in total.",
        tables=[table],
        notes=[text(n) for n in notes],
        figures=[figure],
        csvs={"funnel": csv_rows},
    )
