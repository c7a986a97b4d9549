"""The oracle suite scored against a review round's adjudicated reference, and the report
showing that round's κ (needs ``tests/review_round.py``, the scripted review round of the
review workflow; skipped until it is merged)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.report.build import build_report

review_round = pytest.importorskip(
    "review_round", reason="tests/review_round.py (the scripted review round) is not merged yet"
)


@pytest.fixture(scope="module")
def round_study(taubench, tmp_path_factory):
    from test_oracle_suite import build_oracle_study

    root = tmp_path_factory.mktemp("round")
    study = build_oracle_study(root / "study", taubench)
    folder = review_round.build_review_round(study, root / "out")
    return study, folder


def test_validate_oracle_against_the_adjudicated_reference(round_study):
    study, folder = round_study
    reference = folder / "reference.jsonl"
    args = ["validate-oracle", str(study), "--reference", str(reference), "--clean-controls", "4"]
    for name in ("rules", "invariants", "step-only"):
        args += ["--oracle", name]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    rules = json.loads((study / "oracles" / "rules.json").read_text())
    assert rules["reference"] == f"reference labels ({reference})"
    labelled = [json.loads(x) for x in reference.read_text().splitlines() if x.strip()]
    applicable = sum(1 for x in labelled if x.get("A") in (True, False))
    assert rules["strata"]["all"]["applicable"] == applicable
    # the adjudicator restored the truth (the calibration labels), which the rules recover
    row = rules["strata"]["all"]
    assert row["fp"] == row["fn"] == row["abstained_adopted"] == 0


def test_the_report_shows_the_rounds_kappa_and_adjudicated_reference(round_study):
    study, folder = round_study
    html = build_report(study, review=folder).read_text()
    validation = html.split('<section id="validation"', 1)[1].split("</section>", 1)[0]
    agreement = json.loads((folder / "agreement.json").read_text())
    assert 'id="review-kappa"' in validation and "adjudicated reference" in validation
    kappa = agreement["kappa"]["A"]["kappa"]
    assert (f"{kappa:.3f}" if kappa is not None else "undefined") in validation
