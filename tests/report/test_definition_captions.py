"""The report's captions and run pages say each definition in its one wording."""

from __future__ import annotations

from markupsafe import escape

from sscbench.analysis.populations import STANCES, cell_entry
from sscbench.core.definitions import T_U_WORDING, Y_END_WORDING, Z_S_WORDING
from sscbench.report.inputs import read_measurements
from sscbench.report.model import RunSets
from sscbench.report.runs import CAPTIONS, MARKS
from sscbench.report.sections.arrival import arrival_section
from sscbench.report.sections.stance import stance_section
from sscbench.report.templates import environment
from sscbench.study.rows import MeasurementRow


def _row(run_id: str, **over) -> MeasurementRow:
    row = {
        "run_id": run_id,
        "case_id": f"case-{run_id}",
        "kind": "faulted",
        "repetition": 0,
        "status": "completed",
        "triggered": True,
        "operator": "WriteEffect",
        "config_id": "c",
        "cluster": run_id,
        "T_F": 3,
        "T_E": 6,
        "T_S": 4,
        "T_U": 4,
        "Z_S": "late",
        "A": 1,
    }
    row.update(over)
    return MeasurementRow.of(row)


def test_arrival_caption_is_the_z_s_definition(tmp_path):
    section = arrival_section([], [], {}, [], RunSets(), tmp_path)
    assert section.intro.endswith(Z_S_WORDING)


def test_stance_caption_matches_what_measurement_records():
    """A run whose messages took no stance has Y_end 'undecidable' (reconstruction's
    rule): the caption must say so, not call it 'none' as it once did."""
    cell = cell_entry(
        "WriteEffect", "c", [_row("r1", Y_end="undecidable"), _row("r2", Y_end="endorses")]
    )
    section = stance_section([cell], RunSets())
    csv_rows = section.csvs["stance"]
    assert Y_END_WORDING in section.intro
    assert "undecidable when no message takes one" in section.intro
    assert "'none' means no explicit stance" not in section.intro
    (row,) = csv_rows
    assert {y: row[y] for y in STANCES} == {
        "endorses": 1,
        "rejects": 0,
        "undecidable": 1,
        "none": 0,
    }


def test_run_page_shows_the_definitions_and_not_applicable_t_u():
    row = _row("r3", A=0, T_U="not-applicable", Z_S="pre", T_E=3, Y_end="rejects")
    html = (
        environment()
        .get_template("run.html.j2")
        .render(
            row=row,
            marks=MARKS,
            captions=CAPTIONS,
            ledger=[],
            measurement="{}",
            contract="",
            evaluator=[],
            why={},
        )
    )
    for wording in (Z_S_WORDING, T_U_WORDING, Y_END_WORDING):
        assert str(escape(wording)) in html
    assert '<td data-mark="T_U">not-applicable</td>' in html


def test_an_older_study_reads_non_adopting_t_u_as_not_applicable(tmp_path):
    rows = [_row("old", A=0, T_U="inf", Z_S="pre", T_E=3), _row("adopted", T_U=4)]
    (tmp_path / "measurements.jsonl").write_text("".join(r.line() for r in rows))
    read = {r.run_id: r.T_U for r in read_measurements(tmp_path)}
    assert read == {"old": "not-applicable", "adopted": 4}
