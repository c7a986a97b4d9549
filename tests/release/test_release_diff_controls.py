"""``sscbench release diff A B`` on the campaign's controls: the negative controls'
escape and intervention rates and the unsolvable trials' completion rate, A, B, B − A
and overlap, in the terminal table, the JSON, ``controls-diff.csv`` and the exit code;
a release written before the controls were kept shows its side empty, not as zero."""

from __future__ import annotations

import csv
import json

import pytest
from typer.testing import CliRunner

from sscbench.analysis.stats import proportion_interval
from sscbench.cli import app
from sscbench.core.seals import sealed_json
from sscbench.release.cli import write_outputs
from sscbench.release.diff import release_diff
from sscbench.release.evidence import ReleaseEvidence
from sscbench.release.negative import NegativeControlRow
from sscbench.release.unsolvable import UnsolvableRow


def _rate(k: int, n: int):
    return proportion_interval([1] * k + [0] * (n - k), [f"t{i}" for i in range(n)])


def _evidence(escapes: int, leaks: int, completed: int) -> ReleaseEvidence:
    n = 10
    negative = NegativeControlRow(
        "keyed", "TimeoutAfterCommit", n, escapes, leaks, 0, _rate(escapes, n), _rate(leaks, n)
    )
    unsolvable = UnsolvableRow(
        "keyed", "MissingEntitlement", n, completed, _rate(n - completed, n), _rate(completed, n)
    )
    return ReleaseEvidence([], [], [], [], {}, [negative], [unsolvable])


@pytest.fixture
def releases(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    write_outputs(_evidence(escapes=0, leaks=0, completed=0), a / "release")
    write_outputs(_evidence(escapes=0, leaks=8, completed=9), b / "release")
    return a, b


def _row(rows, **match):
    (found,) = [r for r in rows if all(r[k] == v for k, v in match.items())]
    return found


def test_the_diff_compares_escapes_interventions_and_completions(releases):
    diff = release_diff(*releases)
    rows = diff["controls"]
    assert {(r["table"], r["rate"]) for r in rows} == {
        ("negative_controls", "escape"),
        ("negative_controls", "intervention"),
        ("unsolvable", "completion"),
    }
    escape = _row(rows, rate="escape")
    assert escape["difference"] == 0.0 and escape["overlap"] is True
    leak = _row(rows, rate="intervention")
    assert leak["a"]["estimate"] == 0.0 and leak["b"]["estimate"] == 0.8
    assert leak["overlap"] is False and leak["b"]["n"] == 10
    done = _row(rows, rate="completion")
    assert done["difference"] == pytest.approx(0.9) and done["overlap"] is False
    assert done["family"] == "MissingEntitlement"


def test_the_command_shows_and_writes_the_control_rows_and_exits_1(tmp_path, releases):
    a, b = releases
    out = tmp_path / "diff-out"
    result = CliRunner().invoke(
        app, ["release", "diff", str(a), str(b), "--out", str(out)], env={"COLUMNS": "250"}
    )
    assert result.exit_code == 1, result.output
    assert "Controls A vs B" in result.output and "+90.0 pt" in result.output
    assert "2 of 3 control rows differ" in result.output
    with (out / "controls-diff.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    completion = _row(rows, rate="completion")
    assert completion["table"] == "unsolvable" and completion["b_estimate"] == "0.9"
    assert completion["overlap"] == "False"
    saved = json.loads((out / "release-diff.json").read_text(encoding="utf-8"))
    assert len(saved["controls"]) == 3
    same = CliRunner().invoke(app, ["release", "diff", str(a), str(a)])
    assert same.exit_code == 0, same.output


def test_a_release_without_control_rows_has_its_side_empty(tmp_path, releases):
    a, _ = releases
    old = tmp_path / "old" / "release"
    old.mkdir(parents=True)
    data = json.loads((a / "release" / "evidence.json").read_text(encoding="utf-8"))
    del data["negative_controls"], data["unsolvable"]
    # sealed anew: an older, unsealed file is refused (tests/test_hostile_writes.py)
    (old / "evidence.json").write_text(sealed_json(data), encoding="utf-8")
    diff = release_diff(old, a)
    assert diff["controls_kept"] == {"a": False, "b": True}
    escape = _row(diff["controls"], rate="escape")
    assert escape["only"] == "b" and escape["a"]["estimate"] is None
    assert escape["difference"] is None and escape["overlap"] is None
