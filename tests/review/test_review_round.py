"""A full review round by scripted reviewers on τ-bench: known κ, disputes and a reference."""

from __future__ import annotations

import json

import pytest

from review_round import PATTERNS, build_review_round, build_small_taubench_study
from sscbench.review.interrater import read_agreement
from sscbench.review.labels import read_labels


@pytest.fixture(scope="module")
def review_round(tmp_path_factory, taubench):
    root = tmp_path_factory.mktemp("round")
    study = build_small_taubench_study(root / "study", taubench)
    folder = build_review_round(study, root / "out")
    design = json.loads((root / "out" / "design.json").read_text())
    return study, folder, design


def kappa_with_splits(truth: list, splits: dict[int, object]) -> float:
    """Fleiss' κ by hand for three raters who all give ``truth[i]`` except that one rater
    gives ``splits[i]`` on item i: unanimous items have P_i = 1, a 2–1 split has
    P_i = (2² + 1² − 3) / (3·2) = 1/3; P_e = Σ_j p_j² from the category totals."""
    n_items, raters = len(truth), 3
    p_bar = (n_items - len(splits) + len(splits) / 3) / n_items
    totals: dict[object, int] = {}
    for i, value in enumerate(truth):
        totals[value] = totals.get(value, 0) + raters
        if i in splits:
            totals[value] -= 1
            totals[splits[i]] = totals.get(splits[i], 0) + 1
    p_e = sum((t / (n_items * raters)) ** 2 for t in totals.values())
    return (p_bar - p_e) / (1 - p_e)


def _arrival(t_e, t_s):
    if t_s == "inf":
        return "no-use"
    if "undecidable" in (t_e, t_s):
        return "undecidable"
    if t_e == "inf":
        return "absent"
    return "pre" if t_e < t_s else "late"


def test_designed_disagreements_give_the_hand_computed_kappas(review_round):
    _, folder, design = review_round
    items = design["items"]
    truth = [design["truth"][r] for r in items]
    where = {pattern: items.index(r) for r, pattern in design["patterns"].items() if r in items}
    assert set(where) == set(PATTERNS)
    result = read_agreement(folder / "agreement.json")
    assert result.items == len(items) and result.calibration == 2
    assert result.reviewers == ["A", "B", "C"]

    a = [t["A"] for t in truth]
    expected_a = kappa_with_splits(
        a, {where["A-flip"]: False, where["A-undecidable"]: "undecidable"}
    )
    z = [_arrival(t["T_E"], t["T_S"]) for t in truth]
    expected_z = kappa_with_splits(
        z, {where["T_S-undecidable"]: "undecidable", where["T_E-missed"]: "absent"}
    )
    tu = ["located" if isinstance(t["T_U"], int) else t["T_U"] for t in truth]
    expected_tu = kappa_with_splits(tu, {where["A-flip"]: "not-applicable"})
    assert "not-applicable" in tu  # non-adopters: a T_U category of their own, not ∞
    ts = ["located" if isinstance(t["T_S"], int) else t["T_S"] for t in truth]
    expected_ts = kappa_with_splits(ts, {where["T_S-undecidable"]: "undecidable"})
    for name, expected in [
        ("A", expected_a),
        ("Z_S", expected_z),
        ("T_U_status", expected_tu),
        ("T_S_status", expected_ts),
    ]:
        assert result.kappa[name].kappa == pytest.approx(expected, abs=1e-12), name
        assert result.kappa[name].items == len(items)
        assert 0 < expected < 1
    assert result.kappa["A"].categories == [True, False, "undecidable"]

    located_tu = sum(isinstance(t["T_U"], int) for t in truth) - 1  # C's A-flip: n/a
    assert result.exact_step["T_U"].model_dump() == {"agree": located_tu - 1, "located": located_tu}
    located_ts = sum(isinstance(t["T_S"], int) for t in truth) - 1  # B's undecidable
    assert result.exact_step["T_S"].model_dump() == {"agree": located_ts, "located": located_ts}
    located_te = sum(isinstance(t["T_E"], int) for t in truth) - 1  # A's missed T_E
    assert result.exact_step["T_E"].model_dump() == {"agree": located_te, "located": located_te}

    assert sorted(result.disputed) == sorted(items[i] for i in where.values())
    assert result.unanimous == len(items) - len(PATTERNS)
    split = {(d["review_id"], d["quantity"]) for d in result.disagreements}
    assert (items[where["T_U-late"]], "T_U") in split
    assert (items[where["A-flip"]], "A") in split and (items[where["A-flip"]], "T_U") in split


def test_case_questions_get_their_own_kappa(review_round):
    _, folder, _ = review_round
    result = read_agreement(folder)
    cases = json.loads((folder / "plan.json").read_text())["cases"]
    expected = kappa_with_splits(["yes"] * len(cases), {0: "unsure"})  # C on case 1
    assert result.case_kappa["sufficiency"].kappa == pytest.approx(expected, abs=1e-12)
    assert result.case_kappa["sufficiency"].items == len(cases)
    assert result.case_kappa["scope"].kappa is None  # all "yes": κ undefined, not 1


def test_calibration_is_reported_apart_and_kept_out_of_the_reference(review_round):
    _, folder, design = review_round
    result = read_agreement(folder)
    calibration = result.calibration_agreement
    assert calibration is not None and calibration.items == 2
    assert calibration.disputed == [design["calibration"][0]]
    assert not set(design["calibration"]) & set(result.disputed)
    reference = read_labels(folder / "reference.jsonl")
    assert [lab.review_id for lab in reference] == design["items"]


def test_reference_is_the_truth_restored_by_the_adjudicator(review_round):
    study, folder, design = review_round
    key = json.loads((folder.parent / "review-key.json").read_text())["runs"]
    for label in read_labels(folder / "reference.jsonl"):
        truth = design["truth"][label.review_id]
        assert label.run_id == key[label.review_id]
        assert {q: getattr(label, q) for q in truth} == truth
        assert _arrival(truth["T_E"], truth["T_S"]) == label.Z_S
        adjudicated = label.review_id in design["patterns"]
        assert label.note.startswith("adjudicated by D" if adjudicated else "unanimous")
    # the reference is what `sscbench agreement` reads: the scripted measurement matches it
    from typer.testing import CliRunner

    from sscbench.cli import app

    out = CliRunner().invoke(
        app, ["agreement", str(study), "--reference", str(folder / "reference.jsonl"), "--json"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["runs"] == len(design["items"])
    assert data["quantities"]["A"]["all"]["n"] == len(design["items"])
