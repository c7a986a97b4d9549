"""The ``validation`` section (Table III b): the automatic measurement against reference
labels, per operator and overall, a review's reviewer-agreement panel
(:mod:`~sscbench.report.sections.validation_review`) when the review folder has one, and
the second reader's panel (:mod:`~sscbench.report.sections.validation_second`) when the
rows carry unread marks or the study has ``second_reading.jsonl``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import cast

from sscbench.analysis.populations import interval_label
from sscbench.analysis.stats import wilson
from sscbench.core.values import INF, NOT_APPLICABLE, UNDECIDABLE, is_step
from sscbench.report.context import ReportContext
from sscbench.report.entries import CsvRow, Entry
from sscbench.report.inputs import reference_labels
from sscbench.report.model import Cell, RunSets, Section, Table
from sscbench.report.sections.validation_review import agreement_tables
from sscbench.report.sections.validation_second import second_reading_panel
from sscbench.study.rows import MeasurementRow
from sscbench.study.seal import file_sha256
from sscbench.study.second_reading import study_readings

ID = "validation"
TITLE = "Measurement validation"
VALIDATED = ("A", "Z_S", "T_E", "T_S", "T_U")


def build(ctx: ReportContext) -> Section:
    """Table III b from the study's reference labels, with the reviewers' agreement."""
    if not ctx.primary:
        return ctx.not_sscbench(ID, TITLE)
    folder = ctx.review_folder
    source, reference = reference_labels(ctx.loaded.store, ctx.cases, ctx.primary, folder)
    section = validation_section(source, reference, ctx.primary, ctx.sets)
    _second_reading(ctx, section)
    agreement = ctx.agreement
    if agreement is None or folder is None:
        return section
    kappa_tables, section.csvs["review_agreement"] = agreement_tables(agreement)
    if section.reason:  # no measurement-vs-reference panel, but the κ panel applies
        section.notes.append([{"t": f"No measurement-vs-reference panel: {section.reason}."}])
        section.reason = ""
    where = folder / "agreement.json"
    shown = where.relative_to(ctx.study) if where.is_relative_to(ctx.study) else where
    section.notes.append(
        [
            {
                "t": f"Reviewer agreement before adjudication ({shown}): "
                f"{agreement.unanimous} of {agreement.items} runs unanimous, "
                f"{len(agreement.disputed)} disputed and adjudicated; a "
                "2–1 majority is never accepted."
            }
        ]
    )
    section.tables += kappa_tables
    return section


def _second_reading(ctx: ReportContext, section: Section) -> None:
    """Add the second reader's panel (runs marked unread, sent, answered, and where its
    proposals stand to the rule reading) when the study has unread marks or readings."""
    readings = study_readings(ctx.study)
    measured = file_sha256(ctx.study / "measurements.jsonl")
    panel = second_reading_panel(ctx.measured, readings, ctx.sets, measured)
    if panel is None:
        return
    tables, section.csvs["second_reading"], summary = panel
    if section.reason:  # no measurement-vs-reference panel, but this one applies
        section.notes.append([{"t": f"No measurement-vs-reference panel: {section.reason}."}])
        section.reason = ""
    section.notes.append([{"t": summary}])
    section.tables += tables


def _agree(field: str, measured: object, reference: object) -> bool | None:
    """Whether a measurement matches the reference (None: not applicable)."""
    if field == "A":
        return None if reference not in (0, 1) else measured == reference
    if field == "Z_S":
        return None if reference not in ("pre", "late", "absent") else measured == reference
    if reference is None or measured is None:
        return None  # not labelled, or not measured
    if field == "T_U" and NOT_APPLICABLE in (measured, reference):
        # T_U not applicable (the run did not adopt) is a value: it agrees only with itself
        return None if UNDECIDABLE in (measured, reference) else measured == reference
    located = [is_step(v) for v in (measured, reference)]
    if all(located):  # exact step: both located
        return measured == reference
    if any(located) and all(is_step(v) or v == INF for v in (measured, reference)):
        return False  # a status disagreement: one located, the other ∞ (never happened)
    return None  # undecidable (or unlabelled) on either side


def validation_section(
    source: str, reference: Mapping[str, Entry], primary: list[MeasurementRow], sets: RunSets
) -> Section:
    """Table III b: measurements against reference labels, per operator and overall, with
    the CSV rows (``validation``)."""
    section = Section(
        ID,
        TITLE,
        intro=f"Reference: {source}. Population: triggered runs of repetition 0 "
        "with a reference label; exact-step agreement applies when both locate the event, "
        "and a status disagreement (one locates the event, the other says ∞: it never "
        "happened) counts as a disagreement; T_U not applicable (no adoption) agrees "
        "only with not applicable.",
        csvs={"validation": []},
    )
    csv_rows: list[CsvRow] = []
    section.csvs["validation"] = csv_rows
    runs = [r for r in primary if r.run_id in reference]
    if not runs:
        section.reason = (
            "no reference labels for this study (scripted profiles keep calibration "
            "labels; a reviewer's review/labels.jsonl is read when present)"
        )
        return section
    table = Table(
        "validation-table",
        "Automatic measurement vs reference (Table III b)",
        "triggered faulted runs of repetition 0 with a reference label",
        ["operator", "runs", *[f"{f} agree" for f in VALIDATED]],
    )
    groups: dict[str, list[MeasurementRow]] = defaultdict(list)
    for r in runs:
        groups[cast(str, r.operator)].append(r)  # a faulted run names its operator
        groups["all operators"].append(r)
    for op in sorted(groups, key=lambda k: (k == "all operators", k)):
        members = groups[op]
        cells: list[object] = [op, sets.count([r.run_id for r in members])]
        for f in VALIDATED:
            cell, row = _agreement(f, members, reference, sets)
            cells.append(cell)
            csv_rows.append({"reference": source, "operator": op, **row})
        table.add(*cells, key=op)
    section.tables.append(table)
    return section


def _agreement(
    field: str, members: list[MeasurementRow], reference: Mapping[str, Entry], sets: RunSets
) -> tuple[Cell, CsvRow]:
    """One field's agreement among a group's runs: the cell and its CSV fields."""
    verdicts = [
        (r.run_id, _agree(field, getattr(r, field, None), reference[r.run_id].get(field)))
        for r in members
    ]
    applicable = [(i, v) for i, v in verdicts if v is not None]
    agreed = [i for i, v in applicable if v]
    iv = wilson(len(agreed), len(applicable))
    rest = interval_label(iv).split(" ", 1)[1]
    cell = [
        *sets.count(agreed),
        {"t": "/"},
        *sets.count([i for i, _ in applicable]),
        {"t": f" {rest}"},
    ]
    row = {
        "field": field,
        "agree": len(agreed),
        "applicable": len(applicable),
        "estimate": iv.estimate,
        "low": iv.low,
        "high": iv.high,
        "method": iv.method,
        "label": interval_label(iv),
    }
    return cell, row
