"""Table II on its own: rows in the paper's order, declared inputs shown, undeclared ones
said, nothing scored explained."""

from __future__ import annotations

from sscbench.oracles.diagnosis import StepByStepJudge
from sscbench.oracles.inputs import call_stats
from sscbench.oracles.invariants import InvariantOracle
from sscbench.report.sections import SECTION_IDS, TITLES
from sscbench.report.sections.oracle_settings import oracle_settings_section
from sscbench.report.sections.oracles import paper_kind

SCHEMA = "sscbench.oracle-scores/1"


def _scored(inputs, calls):
    return {"schema": SCHEMA, "context": "reads things", "inputs": inputs, "calls": calls}


RESULTS = {
    "zz-mine": _scored(None, None),  # an oracle from elsewhere: no inputs declared
    "invariants": _scored(InvariantOracle.inputs.model_dump(), call_stats([None, None])),
    "attribution-step-by-step": _scored(StepByStepJudge.inputs.model_dump(), call_stats([3, 1])),
    "plain": {"all": {"runs": 3}},  # the plain scoring of a verdicts file
}


def test_rows_follow_the_papers_order_and_say_what_is_not_declared():
    section = oracle_settings_section(RESULTS)
    rows = section.csvs["oracle-settings"]
    table = section.tables[0]
    assert table.keys == ["attribution-step-by-step", "invariants", "plain", "zz-mine"]
    cells = {
        key: [" ".join(p["t"] for p in c) for c in row]
        for key, row in zip(table.keys, table.rows, strict=True)
    }
    assert cells["zz-mine"][2] == "not declared" and cells["plain"][2] == "plain scoring"
    assert cells["zz-mine"][-1] == "not recorded"
    invariants = dict(zip(table.columns, cells["invariants"], strict=True))
    assert invariants["mined invariants"] == "✓" and invariants["tool schema"] == "–"
    assert invariants["calls made"] == "0 over 2 judged runs (mean 0, max 0)"
    step = dict(zip(table.columns, cells["attribution-step-by-step"], strict=True))
    assert step["model calls per trajectory"] == "one per agent step, up to the first yes"
    assert step["calls made"] == "4 over 2 judged runs (mean 2, max 3)"
    by_name = {r["oracle"]: r for r in rows}
    assert by_name["invariants"]["mined_invariants"] is True
    assert by_name["zz-mine"]["answer"] is None and by_name["plain"]["judged"] is None


def test_nothing_scored_says_how_to_score_and_the_section_sits_before_table_v():
    section = oracle_settings_section({})
    rows = section.csvs["oracle-settings"]
    assert rows == [] and "validate-oracle" in (section.reason or "")
    assert SECTION_IDS.index("oracle-settings") + 1 == SECTION_IDS.index("oracles")
    assert TITLES["oracle-settings"].startswith("Table II")


def test_table_v_paper_kind_is_the_short_label_or_a_dash():
    assert paper_kind(RESULTS["invariants"]) == "B5"
    assert paper_kind(RESULTS["attribution-step-by-step"]) == "B3 kind"
    assert paper_kind(RESULTS["zz-mine"]) == "–"
