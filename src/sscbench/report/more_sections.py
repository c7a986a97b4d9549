"""Sections beyond the primary tables: validation (Table III b), claims, sensitivity and
paired comparison (the oracles section, Table V, is in ``oracle_section.py``)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sscbench.analysis.mcnemar import p_label
from sscbench.analysis.populations import interval_label
from sscbench.analysis.sensitivity import ANALYSES, COLUMNS, DESCRIPTIONS, STRICT_OPERATOR
from sscbench.analysis.stats import wilson
from sscbench.core.values import INF, NOT_APPLICABLE, UNDECIDABLE, is_step
from sscbench.report.model import RunSets, Section, Table, label_cell
from sscbench.report.reexpression_table import reexpression_table

Row = dict[str, Any]
VALIDATED = ("A", "Z_S", "T_E", "T_S", "T_U")


def _agree(field: str, measured: Any, reference: Any) -> bool | None:
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
    source: str, reference: dict[str, Row], primary: list[Row], sets: RunSets
) -> tuple[Section, list[Row]]:
    """Table III b: measurements against reference labels, per operator and overall."""
    section = Section(
        "validation",
        "Measurement validation",
        intro=f"Reference: {source}. Population: triggered runs of repetition 0 "
        "with a reference label; exact-step agreement applies when both locate the event, "
        "and a status disagreement (one locates the event, the other says ∞: it never "
        "happened) counts as a disagreement; T_U not applicable (no adoption) agrees "
        "only with not applicable.",
    )
    runs = [r for r in primary if r.get("run_id") in reference]
    if not runs:
        section.reason = ("no reference labels for this study (scripted profiles keep calibration "
                          "labels; a reviewer's review/labels.jsonl is read when present)")  # fmt: skip
        return section, []
    table = Table("validation-table", "Automatic measurement vs reference (Table III b)",
                  "triggered faulted runs of repetition 0 with a reference label",
                  ["operator", "runs", *[f"{f} agree" for f in VALIDATED]])  # fmt: skip
    groups: dict[str, list[Row]] = defaultdict(list)
    for r in runs:
        groups[r["operator"]].append(r)
        groups["all operators"].append(r)
    csv_rows = []
    for op in sorted(groups, key=lambda k: (k == "all operators", k)):
        members = groups[op]
        cells: list[Any] = [op, sets.count([r["run_id"] for r in members])]
        for f in VALIDATED:
            verdicts = [
                (r["run_id"], _agree(f, r.get(f), reference[r["run_id"]].get(f))) for r in members
            ]
            applicable = [(i, v) for i, v in verdicts if v is not None]
            agreed = [i for i, v in applicable if v]
            iv = wilson(len(agreed), len(applicable))
            rest = interval_label(iv).split(" ", 1)[1]
            cells.append([*sets.count(agreed), {"t": "/"}, *sets.count([i for i, _ in applicable]),
                          {"t": f" {rest}"}])  # fmt: skip
            csv_rows.append({"reference": source, "operator": op, "field": f,
                             "agree": len(agreed), "applicable": len(applicable),
                             "estimate": iv.estimate, "low": iv.low, "high": iv.high,
                             "method": iv.method, "label": interval_label(iv)})  # fmt: skip
        table.add(*cells, key=op)
    section.tables.append(table)
    return section, csv_rows


def claims_section(
    cards: list[Row], sets: RunSets, reexpressed: list[Row] | None = None
) -> Section:
    """Claim cards per operator × configuration and pooled, each with its own population,
    and adoption re-expressed as counts on one population (``reexpressed``, from
    :func:`sscbench.analysis.reexpression.reexpression`)."""
    section = Section(
        "claims",
        "Claims",
        intro="Cards per operator × configuration and pooled over configurations; each names "
        "its required condition, its own population (rule, runs and clusters), k/n runs, "
        "clusters and interval method.",
    )
    for c in cards:
        section.cards.append({**c, "k_href": sets.href(c["counted"]) if c["counted"] else "",
                              "n_href": sets.href(c["runs"]) if c["runs"] else ""})  # fmt: skip
    if reexpressed:
        section.tables.append(reexpression_table(reexpressed, sets))
    if not cards:
        section.reason = "no faulted run with a fault contract"
    return section


def sensitivity_section(rows: list[Row]) -> Section:
    """Every sensitivity analysis laid out like the primary table; cells match the CSV."""
    section = Section("sensitivity", "Sensitivity analyses",
                      intro="The primary table recomputed over other stated populations. "
                      "Every cell is a row of tables/sensitivity.csv.")  # fmt: skip
    by_cell: dict[tuple[str, str, str], dict[str, Row]] = defaultdict(dict)
    for r in rows:
        by_cell[(r["analysis"], r["operator"], r["config_id"])][r["quantity"]] = r
    for i, name in enumerate(ANALYSES):
        table = Table(f"sensitivity-table-{i}", name, DESCRIPTIONS[name],
                      ["operator", "configuration", *COLUMNS])  # fmt: skip
        if name == "strict admission":
            table.notes.append(
                f"The strict admission rule is {STRICT_OPERATOR}'s (paper §V-B): rows of "
                "other operators equal the primary ones."
            )
        for (analysis, op, config), quantities in by_cell.items():
            if analysis != name:
                continue
            table.add(op, config, *[label_cell(quantities[q]["label"], f"{analysis}|{op}|{config}|{q}")
                                    for q in COLUMNS])  # fmt: skip
        section.tables.append(table)
    if not rows:
        section.reason = "no faulted run with a fault contract"
    return section


def paired_section(
    pairs: list[Row] | None, other: str | None, by_config: list[Row] | None = None
) -> Section:
    """Adoption of matched runs in a second study (``--paired``), McNemar's exact test,
    and the pair table per operator and configuration (adopted in both, only in a,
    only in b, in neither)."""
    section = Section("paired", "Paired comparison")
    if pairs is None:
        section.reason = "no second study given (sscbench report STUDY --paired OTHER)"
        return section
    section.intro = (f"Study a: this study; study b: {other}. Pairs matched on case, "
                     "configuration and repetition 0 (controls excluded), both triggered with decidable "
        "adoption.")  # fmt: skip
    columns = [
        "operator",
        "pairs",
        "adoption_a",
        "adoption_b",
        "adopted_only_in_a",
        "adopted_only_in_b",
        "mcnemar_exact_p",
    ]
    table = Table(
        "paired-table",
        "Adoption in matched pairs",
        "repetition 0, controls excluded, matched triggered runs",
        [PAIRED_HEADERS[c] for c in columns],
    )
    for p in pairs:
        table.add(*[_paired_value(p, c) for c in columns])
    table.notes += sorted({p["mcnemar_note"] for p in pairs if p.get("mcnemar_note")})
    section.tables.append(table)
    if by_config:
        cells = ["operator", "config_id", "pairs", "adopted_in_both", "adopted_only_in_a"]
        cells += ["adopted_only_in_b", "adopted_in_neither", "adoption_a", "adoption_b"]
        cells.append("mcnemar_exact_p")
        pair_table = Table(
            "pair-table",
            "Pair table by configuration: adoption in a × adoption in b",
            "repetition 0, controls excluded, matched triggered runs",
            [PAIRED_HEADERS[c] for c in cells],
        )
        for p in by_config:
            pair_table.add(*[_paired_value(p, c) for c in cells])
        pair_table.notes += sorted({p["mcnemar_note"] for p in by_config if p.get("mcnemar_note")})
        section.tables.append(pair_table)
    if not pairs:
        section.reason = "the two studies share no matched triggered run"
    return section


PAIRED_HEADERS = {
    "operator": "operator",
    "config_id": "configuration",
    "pairs": "pairs",
    "adoption_a": "adoption in a",
    "adoption_b": "adoption in b",
    "adopted_in_both": "adopted in both",
    "adopted_only_in_a": "adopted only in a",
    "adopted_only_in_b": "adopted only in b",
    "adopted_in_neither": "adopted in neither",
    "mcnemar_exact_p": "McNemar exact p",
}


def _paired_value(row: Row, column: str) -> Any:
    """A paired-table cell: adoption labels split from their caveat marker, the McNemar
    p with "(no discordant pairs)" when the exact test had none to weigh."""
    if column in ("adoption_a", "adoption_b"):
        return label_cell(row[column])
    if column == "mcnemar_exact_p" and row.get("mcnemar_note"):
        return p_label(row[column], row["mcnemar_note"])
    return row[column]
