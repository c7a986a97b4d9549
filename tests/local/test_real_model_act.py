"""A real local model reaches the faults: a faulted study under the act strategy (slow tier).

``sscbench serve-local`` (llama.cpp's prebuilt server from the ``xllamacpp`` wheel,
Qwen2.5-Coder-0.5B-Instruct from its pinned PyPI chunk packages, sha256-checked)
runs as a subprocess on a free port; the studies of :mod:`sscbench.local.act_study`
run two read-first cases of ReturnDate, PaySource and WriteEffect (generated airline
world), then — on a second fresh server — two of ItemOption (generated retail world),
with the openai agent under ``strategy = "act"`` and the action schema as
``response_format``. The tests assert that each operator has a triggered, measured
faulted run and that every measurement row is well formed — never an outcome. Deterministic: temperature 0 and a
fixed seed. Figures are printed at the end (and written as JSON to
``$SSCBENCH_LOCAL_METRICS`` when it is set).

Skipped when xllamacpp or the model packages are missing, unless
``SSCBENCH_REQUIRE_LOCAL=1`` (CI), which turns the skip into a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sscbench.core.ledger import AssistantEvent, HarnessError, ToolEvent, Usage
from sscbench.local.act_study import ALL_OPERATORS, DOMAIN_OPERATORS, OPERATORS, act_study_toml
from sscbench.local.weights import DEFAULT_MODEL, chunk_files
from sscbench.measure.study import measure_study
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.ledgers import read_evaluator, read_ledger

pytestmark = pytest.mark.slow

REQUIRE = os.environ.get("SSCBENCH_REQUIRE_LOCAL") == "1"
STARTUP_TIMEOUT = 300.0
STEP_VALUES = (int, str, type(None))
Study = tuple[StudyDir, list[IndexEntry], list[dict[str, Any]]]
"""A measured study: its folder, its index entries, its measurement rows."""
"""A step value in a row: an index, ``"inf"`` / ``"undecidable"``, or absent."""


def missing_tier() -> str | None:
    """Why the prebuilt tier cannot run here, or ``None``."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed: pip install 'sscbench[local]'"
    if chunk_files(DEFAULT_MODEL) is None:
        return f"the model packages are not installed: {DEFAULT_MODEL.install_hint}"
    return None


def _wait_for_url(proc: subprocess.Popen, timeout: float) -> str:
    lines: queue.Queue = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line is None:
            break
        if line.startswith("serving "):
            return line.split()[1]
    raise AssertionError("serve-local printed no base URL")


def _wait_ready(base_url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=5) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"{base_url}/models never answered")


@contextmanager
def _served(folder: Path) -> Iterator[str]:
    """``sscbench serve-local`` (prebuilt server, the packaged model) on a free port, fresh:
    its prompt cache starts empty, so a study's history is its own (docs/real-model.md)."""
    reason = missing_tier()
    if reason is not None:
        if REQUIRE:
            pytest.fail(f"SSCBENCH_REQUIRE_LOCAL=1 but the local tier is missing: {reason}")
        pytest.skip(reason)
    log = folder / "stderr.log"
    env = {**os.environ}
    env.setdefault("SSCBENCH_MODEL_CACHE", str(folder / "models"))
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sscbench", "serve-local", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=env,
        )
    try:
        base_url = _wait_for_url(proc, STARTUP_TIMEOUT)
        _wait_ready(base_url, STARTUP_TIMEOUT)
    except AssertionError:
        proc.kill()
        proc.wait()
        raise AssertionError(f"serve-local did not start: {log.read_text()[-2000:]}") from None
    try:
        yield base_url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def prebuilt_server(tmp_path_factory):
    """A fresh server for the airline study (the first study of the module)."""
    with _served(tmp_path_factory.mktemp("serve-prebuilt")) as base_url:
        yield base_url


def _well_formed(row: dict[str, Any]) -> None:
    """A faulted, triggered row carries the measurement's fields with legal values."""
    assert row["kind"] == "faulted" and row["status"] == "completed"
    assert row["triggered"] is True and isinstance(row["T_F"], int)
    assert isinstance(row["Z_S"], str) and row["Z_S"]
    for key in ("T_E", "T_S", "T_U"):
        assert key in row and isinstance(row[key], STEP_VALUES), (key, row)
    assert row["reward"] in (0.0, 1.0)


