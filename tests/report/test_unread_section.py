"""The report's unread marks: the section's table and CSV per operator × configuration,
and the claim cards' line on their population's marked runs."""

from __future__ import annotations

from sscbench.report.model import RunSets
from sscbench.report.sections import SECTION_IDS
from sscbench.report.sections.unread import card_note, measured, unread_by_run, unread_section
from sscbench.study.rows import MeasurementRow

MARK = {"step": 7, "kind": "foreign-text", "span": "Zorvak plimt du flarnesh"}


def _row(run_id: str, operator: str = "ReturnDate", config: str = "c1", **unread):
    values = {"run_id": run_id, "config_id": config, "kind": "faulted", "operator": operator}
    return MeasurementRow.of({**values, "triggered": True, "T_F": 3, **unread})


ROWS = [
    _row("a", unread=1, unread_steps=[MARK]),
    _row("b", unread=0, unread_steps=[]),
    _row("c"),  # measured before the marks: not checked
    _row(
        "d", operator="PaySource", unread=2, unread_steps=[MARK, {**MARK, "kind": "unparsed-value"}]
    ),
    MeasurementRow.of({"run_id": "clean", "kind": "clean", "Z_S": "clean"}),
]


def test_the_section_is_listed_after_validation():
    assert SECTION_IDS.index("unread") == SECTION_IDS.index("validation") + 1


def test_marked_runs_per_operator_and_configuration():
    rows = measured(ROWS)
    assert [r.run_id for r in rows] == ["a", "b", "c", "d"]
    sets = RunSets()
    section = unread_section(rows, sets)
    csv = {r["operator"]: r for r in section.csvs["unread"]}
    assert csv["ReturnDate"]["runs"] == 3 and csv["ReturnDate"]["marked"] == 1
    assert csv["ReturnDate"]["not_checked"] == 1 and csv["ReturnDate"]["foreign-text"] == 1
    assert csv["PaySource"]["marked"] == 1 and csv["PaySource"]["foreign-text"] == 1
    table = section.tables[0]
    share = {row[0][0]["t"]: row[4][0]["t"] for row in table.rows}
    assert share == {"PaySource": "100%", "ReturnDate": "50%"}  # of the checked runs
    marked = table.rows[1][3][0]
    assert marked["t"] == "1" and sets.sets[int(marked["href"].rsplit("=", 1)[1])] == ["a"]


def test_a_claim_card_names_its_marked_runs():
    unread = unread_by_run(ROWS)
    assert unread == {"a": 1, "b": 0, "c": None, "d": 2}
    sets = RunSets()
    note = card_note(["a", "b", "d"], unread, sets)
    assert note["unread_note"] == "2 of 3 runs in this population carry unread marks"
    assert sets.sets[0] == ["a", "d"]
    partly = card_note(["a", "c"], unread, sets)["unread_note"]
    assert partly == "1 of 2 runs in this population carry unread marks (1 not checked)"
    assert "not checked" in card_note(["c"], unread, sets)["unread_note"]
    assert card_note([], unread, sets) == {}
    assert card_note(["b"], unread, sets) == {
        "unread_note": "0 of 1 runs in this population carry unread marks",
        "unread_href": "",
    }
