"""``sscbench report``: the report folder ``STUDY/report/`` written as one set.

``report.html`` (sections with stable ids, a table of contents, figures inlined),
``tables/*.csv`` (tidy, numeric columns beside the labels), ``figures/*.png|svg``,
``claims.json``, ``runs/`` (the run browser) and ``release/`` (typed families).

Everything is built in a fresh folder beside the old report and swapped in by renames,
so a killed ``report`` never leaves new tables beside an old page; measurements older
than the index are refused (:func:`sscbench.report.inputs.check_fresh`).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from sscbench.analysis.claims import BUILT_IN, claim_cards
from sscbench.analysis.cue_check import cue_check_table
from sscbench.analysis.populations import (
    cell_entry,
    cell_table,
    crossing_groups,
    operator_table,
    primary_rows,
    repeated_groups,
)
from sscbench.analysis.reexpression import reexpression
from sscbench.analysis.sensitivity import paired_comparison, sensitivity_table
from sscbench.analysis.user_claims import load_claims
from sscbench.core.files import replace_folder
from sscbench.jsonl import write_utf8
from sscbench.progress import progress, status
from sscbench.release.evidence import collect_evidence
from sscbench.report import core_sections as core
from sscbench.report import more_sections as more
from sscbench.report.admission_panel import add_admission
from sscbench.report.configurations_section import configurations_section
from sscbench.report.cost_section import cost_section
from sscbench.report.cue_section import cue_table
from sscbench.report.diff import provenance_line
from sscbench.report.headline import headline_section, typed_claims
from sscbench.report.inputs import (
    check_fresh,
    oracle_results,
    read_cases,
    read_measurements,
    reference_labels,
)
from sscbench.report.model import RunSets, Section, write_csv
from sscbench.report.oracle_section import oracles_section
from sscbench.report.oracle_settings_section import TITLE as ORACLE_SETTINGS_TITLE
from sscbench.report.oracle_settings_section import oracle_settings_section
from sscbench.report.recordings_section import recordings_section
from sscbench.report.reexpression_table import reexpression_rows
from sscbench.report.release_section import release_section
from sscbench.report.review_panel import agreement_tables, find_review, read_review
from sscbench.report.run_sample import RUN_PAGES
from sscbench.report.runs import RunPages, write_run_pages
from sscbench.report.templates import environment

__all__ = ["REPORT_DIR", "SECTION_IDS", "build_report", "read_measurements"]

REPORT_DIR = "report"
SECTION_IDS = (
    "headline",
    "configurations",
    "funnel",
    "validation",
    "arrival",
    "adoption",
    "reliance",
    "stance",
    "claims",
    "sensitivity",
    "paired",
    "oracle-settings",
    "oracles",
    "release",
    "recordings",
    "cost",
    "runs",
)
SSCBENCH = SECTION_IDS[2:10]
TITLES = {
    "configurations": "Table I — Configurations",
    "funnel": "Execution funnel",
    "validation": "Measurement validation",
    "arrival": "Counterevidence arrival",
    "adoption": "Adoption",
    "reliance": "Arrival relative to first faulty reliance",
    "stance": "Final stance",
    "claims": "Claims",
    "sensitivity": "Sensitivity analyses",
    "oracle-settings": ORACLE_SETTINGS_TITLE,
}
Row = dict[str, Any]


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
    with progress("report: reading measurements"):
        return _build(Path(study), claims_file, paired, policy, review, run_pages)


def _build(
    study: Path, claims_file: Any, paired: Any, policy: Any, review: Any, run_pages: str | None
) -> Path:
    review_folder = find_review(study, Path(review) if review is not None else None)
    agreement = read_review(review_folder)  # a bad agreement.json stops before any work
    started = time.perf_counter()
    measured = read_measurements(study)
    check_fresh(study, measured)
    claims = BUILT_IN + (load_claims(claims_file) if claims_file else ())
    other = read_measurements(Path(paired)) if paired else None
    if paired and other is not None:
        check_fresh(Path(paired), other)  # the paired study's measurements are checked too
    final = study / REPORT_DIR
    _clean_stale(study)
    staging = study / f".report-build-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        _write(
            study,
            staging,
            measured,
            claims,
            other,
            paired,
            policy,
            started,
            (review_folder, agreement),
            run_pages,
        )
        replace_folder(staging, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return final / "report.html"


def _clean_stale(study: Path) -> None:
    """Remove half-built or half-swapped folders of earlier, killed builds."""
    for path in study.glob(".report-*"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)


def _paired(
    study: Path, rows: list[Row], other: list[Row] | None, paired: Any, csvs: dict[str, Any]
) -> Section:
    """The ``paired`` section (``--paired OTHER``): matched adoption, the pair table by
    configuration and the read-back-cue table; their CSV rows go into ``csvs``."""
    pairs = paired_comparison(rows, other) if other is not None else None
    by_config = paired_comparison(rows, other, by_config=True) if other is not None else None
    section = more.paired_section(pairs, str(paired) if paired else None, by_config)
    if pairs is not None and by_config is not None:
        csvs["paired"], csvs["paired_by_config"] = pairs, by_config
    if other is not None and paired:
        cue_rows = cue_check_table(rows, other)
        if cue_rows:
            section.tables.append(cue_table(cue_rows, study, Path(paired)))
        csvs["read_back_cue"] = cue_rows
    return section


def _write(
    study: Path,
    out: Path,
    measured: list[Row],
    claims: Any,
    other: list[Row] | None,
    paired: Any,
    policy: Any,
    started: float,
    review: tuple[Any, Any],
    run_pages: str | None = None,
) -> None:
    cases = read_cases(study)
    rows = [r for r in measured if _has_contract(r, cases)]  # typed runs: release section
    primary = primary_rows(rows)
    status("report: tables and figures")
    sets = RunSets()
    tables, figs = out / "tables", out / "figures"
    sections: list[Section] = []
    csvs: dict[str, list[Row]] = {}
    cards: list[Row] = []
    evidence = collect_evidence(study)
    configurations, csvs["configurations"] = configurations_section(study, sets)
    sections.append(configurations)  # Table I: directly after the headline
    if primary:
        more_sections, cards = _sscbench_sections(
            study, rows, primary, cases, claims, sets, figs, csvs, review
        )
        sections += more_sections
    else:
        reason = "the study has no faulted run with a fault contract (SSCBench operators)"
        if evidence.families:
            reason += "; its faulted runs are typed fault families (Release evidence)"
        sections += [Section(i, TITLES[i], reason=reason) for i in SSCBENCH]
    sections.append(_paired(study, rows, other, paired, csvs))
    status("report: oracles, release, recordings and cost")
    scored = oracle_results(study)
    settings, csvs["oracle-settings"] = oracle_settings_section(scored)
    oracle, csvs["oracles"] = oracles_section(scored)
    sections += [settings, oracle]
    release, release_rows = release_section(
        study, out / "release", Path(policy) if policy else None, evidence
    )
    sections.append(release)
    csvs.update(release_rows)
    recordings, recording_rows = recordings_section(study, sets)
    sections.append(recordings)
    csvs.update(recording_rows)
    cost, cost_rows = cost_section(study, sets)
    sections.append(cost)
    csvs.update(cost_rows)
    csvs["claims"] = [{k: v for k, v in c.items() if k not in ("runs", "counted")} for c in cards]
    csvs["claims"] += typed_claims(evidence)
    write_utf8(out / "claims.json", json.dumps(csvs["claims"], indent=2))
    pages = write_run_pages(study, out / "runs", measured, cases, sets.sets, run_pages)
    sections.append(_browser_section(pages))
    for name, data in csvs.items():
        write_csv(tables / f"{name}.csv", data)
    built = f"Built in {time.perf_counter() - started:.1f} s."
    headline = headline_section(measured, primary, cards, evidence, sets, built)
    html = (
        environment()
        .get_template("page.html.j2")
        .render(
            name=study.name,
            headline=headline,
            sections=[s for s in sections if not s.reason],
            skipped=_skipped(sections),
            made=provenance_line(study),
        )
    )
    write_utf8(out / "report.html", html)


def _browser_section(pages: RunPages) -> Section:
    """The run browser's section: how many run pages, and the list's link."""
    return Section(
        "runs",
        "Run browser",
        intro=f"{pages.words()}; every count in the tables links to the runs behind it.",
        notes=[
            [
                {"t": "Open the run list: "},
                {"t": "runs/index.html", "href": "runs/index.html"},
                {"t": " (filters by operator, configuration, stratum, repetition and kind)."},
            ]
        ],
    )


def _skipped(sections: list[Section]) -> list[tuple[str, list[Section]]]:
    """Sections that do not apply, grouped by their reason (in page order), for the list
    at the end of the page."""
    groups: dict[str, list[Section]] = {}
    for s in sections:
        if s.reason:
            groups.setdefault(s.reason, []).append(s)
    return list(groups.items())


def _recorded_config(study: Path) -> dict[str, Any]:
    """The config the study recorded (``config.json``), or ``{}`` when there is none."""
    try:
        return json.loads((study / "config.json").read_text("utf-8")).get("config") or {}
    except (OSError, ValueError, AttributeError):
        return {}


def _has_contract(row: Row, cases: dict[str, Any]) -> bool:
    """Whether a run belongs to the SSCBench tables: its case has a fault contract (runs of
    typed families, also not-qualified or missing ones, are release evidence)."""
    if row.get("Z_S") == "no-contract":
        return False
    case = cases.get(row.get("case_id", ""))
    return case is None or case.contract is not None


def _sscbench_sections(
    study: Path,
    rows: list[Row],
    primary: list[Row],
    cases: dict[str, Any],
    claims: Any,
    sets: RunSets,
    figs: Path,
    csvs: dict[str, list[Row]],
    review: tuple[Any, Any] = (None, None),
) -> tuple[list[Section], list[Row]]:
    cells = cell_table(rows)
    pooled = operator_table(rows)
    total = cell_entry("all operators", "all configurations", primary)
    structures = {
        c.operator: c.contract.structure for c in cases.values() if c.contract is not None
    }
    funnel, csvs["funnel"] = core.funnel_section(
        total, pooled, sets, figs, core.selection_notes(_recorded_config(study))
    )
    add_admission(funnel, csvs["funnel"], study, cases)
    folder, agreement = review
    source, reference = reference_labels(study, primary, folder)
    validation, csvs["validation"] = more.validation_section(source, reference, primary, sets)
    if agreement is not None:
        kappa_tables, csvs["review_agreement"] = agreement_tables(agreement)
        if validation.reason:  # no measurement-vs-reference panel, but the κ panel applies
            validation.notes.append(
                [{"t": f"No measurement-vs-reference panel: {validation.reason}."}]
            )
            validation.reason = ""
        where = folder / "agreement.json"
        shown = where.relative_to(study) if where.is_relative_to(study) else where
        validation.notes.append(
            [
                {
                    "t": f"Reviewer agreement before adjudication ({shown}): "
                    f"{agreement.unanimous} of {agreement.items} runs unanimous, "
                    f"{len(agreement.disputed)} disputed and adjudicated; a "
                    "2–1 majority is never accepted."
                }
            ]
        )
        validation.tables += kappa_tables
    arrival, csvs["arrival"] = core.arrival_section(
        cells,
        pooled,
        structures,
        crossing_groups(rows),
        sets,
        figs,
        repeated=len(repeated_groups(rows)),
    )
    adoption, csvs["cells"] = core.adoption_section(cells, pooled, sets, figs)
    reliance, q_rows, csvs["gaps"] = core.reliance_section(primary, cells, pooled, sets, figs)
    csvs["cells"] += q_rows
    stance, csvs["stance"] = core.stance_section(cells, sets)
    cards = claim_cards(rows, claims)
    sensitivity = sensitivity_table(rows)
    csvs["sensitivity"] = sensitivity
    csvs["crossing"] = [{**g, "strata": json.dumps(g["strata"])} for g in repeated_groups(rows)]
    reexpressed = reexpression(rows)
    csvs["reexpression"] = reexpression_rows(reexpressed)
    return [
        funnel,
        validation,
        arrival,
        adoption,
        reliance,
        stance,
        more.claims_section(cards, sets, reexpressed),
        more.sensitivity_section(sensitivity),
    ], cards
