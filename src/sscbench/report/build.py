"""``sscbench report``: the report folder ``STUDY/report/`` written as one set.

``report.html`` (sections with stable ids, a table of contents, figures inlined),
``tables/*.csv`` (tidy, numeric columns beside the labels), ``figures/*.png|svg``,
``claims.json``, ``runs/`` (the run browser) and ``release/`` (typed families).

The study is read once (:func:`sscbench.report.context.load_context`); each section of
:data:`sscbench.report.sections.SECTIONS` is built from that context, in page order
(the Summary last), and brings its own CSV rows. Everything is built in a fresh folder
beside the old report and swapped in by renames, so a killed ``report`` never leaves
new tables beside an old page; measurements older than the index are refused
(:func:`sscbench.report.inputs.check_fresh`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from sscbench.core.files import replace_folder
from sscbench.jsonl import write_utf8
from sscbench.progress import progress, status
from sscbench.report.context import ReportContext, load_context
from sscbench.report.diff import provenance_line
from sscbench.report.entries import Entry
from sscbench.report.model import Section, write_csv
from sscbench.report.run_sample import RUN_PAGES
from sscbench.report.sections import SECTIONS, SUMMARY
from sscbench.report.templates import environment

__all__ = ["REPORT_DIR", "build_report"]

REPORT_DIR = "report"


def build_report(
    study: str | Path,
    *,
    claims_file: str | Path | None = None,
    paired: str | Path | None = None,
    policy: str | Path | None = None,
    review: str | Path | None = None,
    run_pages: str | None = None,
) -> Path:
    """Write ``STUDY/report/`` as one set; returns the path of its ``report.html``.

    ``claims_file`` adds user-defined claims; ``paired`` names a second measured study
    matched on (case, configuration, repetition); ``policy`` adds the gate verdict;
    ``review`` names the review folder (default: ``STUDY/review/`` when it holds a
    review's agreement.json or reference.jsonl); ``run_pages`` is ``all``, ``sample`` or
    ``none`` (default: ``all`` up to 2,000 runs, ``sample`` above; see
    :mod:`sscbench.report.run_sample`).
    """
    if run_pages is not None and run_pages not in RUN_PAGES:
        raise ValueError(f"run_pages: {run_pages!r} is not one of {', '.join(RUN_PAGES)}")
    study = Path(study)
    staging = study / f".report-build-{os.getpid()}"
    with progress("report: reading measurements"):
        ctx = load_context(
            study,
            staging,
            claims_file=claims_file,
            paired=paired,
            policy=policy,
            review=review,
            run_pages=run_pages,
        )
        return _build(ctx)


def _build(ctx: ReportContext) -> Path:
    """Build the report in the staging folder and swap it in as ``STUDY/report/``."""
    final = ctx.study / REPORT_DIR
    _clean_stale(ctx.study)
    shutil.rmtree(ctx.out, ignore_errors=True)
    ctx.out.mkdir()
    try:
        _write(ctx)
        replace_folder(ctx.out, final)
    finally:
        shutil.rmtree(ctx.out, ignore_errors=True)
    return final / "report.html"


def _clean_stale(study: Path) -> None:
    """Remove half-built or half-swapped folders of earlier, killed builds."""
    for path in study.glob(".report-*"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)


def _write(ctx: ReportContext) -> None:
    """Every section, its CSVs under ``tables/``, and ``report.html``."""
    built: dict[str, Section] = {}
    for part in [*(p for p in SECTIONS if p is not SUMMARY), SUMMARY]:
        status(f"report: {part.TITLE}")
        built[part.ID] = part.build(ctx)
    sections = [built[part.ID] for part in SECTIONS if part is not SUMMARY]
    csvs: dict[str, list[Sequence[Entry]]] = {}
    for section in [built[part.ID] for part in SECTIONS]:  # page order
        for name, rows in section.csvs.items():
            csvs.setdefault(name, []).append(rows)
    for name, parts in csvs.items():
        # one section's rows are written as they are (rows made when read stay so)
        rows = parts[0] if len(parts) == 1 else [row for part in parts for row in part]
        write_csv(ctx.out / "tables" / f"{name}.csv", rows)
    html = (
        environment()
        .get_template("page.html.j2")
        .render(
            name=ctx.study.name,
            headline=built[SUMMARY.ID],
            sections=[s for s in sections if not s.reason],
            skipped=_skipped(sections),
            made=provenance_line(ctx.study),
        )
    )
    write_utf8(ctx.out / "report.html", html)


def _skipped(sections: list[Section]) -> list[tuple[str, list[Section]]]:
    """Sections that do not apply, grouped by their reason (in page order), for the list
    at the end of the page."""
    groups: dict[str, list[Section]] = {}
    for s in sections:
        if s.reason:
            groups.setdefault(s.reason, []).append(s)
    return list(groups.items())
