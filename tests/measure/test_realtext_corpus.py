"""The real-text development corpus: replayed gpt-4o runs under admitted faults, hand labels.

Runs the corpus (``tests/data/realtext``: a replay study whose pairs files name every
labelled run) with plain ``sscbench run``, measures it with the default rule-based
classifier and scores the measurement against the hand labels: every quantity 100%.
"""

from __future__ import annotations

import json

import pytest

from realtext_corpus import HERE, run_corpus
from sscbench.agents.edits import apply_edits
from sscbench.agents.pairs import read_pairs
from sscbench.recordings.recorded import RecordedMessage, RecordedRun
from sscbench.review.agreement import agreement
from sscbench.review.labels import read_labels
from sscbench.study.folder import StudyDir

TARGETS = dict.fromkeys(("T_F", "T_E", "T_S", "T_U", "A", "Z_S", "Y_end"), 1.0)


@pytest.fixture(scope="module")
def corpus(taubench, tmp_path_factory):
    """The corpus study, run and measured once for the module."""
    root = tmp_path_factory.mktemp("realtext") / "study"
    return StudyDir(run_corpus(HERE, taubench, root))


def _pairs() -> list:
    return [
        p for name in ("pairs-airline.jsonl", "pairs-retail.jsonl") for p in read_pairs(HERE / name)
    ]


def test_corpus_is_labelled_and_every_run_triggers(corpus):
    """At least 80 faulted runs, all triggered, one label line each, all four operators."""
    pairs = _pairs()
    labels = {label.run_id for label in read_labels(HERE / "labels.jsonl")}
    faulted = [e for e in corpus.read_index() if e.kind == "faulted"]
    assert len(faulted) == len(pairs) >= 80
    assert labels == {entry.run_id for entry in faulted} == {p.run_id for p in pairs}
    assert all(entry.status == "completed" and entry.triggered for entry in faulted)
    operators = {p.case_id.split(":")[2] for p in pairs}
    assert operators == {"ReturnDate", "PaySource", "WriteEffect", "ItemOption"}


def test_measurement_agrees_with_hand_labels(corpus):
    """Every quantity at 100% (exact steps), listing each disagreement."""
    result = agreement(corpus.root, HERE / "labels.jsonl").to_dict()
    assert result["runs"] >= 80 and not result["unmeasured_runs"]
    shortfalls = []
    for quantity, target in TARGETS.items():
        cell = result["quantities"][quantity]["all"]
        if cell["agree"] < target * cell["n"]:
            shortfalls.append(f"{quantity} {cell['agree']}/{cell['n']} < {target:.0%}")
    listed = [
        f"{d['run_id']} {d['quantity']}: label {d['reference']} vs measured {d['measured']}"
        for d in result["disagreements"]
    ]
    assert not shortfalls, "; ".join(shortfalls) + "\n" + "\n".join(listed)


def _recording() -> RecordedRun:
    def call(cid: str) -> dict:
        arguments = json.dumps({"reservation_id": "ABC123"})
        function = {"name": "get_reservation_details", "arguments": arguments}
        return {"id": cid, "type": "function", "function": function}

    traj = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call("c1")]},
        {"role": "tool", "tool_call_id": "c1", "name": "get_reservation_details", "content": "{}"},
        {"role": "assistant", "content": "Your return is on May 27."},
        {"role": "user", "content": "thanks ###STOP###"},
    ]
    return RecordedRun(task_id=1, trial=0, traj=[RecordedMessage.model_validate(m) for m in traj])


def test_edits_replace_insert_and_delete_turns():
    """Edits address the original assistant turns; inserted calls get tool placeholders."""
    run = _recording()
    edited = apply_edits(
        run,
        [
            {"op": "text", "turn": 1, "replace": [["May 27", "May 17"]]},
            {
                "op": "insert",
                "before": 1,
                "content": None,
                "tool_calls": [{"name": "get_user_details", "arguments": {"user_id": "u"}}],
            },
            {"op": "user", "turn": 1, "content": "ok ###STOP###"},
        ],
    )
    roles = [m.role for m in edited.traj]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "user"]
    assert edited.traj[5].content == "Your return is on May 17."
    assert edited.traj[3].tool_calls[0].function.name == "get_user_details"
    assert edited.traj[6].content == "ok ###STOP###"
    assert [m.role for m in apply_edits(run, [{"op": "delete", "turn": 1}]).traj] == [
        "user",
        "assistant",
        "tool",
    ]


def test_an_edit_that_does_not_fit_the_recording_is_refused():
    """A replace whose old text is absent, or a turn out of range, names the edit."""
    with pytest.raises(ValueError, match="edit 0: 'June' is not in turn 1"):
        apply_edits(_recording(), [{"op": "text", "turn": 1, "replace": [["June", "July"]]}])
    with pytest.raises(ValueError, match="turn 9 out of range"):
        apply_edits(_recording(), [{"op": "text", "turn": 9, "content": "x"}])


def _events(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text("utf-8").split("\n")[1:] if x.strip()]


def test_edits_reach_the_faulted_run_only(corpus):
    """A pair's edits change its faulted replay; its clean run replays the recording as is."""
    pair = next(p for p in _pairs() if p.run_id == "rd20-adopt")
    plan = [
        json.loads(x) for x in (corpus.root / "plan.jsonl").read_text().split("\n") if x.strip()
    ]
    (line,) = [x for x in plan if x["faulted_run_id"] == pair.run_id]
    faulted = json.dumps(_events(corpus.ledger_path(pair.run_id)))
    clean = json.dumps(_events(corpus.ledger_path(line["clean_run_id"])))
    assert "IAH to LAS on 2024-05-17" in faulted
    assert "IAH to LAS on 2024-05-17" not in clean and "IAH to LAS on 2024-05-27" in clean
