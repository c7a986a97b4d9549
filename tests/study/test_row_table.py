"""study/row_table.py: records held column-wise read as the records themselves."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from sscbench.core.values import Stratum
from sscbench.study.row_table import RowTable
from sscbench.study.rows import EvidenceRow, MeasurementRow


def test_a_table_row_reads_as_its_record_and_is_not_updated():
    rows = [
        MeasurementRow.of({"run_id": f"r{i}", "reward": value, "Z_S": "pre"})
        for i, value in enumerate([0, 0.0, 1.0, True, -0.0])
    ] + [MeasurementRow.of({"run_id": "c", "kind": "clean"})]
    table = RowTable(MeasurementRow, rows)
    assert [r.line() for r in table] == [r.line() for r in rows]  # 0 is not 0.0, nor True 1
    assert table[0].Z_S is table[3].Z_S and table[5].Z_S is None and table[-1].kind == "clean"
    assert table[0].Z_S is Stratum.PRE  # an enum member stays one, never its plain value
    assert table[2].has("Z_S") and not table[5].has("Z_S") and not table[2].has("T_F")
    assert table[1] == rows[1] and table[1] != table[2] and table[1:3] == rows[1:3]
    with pytest.raises(AttributeError):
        table[0].Z_S = "late"


def test_equal_nested_models_are_held_once_and_read_back_equal():
    evidence = {"counterevidence_steps": [2], "counterevidence": "read", "uses": []}
    rows = [
        MeasurementRow.of({"run_id": f"r{i}", "Z_S": "pre", "evidence": evidence})
        for i in range(300)
    ]
    table = RowTable(MeasurementRow, rows)
    assert isinstance(table[7].evidence, EvidenceRow) and table[7].evidence == rows[7].evidence
    assert table[7].evidence is table[250].evidence  # one value for the column, not 300
    assert [r.line() for r in table] == [r.line() for r in rows]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    run_id: str


def test_extra_keys_are_kept_per_row():
    rows = [_Open.model_validate({"run_id": "a", "extra": ["x"]}), _Open(run_id="b")]
    table = RowTable(_Open, rows)
    assert table[0].extra == ["x"] and table[0].model_dump() == rows[0].model_dump()
    with pytest.raises(AttributeError):
        print(table[1].extra)  # an extra key the row does not have, as on the record


def test_codes_widen_past_255_and_65535_distinct_values():
    rows = [MeasurementRow.of({"run_id": f"r{i}", "Z_S": "pre", "T_F": i}) for i in range(70_000)]
    table = RowTable(MeasurementRow, rows)
    assert table[300].run_id == "r300" and table[69_999].T_F == 69_999 and table[5].Z_S == "pre"
    assert [r.run_id for r in table[65_530:65_540]] == [f"r{i}" for i in range(65_530, 65_540)]
    assert table[-1].line() == rows[-1].line()


def test_a_row_runs_its_view_methods_without_rebuilding_its_record(monkeypatch):
    rows = [
        MeasurementRow.of({"run_id": "m", "Z_S": "pre", "unread": 2, "T_U": 4, "A": 1}),
        MeasurementRow.of({"run_id": "c", "kind": "clean"}),
        MeasurementRow.of({"run_id": "u", "Z_S": "pre", "T_U": "inf", "A": 0}),
    ]
    table = RowTable(MeasurementRow, rows)
    monkeypatch.setattr(table, "record", lambda index: pytest.fail("record rebuilt"))
    for view, row in zip(table, rows, strict=True):
        assert view.model_fields_set == row.model_fields_set
        assert view.unread_count() == row.unread_count() and view.has("A") == row.has("A")
        assert view.reliance_step() == row.reliance_step()
    assert [r.unread_count() for r in table] == [2, None, None]
