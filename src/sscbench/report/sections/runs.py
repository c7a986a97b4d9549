"""The ``runs`` section: the run browser (:mod:`sscbench.report.runs`) written under
``runs/``, and the section saying how many run pages it has and where its list is."""

from __future__ import annotations

from sscbench.report.context import ReportContext
from sscbench.report.model import Section
from sscbench.report.runs import write_run_pages

ID = "runs"
TITLE = "Run browser"


def build(ctx: ReportContext) -> Section:
    """Write the run pages and the run list (with every run set numbered so far)."""
    pages = write_run_pages(
        ctx.study,
        ctx.out / "runs",
        ctx.measured,
        ctx.cases,
        ctx.sets.each(),
        ctx.loaded.iter_entries(),
        ctx.run_pages,
    )
    return Section(
        ID,
        TITLE,
        intro=f"{pages.words()}; every count in the tables links to the runs behind it.",
        notes=[
            [
                {"t": "Open the run list: "},
                {"t": "runs/index.html", "href": "runs/index.html"},
                {"t": " (filters by operator, configuration, stratum, repetition and kind)."},
            ]
        ],
    )
