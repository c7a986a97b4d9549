"""The gate's exit-code contract: 0 every verdict passes, 1 a verdict blocks, 2 no verdict
(no such folder, not a study, a study without typed families, a study failing its check,
a bad policy, an unknown configuration) — in text and with --json. No evidence is never
a pass (issue 14, item 9)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config

TYPED = """
[study]
repetitions = 1
concurrency = 2
[world]
source = "generated"
domains = ["airline"]
idempotency_keys = true
[cases]
operators = ["TimeoutAfterCommit"]
per_operator = 6
[[agents]]
id = "keyed"
profile = "idempotent_readback"
[[agents]]
id = "naive"
profile = "naive_retry"
"""

UNTYPED = """
[world]
domains = ["airline"]
[cases]
operators = ["SuppressWrite"]
per_operator = 1
[[agents]]
id = "a"
profile = "trusting"
"""

# keyed retries with its idempotency key (no duplicate write), naive writes twice
POLICY = """
[activation]
min_activated = 2
[[rule]]
metric = "escape"
bound = "upper"
max = 0.9
"""


def _study(base: Path, text: str) -> Path:
    out = base / "study"
    execute_study(parse_config(text, "s.toml"), text, out, progress=False)
    return out


@pytest.fixture(scope="module")
def typed(tmp_path_factory) -> Path:
    return _study(tmp_path_factory.mktemp("typed"), TYPED)


@pytest.fixture(scope="module")
def policy(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("policy") / "policy.toml"
    path.write_text(POLICY)
    return path


def _gate(*args: str):
    return CliRunner().invoke(app, ["gate", *args])


def test_pass_is_exit_0(typed, policy):
    result = _gate(str(typed), str(policy), "--config", "keyed")
    assert result.exit_code == 0, result.output
    assert "PASS keyed" in result.output
    as_json = _gate(str(typed), str(policy), "--config", "keyed", "--json")
    assert as_json.exit_code == 0 and json.loads(as_json.output)[0]["verdict"] == "PASS"


def test_block_is_exit_1(typed, policy):
    result = _gate(str(typed), str(policy))
    assert result.exit_code == 1, result.output
    assert "BLOCK naive" in result.output and "PASS keyed" in result.output
    as_json = _gate(str(typed), str(policy), "--json")
    assert as_json.exit_code == 1
    assert {v["config_id"]: v["verdict"] for v in json.loads(as_json.output)} == {
        "keyed": "PASS",
        "naive": "BLOCK",
    }


def _no_verdict(args: list[str], why: str) -> None:
    result = _gate(*args)
    assert result.exit_code == 2, result.output
    assert why in result.output and "Traceback" not in result.output
    as_json = _gate(*args, "--json")
    assert as_json.exit_code == 2, as_json.output
    data = json.loads(as_json.output)
    assert data["verdict"] == "ERROR" and data["exit_code"] == 2 and why in data["error"]


def test_a_folder_that_does_not_exist_is_exit_2(tmp_path, policy):
    _no_verdict([str(tmp_path / "nowhere"), str(policy)], "no such study folder")


def test_a_folder_that_is_not_a_study_is_exit_2(tmp_path, policy):
    (tmp_path / "empty").mkdir()
    _no_verdict([str(tmp_path / "empty"), str(policy)], "not a study folder")


def test_a_study_without_typed_families_is_exit_2(tmp_path, policy):
    study = _study(tmp_path, UNTYPED)
    _no_verdict([str(study), str(policy)], "ran no typed fault family")


def test_a_study_failing_its_check_is_exit_2(typed, policy, tmp_path):
    damaged = tmp_path / "damaged"
    shutil.copytree(typed, damaged)
    ledger = next((damaged / "runs").glob("*--faulted.ledger.jsonl"))
    ledger.write_text("\n".join(ledger.read_text().splitlines()[:-1]) + "\n")
    _no_verdict([str(damaged), str(policy)], ledger.name)


def test_a_bad_or_missing_policy_is_exit_2(typed, tmp_path):
    _no_verdict([str(typed), str(tmp_path / "none.toml")], "cannot read")
    bad = tmp_path / "bad.toml"
    bad.write_text('[[rule]]\nmetric = "escape"\nbound = "upper"\n')
    _no_verdict([str(typed), str(bad)], "exactly one of 'max' or 'min'")


def test_an_unknown_configuration_is_exit_2(typed, policy):
    _no_verdict([str(typed), str(policy), "--config", "nobody"], "no typed-family runs")


def test_release_without_typed_families_is_exit_2(tmp_path):
    study = _study(tmp_path, UNTYPED)
    result = CliRunner().invoke(app, ["release", str(study)])
    assert result.exit_code == 2 and "ran no typed fault family" in result.output