def _run_study(base_url: str, domain: str, out: Path, request) -> Study:
    """Run and measure the act study of ``domain`` against ``base_url``; record its figures."""
    text = act_study_toml(base_url, domain=domain)
    config = parse_config(text, f"real-model-act-{domain}.toml")
    started = time.perf_counter()
    summary = execute_study(config, text, out, progress=False)
    seconds = time.perf_counter() - started
    assert summary.finished_runs == summary.planned_runs
    store = StudyDir(out)
    entries = list(store.read_index())
    path, count = measure_study(out)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert count == len(entries)
    usage: Counter = Counter()
    for entry in entries:
        for event in read_evaluator(store.evaluator_path(entry.run_id)):
            if isinstance(event, Usage):
                usage.update(event.agent)
    faulted = [r for r in rows if r["kind"] == "faulted"]
    triggered = _triggered(rows)
    figures = getattr(request.config, "sscbench_act_figures", {})
    figures[domain] = {
        "study_seconds": round(seconds, 1),
        "runs": len(entries),
        "triggered_per_operator": {
            op: f"{triggered[op]}/{sum(r['operator'] == op for r in faulted)}"
            for op in DOMAIN_OPERATORS[domain]
        },
        "strata": dict(Counter(r["Z_S"] for r in rows)),
        "actions": usage["actions"],
        "unparsable_actions": usage["unparsable_actions"],
    }
    request.config.sscbench_act_figures = figures
    text = json.dumps(figures, indent=2)
    request.config.sscbench_local_metrics = text
    metrics = os.environ.get("SSCBENCH_LOCAL_METRICS")
    if metrics:
        Path(metrics).write_text(text + "\n", encoding="utf-8")
    return store, entries, rows


@pytest.fixture(scope="module")
def act_study(prebuilt_server, tmp_path_factory, request) -> Study:
    """The airline act study run once against the local server: (store, index entries, rows)."""
    out = tmp_path_factory.mktemp("act-study") / "study"
    return _run_study(prebuilt_server, "airline", out, request)


@pytest.fixture(scope="module")
def retail_study(act_study, tmp_path_factory, request) -> Study:
    """The retail act study (ItemOption), after the airline one, on its own fresh server
    (stopped when the study ends): its history does not depend on the airline study's."""
    with _served(tmp_path_factory.mktemp("serve-retail")) as base_url:
        out = tmp_path_factory.mktemp("act-study-retail") / "study"
        return _run_study(base_url, "retail", out, request)


def _check_runs(study: Study, operators: tuple[str, ...]) -> None:
    """Every run completed without a harness error, each action is one call answered by
    one tool event, and every faulted row is well formed."""
    store, entries, rows = study
    assert all(e.status == "completed" for e in entries), [(e.run_id, e.status) for e in entries]
    for entry in entries:
        evaluator = read_evaluator(store.evaluator_path(entry.run_id))
        assert not any(isinstance(e, HarnessError) for e in evaluator)
        ledger = read_ledger(store, entry.run_id)
        for event in ledger:
            if isinstance(event, AssistantEvent):
                assert len(event.tool_calls) <= 1
        calls = {c.id for e in ledger if isinstance(e, AssistantEvent) for c in e.tool_calls}
        assert {e.tool_call_id for e in ledger if isinstance(e, ToolEvent)} <= calls
    faulted = [r for r in rows if r["kind"] == "faulted"]
    assert {r["operator"] for r in faulted} == set(operators)
    for row in faulted:
        if row.get("triggered"):
            _well_formed(row)
        else:
            assert row["Z_S"] == "not-triggered" and row["T_F"] is None


def test_act_study_runs_and_measures_real_output(act_study):
    """The airline study: every run completes without a harness error, each action is
    recorded as one call answered by one tool event, and every faulted row is well formed."""
    _check_runs(act_study, OPERATORS)


