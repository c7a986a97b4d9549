"""The Summary's headline per configuration (issue 41, item 4): a user's model beside a
scripted baseline is never pooled into one number; configurations that are repetitions
of one model are pooled, and the row says so."""

from __future__ import annotations

from config_rows import faulted_row
from sscbench.analysis.claims import claim_cards
from sscbench.analysis.pooling import POOL_SHORT, repetition_pools
from sscbench.analysis.populations import primary_rows
from sscbench.report.model import RunSets
from sscbench.report.sections.headline import headline_section
from sscbench.study.rows import MeasurementRow


def _row(i: int, config: str, adopted: int) -> MeasurementRow:
    return faulted_row(i, config, adopted, T_E=2, T_S=3, Z_S="pre")


def _table(rows: list[MeasurementRow], agents: list[dict]):
    present = sorted({str(r.config_id) for r in rows})
    pools = repetition_pools(agents, present)
    cards = claim_cards(rows, pools=pools)
    section = headline_section(rows, primary_rows(rows), cards, None, RunSets(), "", (), pools)
    (table,) = section.tables
    texts = [["".join(p["t"] for p in cell) for cell in row] for row in table.rows]
    return table, texts


MY_MODEL = {
    "id": "my-model",
    "kind": "openai",
    "endpoint": {"base_url": "http://x/v1", "model": "my-model-8b", "temperature": 0.0},
}


def test_a_model_beside_a_baseline_gets_its_own_rows_and_no_pooled_headline():
    rows = [_row(i, "my-model", 0) for i in range(6)] + [_row(i, "readback", 1) for i in (6, 7)]
    agents = [MY_MODEL, {"id": "readback", "profile": "readback"}]
    table, texts = _table(rows, agents)
    assert table.columns[:2] == ["configuration", "operator"]
    assert [t[:2] for t in texts] == [["my-model", "PaySource"], ["readback", "PaySource"]]
    assert texts[0][2].startswith("0/6 (0.0%") and texts[0][3].startswith("0/6 (0.0%")
    assert texts[1][2].startswith("2/2 (100.0%") and texts[1][3].startswith("2/2 (100.0%")
    flat = " ".join(" ".join(t) for t in texts)
    assert "2/8" not in flat and "pooled" not in flat  # the misleading pooled number is gone
    assert "pooled over configurations" not in table.caption
    assert any("No pooled row" in n for n in table.all_notes())


def test_repetitions_of_one_model_are_pooled_and_labelled():
    seeds = [
        MY_MODEL | {"id": f"run-{s}", "endpoint": MY_MODEL["endpoint"] | {"seed": s}}
        for s in (1, 2)
    ]
    rows = [_row(i, "run-1", int(i < 2)) for i in range(4)]
    rows += [_row(i, "run-2", int(i < 5)) for i in range(4, 8)]
    table, texts = _table(rows, seeds)
    assert [t[0] for t in texts] == [f"run-1 + run-2 (pooled: {POOL_SHORT})", "run-1", "run-2"]
    assert texts[0][2].startswith("3/8 ") and texts[1][2].startswith("2/4 ")
    assert texts[2][2].startswith("1/4 ")
    assert any("repetitions of one model" in n for n in table.all_notes())


def test_one_configuration_needs_no_pool():
    rows = [_row(i, "solo", 1) for i in range(3)]
    table, texts = _table(rows, [{"id": "solo", "profile": "trusting"}])
    assert [t[0] for t in texts] == ["solo"] and texts[0][2].startswith("3/3 ")
    assert any(n.startswith("One configuration") for n in table.all_notes())
