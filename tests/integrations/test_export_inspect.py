"""sscbench export inspect: a study as an Inspect eval log that reads back run by run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log

from default_study import run_small_default_study
from sscbench.measure.study import measure_study


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("export-inspect")
    study = run_small_default_study(root / "study")
    out = root / "study.eval"
    done = subprocess.run(
        [sys.executable, "-m", "sscbench", "export", "inspect", str(study), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return study, read_eval_log(str(out))


def _ledger(study, run_id):
    lines = (study / "runs" / f"{run_id}.ledger.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines[1:]]


def test_every_run_is_a_sample_with_its_messages_in_order(exported):
    study, log = exported
    index = [json.loads(line) for line in (study / "index.jsonl").read_text().splitlines()]
    samples = {s.id: s for s in log.samples}  # the .eval file orders samples its own way
    assert len(log.samples) == len(index) == len(samples)
    for entry in index:
        sample = samples[entry["run_id"]]
        assert sample.epoch == entry["repetition"] + 1
        events = _ledger(study, entry["run_id"])
        assert [m.role for m in sample.messages] == [e["type"] for e in events]
        assert [m.text for m in sample.messages] == [e.get("content") or "" for e in events]
        calls = [
            (c.id, c.function, c.arguments)
            for m in sample.messages
            if m.role == "assistant"
            for c in m.tool_calls or []
        ]
        expected = [
            (c["id"], c["name"], json.loads(c["arguments"] or "{}"))
            for e in events
            if e["type"] == "assistant"
            for c in e["tool_calls"]
        ]
        assert calls == expected


def test_scores_are_sscbench_measurements(exported):
    study, log = exported
    measured, _ = measure_study(study)
    rows = {r["run_id"]: r for r in map(json.loads, measured.read_text().splitlines())}
    for sample in log.samples:
        score = sample.scores["sscbench"]
        assert json.loads(json.dumps(score.metadata)) == rows[sample.id]
        assert score.value["Z_S"] == rows[sample.id]["Z_S"]
    strata = {s.scores["sscbench"].value["Z_S"] for s in log.samples}
    assert {"clean", "pre"} <= strata
    metrics = log.results.scores[0].metrics
    assert 0.0 <= metrics["adoption_triggered"].value <= 1.0


def test_the_evaluator_only_log_never_reaches_the_messages(exported):
    _, log = exported
    faulted = [
        s
        for s in log.samples
        if s.metadata["evaluator"]
        and any(r["type"] == "intervention" for r in s.metadata["evaluator"])
    ]
    assert faulted
    for sample in faulted:
        [record] = [r for r in sample.metadata["evaluator"] if r["type"] == "intervention"]
        hook = record["hook_id"]  # a string only the evaluator-only log holds
        texts = [m.text for m in sample.messages]
        assert not any(hook in text for text in texts)
        assert any(hook in json.dumps(e.data) for e in sample.events if e.event == "info")
        # at the fault's step the model saw the delivered observation, not the original
        assert texts[record["step"]] == record["delivered_observation"]
        if record["effective"] and record["action"] == "rewrite":
            assert texts[record["step"]] != record["original_observation"]