def test_retail_study_runs_and_measures_real_output(retail_study):
    """The retail study (ItemOption), checked as the airline one."""
    _check_runs(retail_study, DOMAIN_OPERATORS["retail"])


def _triggered(rows: list[dict[str, Any]]) -> Counter:
    return Counter(r["operator"] for r in rows if r["kind"] == "faulted" and r.get("triggered"))


REACHED = ("ReturnDate", "PaySource")
"""Operators the packaged model reached in every end-to-end run of the study measured on
2026-12-01, whatever the server answered first (the CI test at 18:58 and in .ci/run at
19:55; benchmarks/local_model.py at 19:22, after one cold uncached turn)."""


def test_the_model_reaches_the_return_date_and_pay_source_faults(act_study):
    """Issue 21: a real model's faulted runs are triggered and measured: asked for the user
    id it reads the user (PaySource's fault-bearing read), then the reservation
    (ReturnDate's)."""
    _, _, rows = act_study
    triggered = _triggered(rows)
    assert all(triggered[op] for op in REACHED), dict(triggered)
    for row in rows:
        if row["kind"] == "faulted" and row.get("triggered"):
            _well_formed(row)


def test_the_model_reaches_the_item_option_fault(retail_study):
    """Issue 41: in retail, following the retail worked exchange, the model asks for the
    email, finds the user id and reads the order the user named — ItemOption's
    fault-bearing read — and the run is measured. Reached in both cases (gen/1, gen/2)
    in every end-to-end run of the retail flow (a fresh server, the retail study):
    2026-12-06 08:16 (probe), 08:38 and 09:01 (this test), the same strata each time
    (late 1, no-use 1)."""
    _, _, rows = retail_study
    triggered = _triggered(rows)
    assert triggered["ItemOption"], dict(triggered)
    for row in rows:
        if row["kind"] == "faulted" and row.get("triggered"):
            _well_formed(row)


def test_every_operator_has_a_triggered_measured_run(act_study, retail_study):
    """The goal of issues 21 and 41: each operator's fault is reached and measured (two
    read-first cases per operator, temperature 0, seed 7, the worked exchange in each
    policy's order). Airline: the model asks for the user id and reads the user —
    PaySource's fault-bearing read — then reads the reservation — ReturnDate's — and
    writes the change — WriteEffect's. Retail: it asks for the email, finds the user id,
    then reads the order the user named — ItemOption's.

    WriteEffect rests on one case (gen/7) whose recovery write the model gets right by a
    thin margin: identical in both runs of this test's flow (a fresh server, the study
    first: 18:58, and .ci/run on a clean clone at 19:55 — the same triggered counts and
    strata), different when the server first answered another prompt (the benchmark).
    llama.cpp at temperature 0 depends on its prompt cache's history, which this flow
    fixes (the retail study runs on its own fresh server, so its history is its own);
    a change of prompt, order or server build can move it (docs/real-model.md)."""
    rows = act_study[2] + retail_study[2]
    triggered = _triggered(rows)
    assert all(triggered[op] for op in ALL_OPERATORS), dict(triggered)
    for row in rows:
        if row["kind"] == "faulted" and row.get("triggered"):
            _well_formed(row)


def test_the_packaged_model_is_the_official_file(tmp_path):
    """Provenance: the assembled chunks hash to the pinned digest and the GGUF's own
    metadata names the model."""
    reason = missing_tier()
    if reason is not None or importlib.util.find_spec("gguf") is None:
        if REQUIRE:
            pytest.fail(f"SSCBENCH_REQUIRE_LOCAL=1 but the local tier is missing: {reason}")
        pytest.skip(reason or "the gguf package is not installed")
    from sscbench.local.weights import assembled_gguf, file_sha256, gguf_metadata

    path = assembled_gguf(DEFAULT_MODEL, tmp_path)
    assert file_sha256(path) == DEFAULT_MODEL.sha256
    assert path.stat().st_size == DEFAULT_MODEL.size
    meta = gguf_metadata(path)
    assert meta["general.architecture"] == "qwen2"
    assert meta["general.basename"] == "Qwen2.5-Coder"
    assert meta["general.size_label"] == "0.5B"
