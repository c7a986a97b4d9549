"""The forest figure of every claim per configuration (issue 41, item 4): PNG and SVG
under figures/, one point per configuration × claim × operator, never a pooled point,
an empty population written as unobserved."""

from __future__ import annotations

import re

from config_rows import faulted_row
from sscbench.analysis.claims import BUILT_IN, claim_cards
from sscbench.report.figures_forest import NAME, forest_figure, forest_rows
from sscbench.report.sections.claims import definition_lines
from sscbench.study.rows import MeasurementRow


def _row(i: int, config: str, operator: str, adopted: int, z_s: str = "pre") -> MeasurementRow:
    t_e = 2 if z_s == "pre" else "inf"
    run_id = f"{config}-{operator}-{i}"
    return faulted_row(
        i, config, adopted, operator=operator, run_id=run_id, T_E=t_e, T_S=3, Z_S=z_s
    )


CONFIGS = ("my-model", "readback", "trusting")
OPERATORS = ("PaySource", "WriteEffect")


def _rows() -> list[MeasurementRow]:
    rows, i = [], 0
    for config in CONFIGS:
        for op in OPERATORS:
            for k in range(3):
                rows.append(_row(i, config, op, int(k < CONFIGS.index(config))))
                i += 1
    return rows


def test_one_point_per_configuration_claim_and_operator(tmp_path):
    claims = [c.name for c in BUILT_IN]
    cards = claim_cards(_rows(), pools=[["my-model", "readback"], ["trusting"]])
    png = forest_figure(cards, claims, list(CONFIGS), tmp_path / "figures")
    assert png and (tmp_path / "figures" / f"{NAME}.png").stat().st_size > 0
    svg = (tmp_path / "figures" / f"{NAME}.svg").read_text()
    points = set(re.findall(r'id="point\|([^"]+)"', svg))
    wanted = {f"{k}|{op}|{c}" for k in claims for op in OPERATORS for c in CONFIGS}
    assert points == wanted  # no pooled point (neither the pool nor all configurations)
    assert len(re.findall(r'id="point\|', svg)) == len(wanted) == 18


def test_rows_are_blocks_per_operator_in_the_study_order():
    cards = claim_cards(_rows())
    rows = forest_rows(cards, ["trusting", "my-model", "readback"])
    assert rows[:4] == [
        ("PaySource", None),
        ("PaySource", "trusting"),
        ("PaySource", "my-model"),
        ("PaySource", "readback"),
    ]
    assert len(rows) == 8


def test_an_empty_population_is_written_not_drawn(tmp_path):
    rows = [_row(i, "late-only", "PaySource", 1, z_s="absent") for i in range(3)]
    cards = claim_cards(rows)
    forest_figure(cards, [c.name for c in BUILT_IN], ["late-only"], tmp_path)
    svg = (tmp_path / f"{NAME}.svg").read_text()
    points = set(re.findall(r'id="point\|([^"]+)"', svg))
    assert points == {"propagation|PaySource|late-only"}
    assert "unobserved (0/0)" in svg


def test_each_claim_word_has_one_plain_line():
    lines = definition_lines(BUILT_IN)
    for claim in BUILT_IN:
        (line,) = [x for x in lines if x.startswith(f"{claim.name}:")]
        assert "\n" not in line
    assert any(x.startswith("adopted (A = 1)") for x in lines)
    assert any(x.startswith("Z_S is arrival") for x in lines)
