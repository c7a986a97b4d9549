"""A study that admits its own cases (``[cases] operators``, no cases file) writes the
admission record ``sscbench admit`` writes (order.jsonl, admission.json), applies the
semantic review of ``[cases] review``, and treats the review file as one of its inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.admission.order import read_order
from sscbench.errors import DataError
from sscbench.measure.study import measure_study
from sscbench.report.build import build_report
from sscbench.run.builders import build_study_cases, input_files
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.worlds import build_worlds

STUDY = """
[study]
seed = 5
repetitions = 1
concurrency = 2
[world]
source = "generated"
domains = ["airline", "retail"]
[cases]
operators = ["ReturnDate", "ItemOption"]
per_operator = 2
{review}
[[agents]]
id = "trusting"
profile = "trusting"
"""


def _config(folder: Path, review: str | None = None):
    text = STUDY.format(review=f'review = "{review}"' if review else "")
    return parse_config(text, folder / "study.toml", base_dir=folder), text


def _run(folder: Path, out: Path, review: str | None = None):
    config, text = _config(folder, review)
    return execute_study(config, text, out, progress=False)


def _cases(study: Path) -> list[dict]:
    return [json.loads(line) for line in (study / "cases.jsonl").read_text().splitlines()]


def _case_ids(study: Path, operator: str | None = None) -> list[str]:
    return [c["case_id"] for c in _cases(study) if operator in (None, c["operator"])]


def _write_review(path: Path, *lines: dict) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> Path:
    """The small study without a review, run and measured once."""
    folder = tmp_path_factory.mktemp("admitted")
    _run(folder, folder / "study")
    measure_study(folder / "study")
    return folder / "study"


def test_the_study_writes_its_admission_record_and_the_report_shows_it(plain):
    record = json.loads((plain / "admission.json").read_text())
    assert (record["world"], record["seed"], record["review"]) == ("generated", 0, None)
    by_operator = {entry["operator"]: entry for entry in record["operators"]}
    assert sorted(by_operator) == ["ItemOption", "ReturnDate"]
    assert [c for e in record["operators"] for c in e["cases"]] == _case_ids(plain)
    assert all(e["reviewed"] is False and e["admitted"] == 2 for e in record["operators"])
    order = read_order(plain / "order.jsonl")
    assert by_operator["ItemOption"]["cases"] == [
        c for c in order["ItemOption"] if c in by_operator["ItemOption"]["cases"]
    ]
    html = build_report(plain).read_text()
    section = html[html.index('id="funnel"') : html.index('id="validation"')]
    assert 'id="admission-table"' in section and "Admission record: admission.json" in section


def test_a_review_in_the_config_replaces_a_rejected_case_from_the_same_order(plain, tmp_path):
    first = _case_ids(plain, "ItemOption")
    order = read_order(plain / "order.jsonl")["ItemOption"]
    reject = {"case_id": first[0], "decision": "reject", "reason": "another entity"}
    _write_review(tmp_path / "semantic-review.jsonl", reject)
    _run(tmp_path, tmp_path / "study", review="semantic-review.jsonl")
    cases = _case_ids(tmp_path / "study")
    assert first[0] not in cases and first[1] in cases
    replacement = next(c for c in order if c not in first and c in cases)
    assert order.index(replacement) > order.index(first[1])  # the next of the same order
    record = json.loads((tmp_path / "study" / "admission.json").read_text())
    assert record["review"] == "semantic-review.jsonl"
    item = next(e for e in record["operators"] if e["operator"] == "ItemOption")
    assert (item["reviewed"], item["rejected_in_review"], item["replaced"]) == (True, 1, 1)
    assert item["rank_reached"] == order.index(replacement) + 1


def test_a_bad_review_file_stops_before_the_study_folder_is_made(tmp_path):
    _write_review(tmp_path / "review.jsonl", {"case_id": "x", "decision": "drop"})
    with pytest.raises(DataError) as caught:
        _run(tmp_path, tmp_path / "study", review="review.jsonl")
    text = str(caught.value)
    assert "review.jsonl" in text and "line 1, decision" in text
    assert not (tmp_path / "study").exists()
    _write_review(tmp_path / "review.jsonl", {"case_id": "nobody", "decision": "keep"})
    with pytest.raises(DataError, match=r"case_id: 1 reviewed case\(s\) are no candidate"):
        _run(tmp_path, tmp_path / "study", review="review.jsonl")
    with pytest.raises(DataError, match=r"missing.jsonl.*not found"):
        _run(tmp_path, tmp_path / "study", review="missing.jsonl")


def test_a_review_beside_a_cases_file_is_refused_in_the_config(tmp_path):
    text = STUDY.format(review='review = "r.jsonl"\nfile = "cases.jsonl"')
    with pytest.raises(DataError, match=r"cases\.review applies to the cases a study admits"):
        parse_config(text, tmp_path / "study.toml", base_dir=tmp_path)


def test_a_changed_review_file_is_not_resumed(plain, tmp_path):
    first = _case_ids(plain, "ReturnDate")
    review = _write_review(tmp_path / "review.jsonl", {"case_id": first[0], "decision": "keep"})
    _run(tmp_path, tmp_path / "study", review="review.jsonl")
    config, _ = _config(tmp_path, "review.jsonl")
    assert review.resolve() in input_files(config)
    # the same cases come out, but the review the study read is another one now
    _write_review(review, {"case_id": first[0], "decision": "keep", "reviewer": "B"})
    assert build_study_cases(config, build_worlds(config))[0]  # still admits
    with pytest.raises(DataError, match=r"inputs changed since it started: .*review.jsonl changed"):
        _run(tmp_path, tmp_path / "study", review="review.jsonl")


def test_run_names_the_review_file_and_field_and_writes_nothing(tmp_path):
    from typer.testing import CliRunner

    from sscbench.cli import app

    (tmp_path / "review").mkdir()
    _write_review(tmp_path / "review" / "r.jsonl", {"case_id": "x", "decision": "reject"})
    config = tmp_path / "study.toml"
    config.write_text(STUDY.format(review='review = "review/r.jsonl"'))
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--no-progress"])
    assert result.exit_code == 2
    assert "review/r.jsonl, field line 1, reason: Value error, a rejection needs a reason" in (
        result.output
    )
    assert not out.exists()


def test_plan_says_what_the_review_rejected_and_replaced(plain, tmp_path):
    from sscbench.run.dry_run import plan_lines, plan_report

    config, _ = _config(tmp_path)
    assert not any("semantic review" in line for line in plan_lines(plan_report(config), {}))
    reject = {"case_id": _case_ids(plain, "ReturnDate")[1], "decision": "reject", "reason": "x"}
    _write_review(tmp_path / "r.jsonl", reject)
    config, _ = _config(tmp_path, "r.jsonl")
    lines = plan_lines(plan_report(config), {})
    assert lines[1] == (
        "semantic review r.jsonl: 1 witnessed candidates rejected, 1 cases replaced from "
        "the same frozen order"
    )


def test_a_review_of_a_study_without_admitted_operators_is_refused(tmp_path):
    _write_review(tmp_path / "r.jsonl")
    text = STUDY.format(review='review = "r.jsonl"').replace(
        'operators = ["ReturnDate", "ItemOption"]', 'operators = ["Throttled"]'
    )
    config = parse_config(text, tmp_path / "study.toml", base_dir=tmp_path)
    with pytest.raises(DataError, match=r"cases\.review: no SSCBench operator"):
        build_study_cases(config, build_worlds(config))


def test_the_study_record_is_the_one_sscbench_admit_writes(plain, tmp_path):
    from typer.testing import CliRunner

    from sscbench.cli import app

    args = ["admit", "--operators", "ReturnDate,ItemOption", "--per-operator", "2"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "admitted")])
    assert result.exit_code == 0, result.output
    for name in ("admission.json", "order.jsonl"):
        assert (tmp_path / "admitted" / name).read_bytes() == (plain / name).read_bytes()
