"""The ``[oracles]`` table of a study config: checked before any run (fail closed, errors
naming the file and field) and scored by ``sscbench run`` one setting at a time, so a
crash keeps the settings already written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.oracles import registry
from sscbench.oracles.base import OracleSettings, Verdict
from sscbench.oracles.run_scoring import check_scoring, score_configured
from sscbench.study.config import parse_config

BASE = """
[study]
name = "scoring"

[cases]
operators = ["ReturnDate"]
per_operator = 1

[[agents]]
id = "trusting"
profile = "trusting"
"""


def _config(oracles: str, base_dir: Path | None = None):
    return parse_config(BASE + oracles, "study.toml", base_dir=base_dir)


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize(
    ("table", "field", "words"),
    [
        ('[oracles]\nsettings = ["rules", "rules"]\n', "oracles.settings", "repeated"),
        ("[oracles]\nsettings = []\n", "oracles.settings", "at least 1"),
        ('[oracles]\nsettings = ["../x"]\n', "oracles.settings", "letters, digits"),
        (
            '[oracles]\nsettings = ["rules"]\nmodel = "m"\n',
            "oracles.model",
            "not a setting of [oracles]",
        ),
        ('[oracles]\nsettings = ["rules"]\nclean_controls = -1\n', "oracles.clean_controls", ""),
    ],
)
def test_a_malformed_oracles_table_names_the_file_and_field(table, field, words):
    with pytest.raises(DataError) as caught:
        _config(table)
    assert caught.value.field == field and str(caught.value.path) == "study.toml"
    assert words in caught.value.reason


def test_an_llm_setting_without_an_endpoint_stops_before_any_run(tmp_path):
    config = tmp_path / "study.toml"
    config.write_text(BASE + '[oracles]\nsettings = ["rules", "llm-l1"]\n')
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--no-progress"])
    assert result.exit_code == 2
    text = _flat(result.output)
    assert "study.toml" in text and "oracles.endpoint" in text and "'llm-l1'" in text
    assert not out.exists()  # refused before the study was created


def test_an_unknown_setting_and_a_missing_labels_file_are_refused_by_name(tmp_path):
    with pytest.raises(DataError) as caught:
        check_scoring(_config('[oracles]\nsettings = ["rules", "oracle-x"]\n'), "study.toml")
    assert caught.value.field == "oracles.settings[1]" and "oracle-x" in caught.value.reason
    missing = _config('[oracles]\nsettings = ["rules"]\nreference = "labels.jsonl"\n', tmp_path)
    with pytest.raises(DataError) as caught:
        check_scoring(missing, "study.toml")
    assert caught.value.field == "oracles.reference"
    check_scoring(_config('[oracles]\nsettings = ["rules", "step-only"]\n'), "study.toml")


def test_an_llm_setting_with_an_endpoint_passes_the_check(monkeypatch):
    monkeypatch.setenv("SCORING_TEST_KEY", "sk-test")
    table = (
        '[oracles]\nsettings = ["llm-l0"]\n[oracles.endpoint]\n'
        'base_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key_env = "SCORING_TEST_KEY"\n'
    )
    check_scoring(_config(table), "study.toml")  # no call is made by the check


class _Boom:
    name = "boom"
    context = "fails on its first run"
    gives_adoption = True

    def __init__(self, _settings: OracleSettings):
        pass

    def judge(self, run) -> Verdict:
        raise RuntimeError("the judge crashed")

    def close(self) -> None:
        pass


def test_a_crash_mid_scoring_keeps_the_settings_already_written(tiny_study, monkeypatch):
    registry.oracle_names()  # load the built-ins before adding one
    monkeypatch.setitem(registry._FACTORIES, "boom", _Boom)
    config = _config('[oracles]\nsettings = ["rules", "boom", "step-only"]\nseed = 7\n')
    check_scoring(config, "study.toml")
    with pytest.raises(RuntimeError, match="crashed"):
        score_configured(tiny_study, config)
    folder = tiny_study / "oracles"
    rules = json.loads((folder / "rules.json").read_text())
    assert rules["scored_from"]["seed"] == 7  # written before the crash, not after all
    assert not (folder / "boom.json").exists() and not (folder / "step-only.json").exists()
    rerun = _config('[oracles]\nsettings = ["rules", "step-only"]\nseed = 7\n')
    assert score_configured(tiny_study, rerun) == {"rules": "unchanged", "step-only": "scored"}
