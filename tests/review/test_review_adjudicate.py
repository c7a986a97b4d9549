"""``review adjudicate`` and ``review reference``: disputed items only, fail closed."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from typer.testing import CliRunner

from review_round import build_generated_study, build_review_round
from sscbench.cli import app
from sscbench.review.labels import read_labels


@pytest.fixture(scope="module")
def round_folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("adjudicate")
    study = build_generated_study(root / "study")
    folder = build_review_round(study, root / "out")
    return folder, json.loads((root / "out" / "design.json").read_text())


def _copy(round_folder, tmp_path):
    folder, design = round_folder
    target = tmp_path / "review"
    shutil.copytree(folder, target)
    return target, design


def _run(*args):
    return CliRunner().invoke(app, ["review", *map(str, args)])


def test_adjudication_page_holds_only_disputed_items_with_every_answer(round_folder, tmp_path):
    folder, design = _copy(round_folder, tmp_path)
    result = _run("adjudicate", folder, "--adjudicator", "D")
    assert result.exit_code == 0, result.output
    page = (folder / "adjudicate-D.html").read_text()
    disputed = json.loads((folder / "agreement.json").read_text())["disputed"]
    assert sorted(re.findall(r'id="item-([^"]+)"', page)) == sorted(disputed)
    assert "cal01" not in page  # calibration is never adjudicated
    config = json.loads(re.search(r'id="config">(.*?)</script>', page, re.S).group(1))
    assert config["file"] == "adjudication.jsonl" and config["cases"] == []
    flip = next(r for r, p in design["patterns"].items() if p == "A-flip")
    late = next(r for r, p in design["patterns"].items() if p == "T_U-late")
    assert config["fields"][flip] == ["T_U", "A"]
    assert config["fields"][late] == ["T_U"]
    truth = design["truth"][late]
    row = re.search(
        r"<td>T_U \(disputed\)</td>\s*((?:<td>[^<]*</td>)+)", page.split(f'id="item-{late}"')[1]
    ).group(1)
    assert re.findall(r"<td>([^<]*)</td>", row) == [
        str(truth["T_U"]),
        str(truth["T_U"] + 1),
        str(truth["T_U"]),
    ]  # A, B (one step late), C
    bad = _run("adjudicate", folder, "--adjudicator", "../x")
    assert bad.exit_code == 2 and "bad name" in bad.output


def test_reference_fails_closed_without_every_adjudication(round_folder, tmp_path):
    folder, design = _copy(round_folder, tmp_path)
    (folder / "reference.jsonl").unlink()
    adjudication = folder / "labels" / "adjudication.jsonl"
    lines = adjudication.read_text().splitlines()
    adjudication.unlink()
    result = _run("reference", folder)
    assert result.exit_code == 2 and "no adjudication" in " ".join(result.output.split())
    flip = next(r for r, p in design["patterns"].items() if p == "A-flip")
    partial = [json.loads(line) for line in lines]
    for row in partial:
        if row["review_id"] == flip:
            row["T_U"] = None  # the adjudicator decided A but not T_U
    skipped = next(r["review_id"] for r in partial if r["review_id"] != flip)
    kept = [r for r in partial if r["review_id"] != skipped]  # and one item left out
    adjudication.write_text("".join(json.dumps(r) + "\n" for r in kept))
    result = _run("reference", folder)
    output = " ".join(result.output.split())
    assert result.exit_code == 2 and "not adjudicated" in output
    assert f"{flip} T_U" in output and skipped in output
    assert not (folder / "reference.jsonl").exists()
    stray = json.loads(lines[0]) | {"review_id": "cal01"}
    adjudication.write_text("\n".join([*lines, json.dumps(stray)]) + "\n")
    result = _run("reference", folder)
    assert result.exit_code == 2 and "not a disputed item" in result.output


def test_agree_finalise_writes_the_reference(round_folder, tmp_path):
    folder, design = _copy(round_folder, tmp_path)
    (folder / "reference.jsonl").unlink()
    result = _run("agree", folder, "--finalise")
    assert result.exit_code == 0, result.output
    assert "Fleiss' κ" in result.output and "calibration runs" in result.output
    reference = read_labels(folder / "reference.jsonl")
    assert [lab.review_id for lab in reference] == design["items"]
    assert all(lab.run_id for lab in reference)
    missing = _run("agree", tmp_path / "nowhere")
    assert missing.exit_code == 2 and "plan.json" in missing.output
    (folder / "labels" / "B.jsonl").unlink()
    gone = _run("agree", folder)
    assert gone.exit_code == 2 and "B.jsonl" in gone.output and "no export" in gone.output
