"""``[cases] prefer = "early-trigger"``: which candidates come first, recorded and reported."""

from __future__ import annotations

import json
import re

import pytest

from sscbench.admission.funnel import admit
from sscbench.admission.prefer import early_trigger, preferred_first
from sscbench.faults.registry import get_operator
from sscbench.report.build import build_report
from sscbench.report.sections.funnel import selection_notes
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.world.load import load_world


@pytest.fixture(scope="module")
def airline():
    return load_world("generated", "airline", None, 0)


@pytest.mark.parametrize("name", ["ReturnDate", "PaySource", "WriteEffect"])
def test_preferred_candidates_are_screened_first_and_counted(airline, name):
    operator = get_operator(name)
    plain_funnel = admit(operator, airline, 2)[2]
    _, chosen, funnel, _ = admit(operator, airline, 2, "early-trigger")
    assert plain_funnel.prefer is None and plain_funnel.preferred == 0
    assert funnel.prefer == "early-trigger" and 0 < funnel.preferred < funnel.valid
    for case in chosen:  # the admitted cases are preferred ones
        candidate = next(c for c in operator.enumerate(airline) if c.candidate_id == case.case_id)
        assert early_trigger(candidate, airline)
    assert funnel.enumerated == plain_funnel.enumerated and funnel.valid == plain_funnel.valid


def test_early_trigger_follows_the_task_not_the_agent(airline):
    writes = [c for c in get_operator("WriteEffect").enumerate(airline)]
    for candidate in writes:
        if candidate.params.request_origin != "task":  # a made-up cabin change
            assert not early_trigger(candidate, airline)
    order, count = preferred_first(writes, airline, "early-trigger")
    assert all(early_trigger(c, airline) for c in order[:count])
    assert not any(early_trigger(c, airline) for c in order[count:])
    assert sorted(c.candidate_id for c in order) == sorted(c.candidate_id for c in writes)
    with pytest.raises(ValueError, match="unknown case preference"):
        preferred_first(writes, airline, "late")


STUDY = """
[study]
name = "prefer"
concurrency = 1
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 1
prefer = "early-trigger"
[[agents]]
id = "a"
profile = "trusting"
"""


def test_the_selection_is_recorded_and_shown_beside_the_funnel(tmp_path):
    config = parse_config(STUDY, "prefer.toml")
    out = tmp_path / "study"
    execute_study(config, STUDY, out, progress=False)
    recorded = json.loads((out / "config.json").read_text())["config"]
    assert recorded["cases"]["prefer"] == "early-trigger"
    from sscbench.measure.study import measure_study

    measure_study(out)
    html = build_report(out).read_text("utf-8")
    funnel = html[html.index('id="funnel"') :]
    funnel = re.sub(r'<span class="nw">([^<]*)</span>', r"\1", funnel)  # names kept whole
    assert "cases.prefer = &#39;early-trigger&#39;" in funnel.split("</section>")[0]
    assert selection_notes({"cases": {}, "agents": [{"id": "a", "qualify": "reward"}]}) == []
    loose = selection_notes({"agents": [{"id": "weak", "qualify": "completed"}]})
    assert len(loose) == 1 and "weak" in loose[0] and "not reward 1" in loose[0]


def test_read_first_keeps_early_trigger_cases_whose_opening_needs_a_read(airline):
    from sscbench.admission.prefer import needs_read, read_first

    for name in ("ReturnDate", "PaySource", "WriteEffect"):
        operator = get_operator(name)
        valid = [c for c in operator.enumerate(airline) if not operator.validate(c, airline)]
        chosen = [c for c in valid if read_first(c, airline)]
        assert chosen and all(early_trigger(c, airline) for c in chosen)
        for candidate in chosen:  # never a change to flights the user lists, nor a booking
            kind = (airline.task(candidate.task_id).intent or {}).get("kind")
            assert kind in {"change_cabin", "cancel", "update_baggages"}, (name, kind)
        _, chosen_cases, funnel, _ = admit(operator, airline, 2, "read-first")
        assert funnel.prefer == "read-first" and funnel.preferred == len(chosen)
        assert {c.task_id for c in chosen_cases} <= {c.task_id for c in chosen}
    change_flights = next(
        t for t in airline.tasks if (t.intent or {}).get("kind") == "change_flights"
    )
    assert not needs_read(airline, change_flights)


def test_the_read_first_selection_is_named_in_the_report_note():
    note = selection_notes({"cases": {"prefer": "read-first"}, "agents": []})
    assert len(note) == 1 and "'read-first'" in note[0]
    assert "needs a read before any write" in note[0]
    early = selection_notes({"cases": {"prefer": "early-trigger"}, "agents": []})
    assert "needs a read" not in early[0]
