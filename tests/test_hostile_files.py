"""Hostile files end as one ``error:`` line naming the file, exit 2 — through the real
commands (issue 42, items 1 and 2): 5,000-level nesting, a byte that is not UTF-8 past
the first 4 KB, 5,000-digit integers, 500-level TOML, and evidence of the wrong shape.
None of these reaches a traceback (exit 1, which ``gate`` uses for BLOCK)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.core.seals import sealed_json

DEEP_JSON = "[" * 5_000 + "]" * 5_000
DIGITS = "9" * 5_000
DEEP_TOML = "x = " + "[" * 500 + "]" * 500 + "\n"


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _one_error(args: list[str], path: Path) -> str:
    """Run the command; assert exit 2 and exactly one ``error:`` line naming ``path``."""
    code, output = _cli(*args)
    assert code == 2, output
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    assert str(path) in errors[0], output
    return errors[0]


def _replay_config(tmp_path: Path, recording: Path, pairs: Path | None = None) -> Path:
    """A study config whose replay agent reads ``recording`` (and ``pairs``)."""
    config = tmp_path / "study.toml"
    pairs_line = f'pairs = "{pairs}"\n' if pairs else ""
    config.write_text(
        '[study]\nfirst_tool_call_only = false\n[world]\ndomains = ["airline"]\n'
        '[cases]\noperators = ["ReturnDate"]\nper_operator = 1\n'
        '[[agents]]\nid = "r"\nkind = "replay"\n[agents.replay]\n'
        f'path = "{recording}"\n{pairs_line}[user]\nkind = "replay"\n',
        "utf-8",
    )
    return config


@pytest.mark.parametrize(
    ("name", "body", "why"),
    [
        ("deep.json", '{"info": {}, "tasks": [], "simulations": ' + DEEP_JSON + "}", "levels"),
        ("late-byte.json", b"[" + b" " * 10_000 + b"\xff]", "not UTF-8"),
        ("digits.json", '[{"x": ' + DIGITS + "}]", "4,300 digits"),
    ],
    ids=["deep", "late-byte", "digits"],
)
def test_a_hostile_recording_is_one_error_line(tmp_path, name, body, why):
    recording = tmp_path / name
    if isinstance(body, bytes):
        recording.write_bytes(body)
    else:
        recording.write_text(body, "utf-8")
    line = _one_error(["plan", str(_replay_config(tmp_path, recording))], recording)
    assert why in line


TAU2 = {"info": {}, "tasks": [], "simulations": []}


@pytest.mark.parametrize(
    "line",
    ['{"case_id": "c", "recording": ' + DEEP_JSON + "}", '{"case_id": ' + DIGITS + "}"],
    ids=["deep", "digits"],
)
def test_a_hostile_pairs_line_is_one_error_line(tmp_path, line):
    recording = tmp_path / "tau2.json"
    recording.write_text(json.dumps(TAU2), "utf-8")
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(line + "\n", "utf-8")
    config = _replay_config(tmp_path, recording, pairs)
    assert "line 1" in _one_error(["plan", str(config)], pairs)


@pytest.mark.parametrize(
    "line",
    [
        '{"run_id": "r", "ignored": ' + DEEP_JSON + "}",
        '{"run_id": "r", "ignored": ' + DIGITS + "}",
    ],
    ids=["deep", "digits"],
)
def test_a_hostile_label_file_is_one_error_line(tmp_path, line):
    labels = tmp_path / "labels.jsonl"
    labels.write_text(line + "\n", "utf-8")
    measurements = tmp_path / "measurements.jsonl"
    measurements.write_text("", "utf-8")
    args = ["agreement", str(tmp_path), "--reference", str(labels)]
    _one_error([*args, "--measurements", str(measurements)], labels)


def test_a_study_config_nested_500_levels_is_one_error_line(tmp_path):
    config = tmp_path / "deep.toml"
    config.write_text(DEEP_TOML, "utf-8")
    assert "levels" in _one_error(["plan", str(config)], config)


def test_a_toml_inline_table_nested_500_levels_is_one_error_line(tmp_path):
    config = tmp_path / "deep.toml"
    config.write_text("x = " + "{a = " * 500 + "1" + "}" * 500 + "\n", "utf-8")
    _one_error(["plan", str(config)], config)


def test_a_deep_gate_policy_is_error_with_json_never_block(tmp_path):
    policy = tmp_path / "deep-policy.toml"
    policy.write_text(DEEP_TOML, "utf-8")
    code, output = _cli("gate", str(tmp_path), str(policy), "--json")
    assert code == 2, output
    verdict = json.loads(output)
    assert verdict["verdict"] == "ERROR" and str(policy) in verdict["error"]
    _one_error(["gate", str(tmp_path), str(policy)], policy)


def test_a_deep_containment_policy_is_one_error_line(tmp_path):
    policy = tmp_path / "deep-policy.toml"
    policy.write_text(DEEP_TOML, "utf-8")
    config = tmp_path / "study.toml"
    config.write_text(
        '[world]\ndomains = ["airline"]\n[cases]\noperators = ["SuppressWrite"]\n'
        'per_operator = 1\n[[agents]]\nid = "a"\nprofile = "trusting"\n',
        "utf-8",
    )
    args = ["run", str(config), "--out", str(tmp_path / "out"), "--containment", str(policy)]
    _one_error([*args, "--no-progress"], policy)


def _release(folder: Path, evidence: str) -> Path:
    folder.mkdir()
    (folder / "evidence.json").write_text(evidence, "utf-8")
    return folder / "evidence.json"


ROW = {"config_id": "c", "family": "f", "metrics": {}}


def test_a_deep_evidence_file_in_release_diff_is_one_error_line(tmp_path):
    good = sealed_json({"families": [ROW], "transfer": []})  # sealed, as written
    _release(tmp_path / "a", good)
    deep = _release(tmp_path / "b", '{"families": [], "transfer": ' + DEEP_JSON + "}")
    _one_error(["release", "diff", str(tmp_path / "a"), str(tmp_path / "b")], deep)


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({**ROW, "metrics": None}, "families[1].metrics"),
        ({**ROW, "metrics": {"escape": 3}}, "families[1].metrics.escape"),
        ({**ROW, "metrics": []}, "families[1].metrics"),
    ],
    ids=["null", "number", "list"],
)
def test_evidence_of_the_wrong_shape_names_the_field(tmp_path, row, field):
    good = sealed_json({"families": [ROW], "transfer": []})  # sealed, as written
    _release(tmp_path / "a", good)
    bad = _release(tmp_path / "b", json.dumps({"families": [ROW, row], "transfer": []}))
    line = _one_error(["release", "diff", str(tmp_path / "a"), str(tmp_path / "b")], bad)
    assert f"field {field}:" in line


def test_an_unexpected_failure_in_the_gate_is_error_not_block(tmp_path, monkeypatch):
    """Any exception the gate did not foresee is no verdict: exit 2 and ``"ERROR"``."""
    import sscbench.release.cli as release_cli

    def boom(_study: Path) -> None:
        raise AttributeError("'NoneType' object has no attribute 'get'")

    monkeypatch.setattr(release_cli, "_study_evidence", boom)
    policy = tmp_path / "policy.toml"
    policy.write_text("", "utf-8")
    code, output = _cli("gate", str(tmp_path), str(policy), "--json")
    assert code == 2, output
    verdict = json.loads(output)
    assert verdict["verdict"] == "ERROR" and "AttributeError" in verdict["error"]
    code, output = _cli("gate", str(tmp_path), str(policy))
    assert code == 2 and output.startswith("error: internal error"), output
    code, output = _cli("release", str(tmp_path))
    assert code == 2 and output.startswith("error: internal error"), output


def test_an_unexpected_failure_in_release_diff_is_exit_2(tmp_path, monkeypatch):
    """``release diff`` exits 1 for "they differ": a failure must not look like that."""
    import sscbench.release.diff as diff

    def boom(_a: Path, _b: Path) -> None:
        raise KeyError("metrics")

    monkeypatch.setattr(diff, "release_diff", boom)
    code, output = _cli("release", "diff", str(tmp_path), str(tmp_path))
    assert code == 2 and output.startswith("error: internal error"), output
