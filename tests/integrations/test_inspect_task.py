"""The Inspect task sscbench/arrival end to end on the offline model sscbench/trusting,
with the network and tiktoken's encodings out of reach (the task needs neither)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

import inspect_ai
from inspect_ai.log import read_eval_log

from sscbench.integrations.inspect_study import binding_for
from sscbench.integrations.inspect_task import arrival
from sscbench.integrations.populations import population_metrics
from sscbench.measure.study import measure_study
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.rows import read_measurements

OPERATORS = "ReturnDate,PaySource,ItemOption,WriteEffect"


def offline(patch: pytest.MonkeyPatch) -> None:
    """No connection beyond 127.0.0.1 and no tiktoken encoding: either raises."""
    import tiktoken

    connect = socket.socket.connect

    def local_only(self, address):
        if isinstance(address, tuple) and address[0] not in ("127.0.0.1", "::1", "localhost"):
            raise OSError(f"test is offline: connect to {address}")
        return connect(self, address)

    def no_encoding(*args, **kwargs):
        raise AssertionError("a tiktoken encoding was loaded (a download when offline)")

    patch.setattr(socket.socket, "connect", local_only)
    patch.setattr(tiktoken, "get_encoding", no_encoding)
    patch.setattr(tiktoken, "encoding_for_model", no_encoding)


@pytest.fixture(scope="module")
def inspect_run(tmp_path_factory):
    """sscbench/arrival on the default world: 4 operators x 1 case, 2 epochs, offline."""
    root = tmp_path_factory.mktemp("inspect")
    out = root / "study"
    task = arrival(operators=OPERATORS, per_operator=1, out=str(out))
    cases = list(binding_for(out).cases.values())
    with pytest.MonkeyPatch.context() as patch:
        offline(patch)
        [log] = inspect_ai.eval(
            task, model="sscbench/trusting", epochs=2, log_dir=str(root / "logs"), display="none"
        )
    measured, _ = measure_study(out)  # sscbench's own measurement of the same runs
    return log, out, measured, cases


def _rows(path: Path) -> dict[str, dict]:
    return {r["run_id"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_scores_equal_sscbench_measurement_of_the_study(inspect_run):
    log, _, measured, cases = inspect_run
    assert log.status == "success", log.error
    assert len(log.samples) == len(cases) * 2
    rows = _rows(measured)
    triggered = 0
    for sample in log.samples:
        faulted_id = sample.metadata["sscbench"]["faulted"]["run_id"]
        score = sample.scores["sscbench"]
        assert json.loads(json.dumps(score.metadata)) == rows[faulted_id]
        assert score.value["Z_S"] == rows[faulted_id]["Z_S"]
        assert f"--r{sample.epoch - 1}--" in faulted_id  # epoch e is repetition e - 1
        triggered += bool(rows[faulted_id].get("triggered"))
    assert triggered >= 2  # real faulted runs reached the scorer, not just failures


def test_log_reads_back_with_messages_and_metrics(inspect_run):
    log, out, measured, _ = inspect_run
    back = read_eval_log(log.location)
    assert [s.id for s in back.samples] == [s.id for s in log.samples]
    sample = next(s for s in back.samples if s.scores["sscbench"].value["triggered"])
    ledger = out / "runs" / f"{sample.metadata['sscbench']['shown_run_id']}.ledger.jsonl"
    events = [json.loads(line) for line in ledger.read_text().splitlines()[1:]]
    assert [m.role for m in sample.messages] == [e["type"] for e in events]
    assert [m.text for m in sample.messages if m.role == "tool"] == [
        e["content"] for e in events if e["type"] == "tool"
    ]
    metrics = back.results.scores[0].metrics
    expected = population_metrics(read_measurements(measured))  # repetition 0, as the report
    assert set(expected) <= set(metrics)
    for name, value in expected.items():
        assert value == pytest.approx(metrics[name].value, nan_ok=True), name


def test_inspect_runs_equal_native_runs_of_the_same_profile(inspect_run, tmp_path):
    """The Inspect path (model answers through generate, calls executed by sscbench) gives
    the same measurement as sscbench run with the scripted profile itself."""
    _, _, measured, _ = inspect_run
    config = parse_config(
        "[study]\nrepetitions = 2\n[cases]\noperators = ["
        + ",".join(f'"{o}"' for o in OPERATORS.split(","))
        + ']\nper_operator = 1\n[[agents]]\nid = "trusting"\nprofile = "trusting"\n',
        tmp_path / "native.toml",
    )
    execute_study(config, "", tmp_path / "native", progress=False)
    native, _ = measure_study(tmp_path / "native")
    inspected = _rows(measured)
    # run ids (and a clean run's id named by a faulted row) carry the configuration's id
    ignored = ("run_id", "config_id", "clean_run_id")
    strip = lambda r: {k: v for k, v in r.items() if k not in ignored}  # noqa: E731
    by_key = lambda rows: {(r["case_id"], r["repetition"], r["kind"]): strip(r) for r in rows}  # noqa: E731
    assert by_key(inspected.values()) == by_key(_rows(native).values())


@pytest.mark.slow  # builds the whole report
def test_study_folder_reports_and_records_the_inspect_agent(inspect_run):
    _, out, _, _ = inspect_run
    meta = json.loads((out / "config.json").read_text())
    [agent] = meta["config"]["agents"]
    assert agent["kind"] == "inspect" and agent["params"]["model"] == "sscbench/trusting"
    assert meta["config"]["study"]["repetitions"] == 2
    from sscbench.report.build import build_report

    build_report(out)
    assert (out / "report" / "report.html").is_file()
