"""Case-level review pages: one per admitted case, built from the cases alone, blind to
every run outcome (no T_E/T_S/T_U, no adoption, no stratum, no run id)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from sscbench.admission.semantic import read_semantic_review, rejected_ids
from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.review.case_pages import cases_of, render_case_page, write_case_pages

# what a run outcome looks like on a page: the measured quantities, their values' names,
# the strata and the automatic labels
OUTCOME = re.compile(
    r"\bT_[EFSU]\b|\bZ_S\b|\bY_end\b|adopt|\bstratum\b|\bstrata\b|measure|\bpre-use\b|"
    r"\bendorses\b|\brejects\b|\bno-use\b|\breward\b|\bqualif|\bclean run\b|\bfaulted run\b"
)


def _outcome_text(html: str) -> list[str]:
    return OUTCOME.findall(html)


@pytest.fixture(scope="module")
def pages(default_study, tmp_path_factory):
    out = tmp_path_factory.mktemp("case-review") / "review"
    result = CliRunner().invoke(app, ["review", "cases", str(default_study), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_one_page_per_admitted_case_with_contract_fault_and_witness(default_study, pages):
    cases = [c for c in cases_of(default_study) if c.witness is not None]
    files = sorted((pages / "cases").glob("*.html"))
    assert len(files) == len(cases) > 0
    first = files[0].read_text()
    case = cases[0]
    assert case.case_id in first.replace("&#34;", '"')
    assert "The asserted value v′" in first and "Where the fault can appear" in first
    assert f"The fault-bearing observation is step {case.context.fault_step}." in first
    assert f"is complete at step {case.witness.counterevidence_step}" in first
    index = (pages / "index.html").read_text()
    assert index.count('href="cases/case-') == len(cases)


def test_pages_show_no_run_outcome(default_study, pages):
    run_ids = [
        json.loads(x)["run_id"] for x in (default_study / "index.jsonl").read_text().splitlines()
    ]
    assert run_ids
    for path in [pages / "index.html", *(pages / "cases").glob("*.html")]:
        html = path.read_text()
        assert _outcome_text(html) == [], (path.name, _outcome_text(html))
        assert not any(rid in html for rid in run_ids), path.name


def test_the_outcome_check_would_catch_a_leak(default_study):
    case = next(c for c in cases_of(default_study) if c.witness is not None)
    leaked = render_case_page(1, case).replace("</h1>", "</h1><p>T_U = 7, adopted</p>")
    assert _outcome_text(leaked) == ["T_U", "adopt"]


def test_the_decision_template_is_a_semantic_review_file(default_study, pages):
    path = pages / "semantic-review.jsonl"
    verdicts = read_semantic_review(path)
    ids = [c.case_id for c in cases_of(default_study) if c.witness is not None]
    assert list(verdicts) == ids and all(v.decision is None for v in verdicts.values())
    assert rejected_ids(path, verdicts, ids) == frozenset()  # undecided: nothing rejected


def test_the_folder_must_be_new_and_the_cases_admitted(default_study, pages, tmp_path):
    with pytest.raises(DataError, match="new or empty folder"):
        write_case_pages(cases_of(default_study), pages)
    with pytest.raises(DataError, match="not found"):
        cases_of(tmp_path / "nothing.jsonl")
    plain = [c.model_copy(update={"witness": None}) for c in cases_of(default_study)]
    with pytest.raises(DataError, match="no admitted case"):
        write_case_pages(plain, tmp_path / "out")
