"""Semantic review: a rejected case is replaced by the next admissible candidate of the
same frozen order, and the funnel records considered / rejected / replaced / rank."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sscbench.admission.funnel import admit
from sscbench.admission.order import read_order
from sscbench.admission.semantic import read_semantic_review, rejected_ids
from sscbench.errors import DataError
from sscbench.faults.registry import get_operator
from sscbench.world.load import load_world


@pytest.fixture(scope="module")
def item_option():
    operator = get_operator("ItemOption")
    return operator, load_world("generated", operator.domain, None)


def _ids(cases):
    return [c.case_id for c in cases]


def test_a_rejected_case_is_replaced_by_the_next_in_the_frozen_order(item_option):
    operator, world = item_option
    _, five, plain, _ = admit(operator, world, 5)
    first = _ids(five)
    _, cases, funnel, reasons = admit(operator, world, 3, rejected=frozenset({first[1]}))
    assert _ids(cases) == [first[0], first[2], first[3]]  # the 4th in order fills the slot
    assert reasons[first[1]] == "rejected in semantic review"
    assert (funnel.rejected_in_review, funnel.replaced, funnel.admitted) == (1, 1, 3)
    assert funnel.rank_reached == plain.order.index(first[3]) + 1
    assert funnel.order == plain.order  # the same frozen order, review or not


def test_a_rejected_replacement_is_replaced_in_turn(item_option):
    operator, world = item_option
    _, five, _, _ = admit(operator, world, 5)
    first = _ids(five)
    rejected = frozenset({first[0], first[3]})  # an initial case and its replacement
    _, cases, funnel, _ = admit(operator, world, 3, rejected=rejected)
    assert _ids(cases) == [first[1], first[2], first[4]]
    assert funnel.rejected_in_review == 2
    assert funnel.replaced == 1  # one initially selected case left the sample
    assert funnel.screened == funnel.rank_reached == 5
    record = funnel.record()
    assert record["candidates_considered"] == 5 and record["reviewed"] is True


def test_without_review_nothing_is_rejected_or_replaced(item_option):
    operator, world = item_option
    _, cases, funnel, _ = admit(operator, world, 3)
    assert (funnel.reviewed, funnel.rejected_in_review, funnel.replaced) == (False, 0, 0)
    assert funnel.rank_reached == funnel.order.index(cases[-1].case_id) + 1


def test_rejecting_every_candidate_admits_none_and_reaches_no_rank(item_option):
    operator, world = item_option
    everyone = frozenset(admit(operator, world, 1)[2].order)
    _, cases, funnel, _ = admit(operator, world, 3, rejected=everyone)
    assert cases == [] and funnel.rank_reached is None and funnel.replaced == 0
    assert funnel.rejected_in_review == funnel.witnessed > 0


def test_a_stored_order_is_followed_and_a_changed_one_refused(item_option, tmp_path):
    operator, world = item_option
    _, _, plain, _ = admit(operator, world, 2)
    flipped = list(reversed(plain.order))
    _, cases, funnel, _ = admit(operator, world, 2, stored=("order.jsonl", flipped))
    assert funnel.order == flipped and _ids(cases)[0] == flipped[0]
    with pytest.raises(DataError, match=r"order\.jsonl, field ItemOption: the stored order"):
        admit(operator, world, 2, stored=("order.jsonl", flipped[1:]))


def _review(tmp_path, *lines):
    path = tmp_path / "semantic-review.jsonl"
    path.write_text("\n".join(json.dumps(x) if isinstance(x, dict) else x for x in lines))
    return path


def test_the_review_file_is_typed_and_its_errors_name_file_line_and_field(tmp_path):
    good = _review(
        tmp_path,
        {"case_id": "a", "decision": "keep"},
        "",
        {"case_id": "b", "decision": "reject", "reason": "fact not used", "reviewer": "A"},
        {"case_id": "c"},
    )
    verdicts = read_semantic_review(good)
    assert rejected_ids(good, verdicts, ["a", "b", "c"]) == {"b"}
    with pytest.raises(DataError, match=r"field case_id: 1 reviewed case\(s\) are no candidate"):
        rejected_ids(good, verdicts, ["a", "b"])
    cases = [
        ({"case_id": "a", "decision": "drop"}, "line 1, decision"),
        ({"case_id": "a", "decision": "reject"}, "line 1, reason"),
        ({"case_id": "a", "verdict": "reject"}, "line 1, verdict"),
        ({"decision": "keep"}, "line 1, case_id"),
    ]
    for line, where in cases:
        with pytest.raises(DataError, match=f"semantic-review.jsonl, field {where}"):
            read_semantic_review(_review(tmp_path, line))
    twice = _review(tmp_path, {"case_id": "a"}, {"case_id": "a"})
    with pytest.raises(DataError, match="line 2, case_id: a already reviewed on line 1"):
        read_semantic_review(twice)


def test_admit_command_writes_the_order_and_the_funnel_with_the_review(tmp_path):
    from sscbench.cli import app

    out = tmp_path / "cases"
    args = ["admit", "--operators", "ItemOption", "--per-operator", "3", "--out", str(out)]
    assert CliRunner().invoke(app, args).exit_code == 0
    order = read_order(out / "order.jsonl")["ItemOption"]
    first = [json.loads(x)["case_id"] for x in (out / "cases.jsonl").read_text().splitlines()]
    review = _review(tmp_path, {"case_id": first[0], "decision": "reject", "reason": "scope"})
    again = [*args[:-1], str(tmp_path / "again"), "--review", str(review)]
    again += ["--order", str(out / "order.jsonl")]
    result = CliRunner().invoke(app, again)
    assert result.exit_code == 0, result.output
    assert "1 rejected, 1 replaced from the same frozen order; 3 reached by rank 4" in result.output
    record = json.loads((tmp_path / "again" / "admission.json").read_text())["operators"][0]
    assert (record["rejected_in_review"], record["replaced"], record["rank_reached"]) == (1, 1, 4)
    assert record["cases"] == [*first[1:], order[3]]
    bad = _review(tmp_path, {"case_id": "nope", "decision": "keep"})
    result = CliRunner().invoke(app, [*args[:-1], str(tmp_path / "x"), "--review", str(bad)])
    assert result.exit_code != 0 and "no candidate of the chosen operators" in result.output
