"""``sscbench diff A B``: config fields, provenance and claims of two small studies."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.analysis.overlap import overlap
from sscbench.cli import app
from sscbench.report.diff import changes, flatten

STUDY = """
[study]
seed = 5
[world]
domains = ["airline"]
[cases]
operators = ["PaySource", "WriteEffect"]
per_operator = 3
[[agents]]
id = "trusting"
profile = "trusting"
[[agents]]
id = "second"
profile = "PROFILE"
"""


def _study(root: Path, profile: str) -> Path:
    from sscbench.measure.study import measure_study
    from sscbench.report.build import build_report
    from sscbench.run.executor import execute_study
    from sscbench.study.config import parse_config

    text = STUDY.replace("PROFILE", profile)
    execute_study(parse_config(text, "s.toml"), text, root, progress=False)
    measure_study(root)
    build_report(root)
    return root


@pytest.fixture(scope="module")
def studies(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("diff")
    return _study(base / "a", "readback"), _study(base / "b", "trusting")


def _diff(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["diff", *args, "--json"])
    return result.exit_code, json.loads(result.output)


def test_two_studies_differ_in_the_changed_field_and_its_claims(studies):
    a, b = studies
    code, diff = _diff(str(a), str(b))
    assert code == 1 and not diff["same_config"] and diff["missing"] == []
    assert diff["config"] == [{"path": "agents[second].profile", "a": "readback", "b": "trusting"}]
    assert diff["provenance"] == []
    rows = {(r["claim"], r["operator"], r["config_id"]): r for r in diff["claims"]}
    changed = rows[("propagation", "WriteEffect", "second")]
    assert not changed["same"]
    assert changed["difference"] == pytest.approx(changed["estimate_b"] - changed["estimate_a"])
    assert changed["difference"] != 0
    assert rows[("propagation", "WriteEffect", "trusting")]["same"]


def test_a_study_compared_with_itself_differs_in_nothing(studies):
    a, _ = studies
    code, diff = _diff(str(a), str(a))
    assert code == 0 and diff["same_config"] and diff["config"] == []
    assert all(row["same"] and row["difference"] in (0, None) for row in diff["claims"])
    assert any(row["difference"] == 0 for row in diff["claims"])


def test_the_table_names_the_field_and_the_claims(studies):
    a, b = studies
    result = CliRunner().invoke(app, ["diff", str(a), str(b)], env={"COLUMNS": "200"})
    assert result.exit_code == 1
    assert "agents[second].profile" in result.output and "readback" in result.output
    assert "config: 1 fields differ" in result.output
    assert "propagation" in result.output and "WriteEffect" in result.output
    assert "provenance: the same sscbench" in result.output


def test_a_study_without_report_or_provenance_is_compared_where_it_can(studies, tmp_path):
    a, b = studies
    bare = tmp_path / "bare"
    shutil.copytree(b, bare)
    shutil.rmtree(bare / "report")
    meta = json.loads((bare / "config.json").read_text())
    meta["provenance"]["sscbench"] = "0.0.1"
    meta["provenance"]["dependencies"]["numpy"] = "1.0"
    (bare / "config.json").write_text(json.dumps(meta))
    code, diff = _diff(str(a), str(bare))
    assert code == 1 and diff["claims"] is None
    assert diff["missing"] == [f"{bare / 'report' / 'claims.json'} (run sscbench report)"]
    assert diff["config"][0]["path"] == "agents[second].profile"
    paths = {row["path"] for row in diff["provenance"]}
    assert {"sscbench", "dependencies.numpy"} <= paths


def test_a_folder_that_is_not_a_study_is_an_error(studies, tmp_path):
    result = CliRunner().invoke(app, ["diff", str(studies[0]), str(tmp_path)])
    assert result.exit_code == 2 and result.output.startswith("error: ")


def test_the_report_names_what_made_the_study(studies):
    html = (studies[0] / "report" / "report.html").read_text("utf-8")
    assert '<p class="provenance">Made by sscbench ' in html and "Python 3." in html


def test_fields_are_dotted_paths_and_agents_keyed_by_id():
    config = {"study": {"seed": 1}, "agents": [{"id": "x", "p": 1}], "levels": [1, 2]}
    assert flatten(config) == {
        "study.seed": 1,
        "agents[x].id": "x",
        "agents[x].p": 1,
        "levels[0]": 1,
        "levels[1]": 2,
    }
    other = {"study": {"seed": 2}, "agents": [{"id": "x", "p": 1}], "levels": [1]}
    assert changes(config, other) == [
        {"path": "levels[1]", "a": 2, "b": None, "only": "a"},
        {"path": "study.seed", "a": 1, "b": 2},
    ]


def test_intervals_overlap_when_they_share_a_point():
    assert overlap({"low": 0.1, "high": 0.4}, {"low": 0.4, "high": 0.9})
    assert not overlap({"low": 0.1, "high": 0.3}, {"low": 0.4, "high": 0.9})
    assert overlap({"low": None, "high": 0.3}, {"low": 0.4, "high": 0.9}) is None
