"""The real-text development corpus: replayed gpt-4o runs under admitted faults, hand labels.

Builds the corpus (``tests/data/realtext``) into a study folder, measures it with the
default rule-based classifier and scores the measurement against the hand labels,
asserting issue 12's targets: T_F and T_E 100%; A, Z_S, T_S (exact), T_U (exact) and
Y_end each at least 98%.
"""

from __future__ import annotations

import json

import pytest

from realtext_corpus import HERE, apply_edits, build_corpus, load_spec, show_ledger
from sscbench.agents.replay import RecordedMessage, RecordedRun
from sscbench.measure.study import measure_study
from sscbench.review.agreement import agreement
from sscbench.review.labels import read_labels

TARGETS = {"T_F": 1.0, "T_E": 1.0, "T_S": 0.98, "T_U": 0.98, "A": 0.98, "Z_S": 0.98, "Y_end": 0.98}


@pytest.fixture(scope="module")
def corpus(taubench, tmp_path_factory):
    """The corpus study, built and measured once for the module."""
    root = tmp_path_factory.mktemp("realtext") / "study"
    store = build_corpus(root, taubench)
    measure_study(store.root)
    return store


def test_corpus_is_labelled_and_every_run_triggers(corpus):
    """At least 80 faulted runs, all triggered, one label line each, all four operators."""
    spec = load_spec()
    labels = {label.run_id for label in read_labels(HERE / "labels.jsonl")}
    index = list(corpus.read_index())
    assert len(index) == len(spec["runs"]) >= 80
    assert labels == {entry.run_id for entry in index}
    assert all(entry.status == "completed" and entry.triggered for entry in index)
    operators = {r["case_id"].split(":")[2] for r in spec["runs"]}
    assert operators == {"ReturnDate", "PaySource", "WriteEffect", "ItemOption"}


def test_measurement_agrees_with_hand_labels(corpus):
    """Issue 12's targets on every quantity (exact steps), listing each disagreement."""
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


def test_show_prints_the_numbered_ledger_only(corpus):
    """The labeller's view: numbered steps, no measurement and no label."""
    text = show_ledger(corpus, "rd20-adopt")
    assert "  8 assistant" in text and "IAH to LAS on 2024-05-17" in text
    assert "T_S" not in text and "faulty" not in text


def _events(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()[1:] if x.strip()]


def test_as_recorded_runs_are_what_sscbench_run_replays(corpus, taubench, tmp_path):
    """An unedited corpus run equals the faulted run of plain `sscbench run` with replay kinds."""
    from typer.testing import CliRunner

    from sscbench.cli import app

    spec = {r["run_id"]: r for r in load_spec()["runs"]}
    chosen = ["rd20-asis", "ps20-asis", "we26-asis"]
    wanted = {spec[r]["case_id"] for r in chosen}
    lines = [x for x in (HERE / "cases.jsonl").read_text("utf-8").splitlines() if x.strip()]
    (tmp_path / "cases.jsonl").write_text(
        "\n".join(x for x in lines if json.loads(x)["case_id"] in wanted) + "\n", "utf-8"
    )
    trials = sorted({spec[r]["trial"] for r in chosen})
    recording = taubench / "historical_trajectories" / "gpt-4o-airline.json"
    config = tmp_path / "study.toml"
    config.write_text(
        f'[world]\nsource = "tau-bench"\ndata = "{taubench}"\ndomains = ["airline"]\n'
        f'[cases]\nfile = "{tmp_path / "cases.jsonl"}"\n'
        f'[[agents]]\nid = "gpt-4o"\nkind = "replay"\n[agents.replay]\npath = "{recording}"\n'
        f'trials = {trials}\nqualify = "completed"\n[user]\nkind = "replay"\n',
        "utf-8",
    )
    out = tmp_path / "study"
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    index = [json.loads(x) for x in (out / "index.jsonl").read_text().splitlines() if x.strip()]
    for run_id in chosen:
        case_id, trial = spec[run_id]["case_id"], spec[run_id]["trial"]
        matches = []
        for entry in index:
            if entry["case_id"] != case_id or entry["kind"] != "faulted":
                continue
            evaluator = _events(out / "runs" / f"{entry['run_id']}.evaluator.jsonl")
            if any(e["type"] == "replay" and e["trial"] == trial for e in evaluator):
                matches.append(entry["run_id"])
        (replayed,) = matches
        ours = _events(corpus.ledger_path(run_id))
        assert ours == _events(out / "runs" / f"{replayed}.ledger.jsonl")
