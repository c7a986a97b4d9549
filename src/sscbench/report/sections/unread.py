"""The ``unread`` section: how many measured runs carry unread marks, per operator ×
configuration — text the readers met after T_F and could not interpret
(:mod:`sscbench.measure.unread`) — and the marks by kind (``tables/unread.csv``).

A run with marks may be measured wrong without the measurement knowing; these are the
runs to read first (``sscbench review export --unread``). Rows measured before the marks
existed carry no count: they are *not checked*, never "no marks".
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from sscbench.report.context import ReportContext
from sscbench.report.entries import CsvRow
from sscbench.report.model import RunSets, Section, Table, text
from sscbench.study.rows import UNREAD_KINDS, MeasurementRow

ID = "unread"
TITLE = "Unread marks"
POPULATION = "completed faulted runs with a fault contract whose fault was delivered (T_F)"
INTRO = (
    "Unread marks are what measurement met after T_F and could not interpret, about the "
    "affected entity or value: a value-shaped token no reader consumed (unparsed-value), the "
    "entity named beside a word no reader knows (unresolved-mention), a sentence in a "
    "language or script the readers have no forms for (foreign-text), a call or handoff "
    "carrying the entity from which no use was read (unclassified-call). A marked run may be "
    "measured wrong without the measurement knowing: read it first "
    "(sscbench review export --unread). Not checked: rows measured before the marks existed "
    "(run sscbench measure again)."
)


def measured(rows: list[MeasurementRow]) -> list[MeasurementRow]:
    """The runs whose measurement read text after T_F: faulted, triggered."""
    return [r for r in rows if r.kind == "faulted" and isinstance(r.T_F, int)]


def unread_by_run(rows: list[MeasurementRow]) -> dict[str, int | None]:
    """Each measured run's number of marks (None: not checked)."""
    return {r.run_id: r.unread_count() for r in measured(rows)}


def build(ctx: ReportContext) -> Section:
    """The marked runs per operator × configuration, and the marks by kind."""
    if not ctx.primary:
        return ctx.not_sscbench(ID, TITLE)
    return unread_section(measured(ctx.rows), ctx.sets)


def unread_section(rows: list[MeasurementRow], sets: RunSets) -> Section:
    """One line per operator × configuration: runs, marked runs (linked), share, not
    checked, and the marks of each kind. CSV rows: ``unread``."""
    kinds = list(UNREAD_KINDS)
    table = Table(
        "unread-table",
        "Runs carrying unread marks by operator and configuration",
        POPULATION,
        ["operator", "configuration", "runs", "marked", "share", "not checked", *kinds],
        notes=[
            "runs, marked and not checked count runs (linked); share is marked of the "
            "checked runs; the kind columns count marks (a run may carry several)."
        ],
    )
    groups: dict[tuple[str, str], list[MeasurementRow]] = defaultdict(list)
    for r in rows:
        groups[(r.operator or "unknown", r.config_id or "unknown")].append(r)
    csv_rows: list[CsvRow] = []
    for (operator, config), members in sorted(groups.items()):
        line = _line(members)
        table.add(
            operator,
            config,
            sets.count(line.runs),
            sets.count(line.marked),
            text(_share(line)),
            sets.count(line.not_checked),
            *[text(line.kinds[k]) for k in kinds],
        )
        csv_rows.append(
            {
                "operator": operator,
                "config_id": config,
                "runs": len(line.runs),
                "marked": len(line.marked),
                "not_checked": len(line.not_checked),
                **{k: line.kinds[k] for k in kinds},
            }
        )
    section = Section(ID, TITLE, intro=INTRO, tables=[table], csvs={"unread": csv_rows})
    if not rows:
        section.reason = "no faulted run whose fault was delivered"
    return section


@dataclass
class _Line:
    """One operator × configuration of the table: its runs, the marked and the unchecked
    ones, and the marks by kind."""

    runs: list[str]
    marked: list[str]
    not_checked: list[str]
    kinds: Counter[str]


def _line(members: list[MeasurementRow]) -> _Line:
    kinds: Counter[str] = Counter({k: 0 for k in UNREAD_KINDS})
    for r in members:
        kinds.update(mark.kind for mark in r.unread_steps or [])
    return _Line(
        runs=[r.run_id for r in members],
        marked=[r.run_id for r in members if r.unread_count()],
        not_checked=[r.run_id for r in members if r.unread_count() is None],
        kinds=kinds,
    )


def _share(line: _Line) -> str:
    checked = len(line.runs) - len(line.not_checked)
    if not checked:
        return "not checked"
    return f"{100 * len(line.marked) / checked:.0f}%"


def card_note(runs: list[str], unread: dict[str, int | None], sets: RunSets) -> dict[str, str]:
    """A claim card's line on its population's unread marks: "k of n runs in this
    population carry unread marks" (k linked to those runs), or that they were not checked."""
    if not runs:
        return {}
    checked = [r for r in runs if unread.get(r) is not None]
    marked = [r for r in checked if unread[r]]
    if not checked:
        return {"unread_note": "unread marks not checked (measured before they existed)"}
    note = f"{len(marked)} of {len(runs)} runs in this population carry unread marks"
    if len(checked) < len(runs):
        note += f" ({len(runs) - len(checked)} not checked)"
    return {"unread_note": note, "unread_href": sets.href(marked) if marked else ""}
