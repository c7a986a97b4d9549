"""The ``paired`` section (``report --paired OTHER``): adoption of matched runs in a
second study, McNemar's exact test, the pair table by configuration and the
read-back-cue table (:mod:`~sscbench.report.sections.paired_cue`)."""

from __future__ import annotations

from collections.abc import Sequence

from sscbench.analysis.cue_check import cue_check_table
from sscbench.analysis.mcnemar import p_label
from sscbench.analysis.sensitivity import paired_comparison
from sscbench.report.context import ReportContext
from sscbench.report.entries import Entry, number_at, text_at
from sscbench.report.model import Section, Table, label_cell
from sscbench.report.sections.paired_cue import cue_table, read_back_cue

ID = "paired"
TITLE = "Paired comparison"
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
OPERATOR_COLUMNS = [
    "operator",
    "pairs",
    "adoption_a",
    "adoption_b",
    "adopted_only_in_a",
    "adopted_only_in_b",
    "mcnemar_exact_p",
]
CONFIG_COLUMNS = [
    "operator",
    "config_id",
    "pairs",
    "adopted_in_both",
    "adopted_only_in_a",
    "adopted_only_in_b",
    "adopted_in_neither",
    "adoption_a",
    "adoption_b",
    "mcnemar_exact_p",
]
POPULATION = "repetition 0, controls excluded, matched triggered runs"


def build(ctx: ReportContext) -> Section:
    """The paired section: matched adoption, the pair table by configuration and the
    read-back-cue table, with their CSV rows (``paired``, ``paired_by_config``,
    ``read_back_cue``)."""
    rows, paired = ctx.rows, ctx.paired
    other = list(ctx.other) if ctx.other is not None else None  # views, not records
    pairs = paired_comparison(rows, other) if other is not None else None
    by_config = paired_comparison(rows, other, by_config=True) if other is not None else None
    section = paired_section(pairs, str(paired.root) if paired else None, by_config)
    if pairs is not None and by_config is not None:
        section.csvs.update(paired=pairs, paired_by_config=by_config)
    if other is not None and paired:
        cue_rows = cue_check_table(rows, other)
        if cue_rows:
            cues = read_back_cue(ctx.loaded.record), read_back_cue(paired.record)
            section.tables.append(cue_table(cue_rows, *cues))
        section.csvs["read_back_cue"] = cue_rows
    return section


def paired_section(
    pairs: Sequence[Entry] | None, other: str | None, by_config: Sequence[Entry] | None = None
) -> Section:
    """Adoption of matched runs in a second study (``--paired``), McNemar's exact test,
    and the pair table per operator and configuration (adopted in both, only in a,
    only in b, in neither)."""
    section = Section(ID, TITLE)
    if pairs is None:
        section.reason = "no second study given (sscbench report STUDY --paired OTHER)"
        return section
    section.intro = (
        f"Study a: this study; study b: {other}. Pairs matched on case, "
        "configuration and repetition 0 (controls excluded), both triggered with decidable "
        "adoption."
    )
    section.tables.append(
        _pair_table("paired-table", "Adoption in matched pairs", pairs, OPERATOR_COLUMNS)
    )
    if by_config:
        caption = "Pair table by configuration: adoption in a × adoption in b"
        section.tables.append(_pair_table("pair-table", caption, by_config, CONFIG_COLUMNS))
    if not pairs:
        section.reason = "the two studies share no matched triggered run"
    return section


def _pair_table(table_id: str, caption: str, rows: Sequence[Entry], columns: list[str]) -> Table:
    """A table of matched pairs, its McNemar notes once under it."""
    table = Table(table_id, caption, POPULATION, [PAIRED_HEADERS[c] for c in columns])
    for p in rows:
        table.add(*[_paired_value(p, c) for c in columns])
    table.notes += sorted({text_at(p, "mcnemar_note") for p in rows if p.get("mcnemar_note")})
    return table


def _paired_value(row: Entry, column: str) -> object:
    """A paired-table cell: adoption labels split from their caveat marker, the McNemar
    p with "(no discordant pairs)" when the exact test had none to weigh."""
    if column in ("adoption_a", "adoption_b"):
        return label_cell(text_at(row, column))
    if column == "mcnemar_exact_p" and row.get("mcnemar_note"):
        return p_label(number_at(row, column), text_at(row, "mcnemar_note"))
    return row[column]
