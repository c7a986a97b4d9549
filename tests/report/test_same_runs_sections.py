"""Counts on the same runs in the report (issue #30 item 3): Table III b's status
disagreements, the crossing denominator, the re-expression table, the stance table cut by
T_E < T_U with its not-repair sentence, Fig. 4's shares with their n and the strict
admission note."""

from __future__ import annotations

from typing import Any

from same_runs_rows import run, write_effect_runs
from sscbench.analysis.populations import (
    cell_table,
    crossing_groups,
    operator_table,
    primary_rows,
    repeated_groups,
)
from sscbench.analysis.reexpression import reexpression
from sscbench.analysis.sensitivity import sensitivity_table
from sscbench.report.figures import gap_bars
from sscbench.report.model import RunSets, Section, Table
from sscbench.report.sections.arrival import arrival_section
from sscbench.report.sections.claims import claims_section
from sscbench.report.sections.reliance import reliance_section
from sscbench.report.sections.sensitivity import sensitivity_section
from sscbench.report.sections.stance import stance_section
from sscbench.report.sections.validation import validation_section


def words(cell: list[dict[str, str]]) -> str:
    """A cell's text."""
    return "".join(p["t"] for p in cell)


def table(section: Section, table_id: str) -> Table:
    """The section's table of that id."""
    return next(t for t in section.tables if t.id == table_id)


def column(t: Table, name: str) -> list[str]:
    """One column's cells as text."""
    i = t.columns.index(name)
    return [words(row[i]) for row in t.rows]


def test_validation_counts_a_status_disagreement_as_a_disagreement():
    rows = [run(0, T_E=3), run(1, T_E=4), run(2, T_E="inf"), run(3, T_E="undecidable")]
    reference = {
        "r0": {"T_E": 3},  # both located, agree
        "r1": {"T_E": "inf"},  # measured a step, reference ∞: disagree
        "r2": {"T_E": 6},  # measured ∞, reference a step: disagree
        "r3": {"T_E": 2},  # measured undecidable: not applicable
    }
    section = validation_section("test", reference, rows, RunSets())
    csv_rows = section.csvs["validation"]
    t_e = next(r for r in csv_rows if r["field"] == "T_E" and r["operator"] == "all operators")
    assert (t_e["agree"], t_e["applicable"]) == (1, 3)
    assert "status disagreement" in section.intro


def test_crossing_note_and_table_give_k_of_n(tmp_path):
    rows = [
        run(0, case_id="a", repetition=0, Z_S="pre", T_E=2),
        run(1, case_id="a", repetition=1, Z_S="late", T_E=8),
        run(2, case_id="b", repetition=0, Z_S="late", T_E=8),
        run(3, case_id="b", repetition=1, Z_S="late", T_E=8),
    ]
    cells, pooled, crossing = cell_table(rows), operator_table(rows), crossing_groups(rows)
    n = len(repeated_groups(rows))
    section = arrival_section(cells, pooled, {}, crossing, RunSets(), tmp_path, repeated=n)
    assert any("1/2 case–configuration groups" in words(n) for n in section.notes)
    assert "1/2" in table(section, "crossing-table").caption


def test_claims_section_shows_the_reexpression_as_counts():
    rows = write_effect_runs()
    section = claims_section([], RunSets(), reexpression(rows))
    t = table(section, "reexpression-table")
    assert column(t, "configuration") == ["F", "all configurations"]
    assert column(t, "evaluable runs")[1] == "10"
    assert column(t, "adopted")[1] == "7"
    assert column(t, "adopted, with eventual counterevidence (T_E finite)")[1] == "5"
    assert column(t, "adopted, counterevidence before first use (T_E < T_S)")[1] == "2"


def test_stance_rows_are_cut_by_t_e_before_t_u_and_say_stance_is_not_repair():
    rows = [
        run(0, T_S=2, T_E=4, T_U=6, Z_S="late", Y_end="rejects"),
        run(1, T_S=2, T_E=4, T_U=2, Z_S="late", Y_end="endorses"),
        run(2, T_S=2, T_E=4, T_U=2, Z_S="late", Y_end="endorses"),
    ]
    section = stance_section(cell_table(rows), RunSets())
    csv_rows = section.csvs["stance"]
    t = table(section, "stance-table")
    assert column(t, "T_E vs T_U") == ["T_E < T_U", "T_E ≥ T_U"]
    assert column(t, "endorses") == ["0", "2"] and column(t, "rejects") == ["1", "0"]
    assert [r["T_E_vs_T_U"] for r in csv_rows] == ["T_E < T_U", "T_E ≥ T_U"]
    assert any("Stance is not repair" in words(n) for n in section.notes)


def test_signed_gap_bars_are_shares_labelled_with_their_n():
    bars = gap_bars([3, 3, -2, "inf"], 5)
    assert bars == [(-2, 0.2, "1/5"), (3, 0.4, "2/5"), ("inf", 0.2, "1/5")]


def test_reliance_figure_caption_gives_each_operators_n(tmp_path):
    rows: list[dict[str, Any]] = [
        *write_effect_runs(),
        run(20, operator="ItemOption", T_E=1, Z_S="pre"),
        run(21, operator="ItemOption", T_E="undecidable", Z_S="undecidable"),
    ]
    primary = primary_rows(rows)
    section = reliance_section(primary, cell_table(rows), operator_table(rows), RunSets(), tmp_path)
    caption = section.figures[0].caption
    assert "ItemOption n = 2" in caption and "WriteEffect n = 7" in caption
    shares = column(table(section, "gap-table"), "share of adopted runs")
    assert shares[0].startswith("1/2")  # the undecidable-order run stays in n
    gaps = section.csvs["gaps"]
    assert {g["adopted"] for g in gaps if g["operator"] == "WriteEffect"} == {7}


def test_strict_admission_table_says_it_applies_to_item_option_only():
    rows = [run(0, operator="ItemOption", literal=False), run(1)]
    section = sensitivity_section(sensitivity_table(rows))
    strict = next(t for t in section.tables if t.caption == "strict admission")
    assert "ItemOption only" in strict.population
    assert any("rows of other operators equal the primary ones" in n for n in strict.notes)
