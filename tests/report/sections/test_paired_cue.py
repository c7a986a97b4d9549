"""The read-back-cue table shows each share with its interval, caveats marked once."""

from __future__ import annotations

from same_runs_rows import cue_run as _run
from sscbench.analysis.cue_check import cue_check_table
from sscbench.report.sections.paired_cue import cue_table


def _text(cell: list[dict[str, str]]) -> str:
    return "".join(p["t"] for p in cell)


def test_cue_table_cells_carry_the_interval_and_its_method(tmp_path):
    cued = {"T_E": 6, "read_back_step": 6, "A": 0, "Z_S": "pre"}
    a = [_run(f"c{i}", cfg, **(cued if i < 2 else {})) for i in range(3) for cfg in "xy"]
    b = [_run(f"c{i}", cfg) for i in range(3) for cfg in "xy"]
    table = cue_table(cue_check_table(a, b), None, None)
    a_col = table.columns.index("a")
    cells = {(_text(r[1]), _text(r[2])): r for r in table.rows}
    per_config = _text(cells[("x", "adoption (A = 1)")][a_col])
    assert per_config.startswith("1/3 (33.3%, 95% CI ") and per_config.endswith("Wilson)")
    together = _text(cells[("all configurations", "adoption (A = 1)")][a_col])
    assert together.startswith("2/6 (33.3%, 95% CI ") and "clustered, n_eff" in together
    notes = " ".join(table.all_notes())
    assert "few clusters" in together and "few clusters:" in notes  # said once, under it
