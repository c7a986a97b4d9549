"""One interval wording on the page and in every CSV (issue 41, item 4): a cell of the
sensitivity tables says exactly what its row of sensitivity.csv says, and the method's
name in both is :func:`sscbench.analysis.stats.method_name` of the row's method."""

from __future__ import annotations

from config_rows import faulted_row
from sscbench.analysis.claims import claim_cards
from sscbench.analysis.populations import interval_label
from sscbench.analysis.sensitivity import sensitivity_table
from sscbench.analysis.stats import method_name, proportion_interval
from sscbench.report.model import interval_cell, label_cell
from sscbench.report.sections.sensitivity import sensitivity_section
from sscbench.study.rows import MeasurementRow


def _row(i: int, config: str, repetition: int, adopted: int) -> MeasurementRow:
    return faulted_row(
        i,
        config,
        adopted,
        operator="WriteEffect",
        repetition=repetition,
        cluster=f"t{i % 5}",  # five tasks, several runs each: clustered intervals
        run_id=f"{config}-{i}-{repetition}",
        T_E=2,
        T_S=3 + i % 2,
        Z_S="pre",
    )


def _rows() -> list[MeasurementRow]:
    return [
        _row(i, config, rep, int((i + rep) % 3 == 0))
        for config in ("a", "b")
        for i in range(15)
        for rep in (0, 1)
    ]


def test_every_sensitivity_cell_says_what_its_csv_row_says():
    rows = sensitivity_table(_rows())
    section = sensitivity_section(rows)
    page = {}
    for table in section.tables:
        for row in table.rows:
            for cell in row[2:]:
                page[cell[0]["key"]] = "".join(p["t"] for p in cell)
    csv = {f"{r['analysis']}|{r['operator']}|{r['config_id']}|{r['quantity']}": r for r in rows}
    assert page.keys() == csv.keys()
    clustered = 0
    for key, r in csv.items():
        assert page[key] == r["label"], key
        if r["method"] not in ("count", "unobserved"):
            assert f"{method_name(r['method'])}" in page[key]
            clustered += r["method"] == "clustered"
    assert clustered  # the cells that used to differ are covered


def test_a_card_cell_and_its_csv_label_name_the_method_alike():
    interval = proportion_interval([1, 0, 1, 1, 0, 1], ["t1", "t1", "t2", "t2", "t3", "t3"])
    assert interval.method == "clustered"
    assert "".join(p["t"] for p in interval_cell(interval)) == interval_label(interval)
    assert "".join(p["t"] for p in label_cell(interval_label(interval))) == interval_label(interval)
    for card in claim_cards(_rows()):
        if card["status"] == "observed":
            assert f"{method_name(card['method'])}, " in card["label"] or card["method"] == "wilson"
