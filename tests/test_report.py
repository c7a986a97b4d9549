"""``sscbench report``: tables, claims, figures and an escaped, self-contained HTML page."""

from __future__ import annotations

import csv
import json

import pytest

from sscbench.analysis.claims import claim_cards
from sscbench.analysis.populations import cell_table
from sscbench.errors import DataError
from sscbench.measure.study import measure_study
from sscbench.report.build import build_report
from sscbench.run.config import load_config
from sscbench.run.executor import execute_study


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("study") / "s"
    config, text = load_config(None)
    execute_study(config, text, out, progress=False)
    measure_study(out)
    return out


def test_report_files(study):
    html = build_report(study).read_text()
    for name in ("funnel", "cells", "claims", "crossing"):
        assert (study / "tables" / f"{name}.csv").exists()
    for name in ("funnel", "arrival", "adoption_forest", "gap"):
        assert (study / "figures" / f"{name}.png").stat().st_size > 1000
        assert (study / "figures" / f"{name}.svg").exists()
        assert f'id="fig-{name}"' in html
    claims = json.loads((study / "claims.json").read_text())
    names = {c["claim"] for c in claims}
    assert names == {
        "propagation",
        "adoption with eventual counterevidence",
        "adoption under pre-use counterevidence",
    }
    with (study / "tables" / "cells.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert rows and {"operator", "config_id", "A_T", "q_U", "arrival_pre"} <= set(rows[0])


def test_empty_stratum_is_unobserved_not_zero(study):
    rows = [json.loads(x) for x in (study / "measurements.jsonl").read_text().splitlines()]
    cells = cell_table(rows)
    empty = [c["a_absent"] for c in cells if c["a_absent"].denominator == 0]
    assert empty and all(iv.label() == "unobserved (0/0)" and iv.estimate is None for iv in empty)
    cards = claim_cards(rows)
    assert all(c["status"] == "observed" or c["estimate"] is None for c in cards)


def test_trajectory_text_is_escaped(study, tmp_path):
    rows = [json.loads(x) for x in (study / "measurements.jsonl").read_text().splitlines()]
    rows[0] = {**rows[0], "case_id": "<script>alert(1)</script>"}
    rows.append(
        {
            **next(r for r in rows if r["kind"] == "faulted"),
            "repetition": 1,
            "case_id": "<script>alert(1)</script>",
            "Z_S": "pre",
        }
    )
    rows.append({**rows[-1], "repetition": 2, "Z_S": "late"})
    target = tmp_path / "x"
    target.mkdir()
    (target / "measurements.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    html = build_report(target).read_text()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html


def test_missing_measurements_name_the_file(tmp_path):
    with pytest.raises(DataError, match=r"measurements\.jsonl: not found"):
        build_report(tmp_path)
