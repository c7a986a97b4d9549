"""``sscbench review plan``: the stratified draw, masking, the key kept apart, refusals."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from review_round import build_generated_study
from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.review.plan import allocate, parse_plan_stratify, parse_reviewers, read_plan


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return build_generated_study(tmp_path_factory.mktemp("plan") / "study")


def _plan(study, out, *args):
    return CliRunner().invoke(
        app, ["review", "plan", str(study), "--out", str(out), "--reviewers", "A,B,C", *args]
    )


@given(
    sizes=st.lists(st.integers(1, 30), min_size=1, max_size=12),
    share=st.floats(0, 1),
    seed=st.integers(0, 1000),
)
@settings(max_examples=200, deadline=None)
def test_allocation_is_proportional_and_keeps_every_stratum(sizes, share, seed):
    strata = {(f"s{i}",): n for i, n in enumerate(sizes)}
    n = round(share * sum(sizes))
    counts = allocate(strata, n, random.Random(seed))
    assert sum(counts.values()) == n
    assert all(0 <= counts[s] <= strata[s] for s in strata)
    if n >= len(strata):
        assert all(counts[s] >= 1 for s in strata)  # every stratum present
        rest = n - len(strata)
        left = sum(v - 1 for v in strata.values())
        for s, size in strata.items():  # largest remainders: within one of the quota
            quota = rest * (size - 1) / left if left else 0
            assert abs(counts[s] - 1 - quota) < 1
    else:
        assert sorted(counts.values()) == [0] * (len(strata) - n) + [1] * n


def test_plan_draws_by_automatic_labels_and_masks_them(study, tmp_path):
    from sscbench.jsonl import read_objects
    from sscbench.review.labels import read_key

    out = tmp_path / "rev"
    result = _plan(
        study,
        out,
        "--runs",
        "9",
        "--calibration",
        "2",
        "--seed",
        "4",
        "--stratify",
        "operator,configuration,stratum",
    )
    assert result.exit_code == 0, result.output
    plan = read_plan(out)
    assert len(plan.items) == 9 and plan.calibration == ["cal01", "cal02"]
    assert plan.order()[:2] == plan.calibration
    assert sum(s.drawn for s in plan.strata) == 9
    assert sum(s.size for s in plan.strata) == plan.population
    raw_key = json.loads((study / "review-keys" / "rev.json").read_text())
    key = read_key(study / "review-keys" / "rev.json")
    assert sorted(key) == sorted(plan.order()) and raw_key["plan_id"] == plan.plan_id
    assert len(set(key.values())) == 11  # no run twice, calibration apart from the drawn
    rows = {r["run_id"]: r for r in read_objects(study / "measurements.jsonl")}
    drawn = {
        (rows[key[r]]["operator"], rows[key[r]]["config_id"], rows[key[r]]["Z_S"])
        for r in plan.items
    }
    every = {
        (s.stratum["operator"], s.stratum["configuration"], s.stratum["stratum"])
        for s in plan.strata
    }
    assert all(rows[key[r]]["Z_S"] != "not-triggered" for r in plan.order())
    # every stratum present when there are no more strata than runs, else one run each
    assert drawn == every if len(every) <= 9 else len(drawn) == 9
    # nothing a reviewer opens names a run, a case, a configuration or an automatic label
    plan_items = json.dumps(
        {
            k: v
            for k, v in json.loads((out / "plan.json").read_text()).items()
            if k not in ("strata", "stratify")
        }
    )
    configs = {r["config_id"] for r in rows.values()}
    for path in [*out.glob("*.html")]:
        text = path.read_text()
        for run_id in key.values():
            assert run_id not in text and rows[run_id]["case_id"] not in text
        assert not re.search(r"\b(faulted|clean|control|literal)\b", text), path
        assert not any(f">{c}<" in text or f'"{c}"' in text for c in configs), path
        for rid in plan.order():
            assert f'id="item-{rid}"' in text
    for run_id in key.values():
        assert run_id not in plan_items
    assert not any(p.name.endswith(".json") and p.name != "plan.json" for p in out.rglob("*"))
    assert (out / "labels").is_dir() and not any((out / "labels").iterdir())


def test_plan_is_seeded_and_refuses_bad_input(study, tmp_path):
    from sscbench.review.labels import read_key

    for name, seed in (("a", "1"), ("b", "1"), ("c", "2")):
        assert _plan(study, tmp_path / name, "--runs", "6", "--seed", seed).exit_code == 0
    keys = [read_key(study / "review-keys" / f"{n}.json") for n in "abc"]
    assert keys[0] == keys[1] and keys[0] != keys[2]
    again = _plan(study, tmp_path / "a", "--runs", "5")
    assert again.exit_code == 2 and "not empty" in again.output
    population = read_plan(tmp_path / "a").population
    big = _plan(study, tmp_path / "d", "--runs", str(population), "--calibration", "1")
    assert big.exit_code == 2 and "exceed" in big.output
    bad = _plan(study, tmp_path / "e", "--stratify", "colour")
    assert bad.exit_code == 2 and "colour" in bad.output
    with pytest.raises(DataError, match="at least two"):
        parse_reviewers("A")
    with pytest.raises(DataError, match="twice"):
        parse_reviewers("A,B,A")
    with pytest.raises(DataError, match="bad names"):
        parse_reviewers("A,../x")
    with pytest.raises(DataError, match="bad names"):
        parse_reviewers("A,adjudication")
    assert parse_plan_stratify("operator,config") == ("operator", "configuration")


def test_review_page_escapes_model_text_and_needs_nothing_outside(study):
    from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
    from sscbench.review.review_page import render_review_page
    from sscbench.study.cases import read_cases

    case = next(c for c in read_cases(study / "cases.jsonl") if c.operator == "ReturnDate")
    evil = "</script><script>alert(1)</script>"
    ledger = [
        SystemEvent(step=0, content=f"policy {evil}"),
        UserEvent(step=1, content=f"hi {evil}"),
        AssistantEvent(
            step=2, tool_calls=(ToolCall(id="c", name="get_x", arguments='{"a": "<b>"}'),)
        ),
        ToolEvent(step=3, tool_call_id="c", name="get_x", content=json.dumps({"v": evil})),
    ]

    from sscbench.review.plan import ReviewPlan

    plan = ReviewPlan(
        plan_id="p1",
        study="s",
        key="k",
        reviewers=["A", "B"],
        seed=0,
        stratify=[],
        runs_requested=1,
        calibration_requested=1,
        population=2,
        strata=[],
        calibration=["cal01"],
        items=["r001"],
        cases={"k01": ["cal01", "r001"]},
    )
    page = render_review_page(plan, "A", {"k01": case}, {"cal01": ledger, "r001": ledger})
    assert "<script>alert" not in page and '"<b>"' not in page
    assert page.count("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;") == 6
    assert page.count("<script") == 2  # the config and the page's own script, both inline
    assert not re.search(r"<(?:script|link|img)[^>]+(?:src|href)=", page)
    assert 'id="A-' not in page and 'id="r001-T_U-undecidable"' in page


def test_adjudicator_is_not_a_reviewer(study, tmp_path):
    assert _plan(study, tmp_path / "r", "--runs", "3").exit_code == 0
    for name in "ABC":
        (tmp_path / "r" / "labels" / f"{name}.jsonl").write_text("")
    result = CliRunner().invoke(
        app, ["review", "adjudicate", str(tmp_path / "r"), "--adjudicator", "B"]
    )
    assert result.exit_code == 2 and "is a reviewer" in result.output


def _plan_record(**changes) -> dict:
    record = {
        "schema": "sscbench.review-plan/1",
        "plan_id": "p",
        "study": "s",
        "key": "k.json",
        "reviewers": ["A", "B"],
        "seed": 0,
        "stratify": [],
        "runs_requested": 2,
        "calibration_requested": 1,
        "population": 3,
        "strata": [],
        "calibration": ["cal01"],
        "items": ["r001", "r002"],
        "cases": {},
    }
    return {**record, **changes}


@pytest.mark.parametrize(
    ("changes", "field", "reason"),
    [
        ({"reviewers": ["A", "../../../evil"]}, "reviewers", "bad name '../../../evil'"),
        ({"reviewers": ["A", ".."]}, "reviewers", "bad name '..'"),
        ({"reviewers": ["A", "adjudication"]}, "reviewers", "bad name"),
        ({"reviewers": ["A", "A"]}, "reviewers", "named twice"),
        ({"items": ["r001", "r001"]}, "items", "listed twice (positions 0 and 1)"),
        ({"items": ["r001", "../r2"]}, "items", "not a safe file name"),
        ({"calibration": ["r001"]}, None, "both a calibration run and an item"),
    ],
)
def test_plan_json_is_checked_each_time_it_is_read(tmp_path, changes, field, reason):
    """Names in plan.json become paths and items are counted: checked on every read."""
    (tmp_path / "plan.json").write_text(json.dumps(_plan_record(**changes)), "utf-8")
    with pytest.raises(DataError) as error:
        read_plan(tmp_path)
    assert error.value.field == field and reason in error.value.reason
    (tmp_path / "plan.json").write_text(json.dumps(_plan_record()), "utf-8")
    assert read_plan(tmp_path).order() == ["cal01", "r001", "r002"]
