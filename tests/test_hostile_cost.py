"""Cost follows what is asked (issue 42, item 7): a pairs study of a τ² file with 20,000
simulations reads and matches only the conversations its pairs name, keeps their spans
in the study, and its later commands (``report``, ``measure``, ``show``, a resumed
``run``) read no other conversation; a huge recorded message is cut on report pages,
the cut stated, never in the ledger. Behaviour is asserted (calls counted, sizes
bounded), not wall time; ``benchmarks/pairs_scale.py`` measures the time."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from typer.testing import CliRunner

from realtext_corpus import TAU2_SAMPLE
from sscbench.agents import recordings
from sscbench.cli import app
from sscbench.core.shown import SHOWN_CHARS
from sscbench.reading import index_json_array
from sscbench.recordings import formats, tau2_index
from sscbench.testing.big_tau2 import write_big_tau2, write_pairs_study

CASES = Path(__file__).parent / "data" / "realtext-tau2" / "cases.jsonl"
TEST20 = "d72fc177-b303-4d9f-9376-3351d3ab8561"  # τ-bench airline test/20
TEST0 = "294d46c8-6bf9-4e98-8c9c-18e11068ffc9"  # τ-bench airline test/0
PAIRS = [
    {
        "run_id": "rd20",
        "case_id": "tau-bench/airline:test/20:ReturnDate:1N99U6",
        "recording": TEST20,
    },
    {
        "run_id": "we20",
        "case_id": "tau-bench/airline:test/20:WriteEffect:1N99U6",
        "recording": TEST20,
    },
    {
        "run_id": "ps0",
        "case_id": "tau-bench/airline:test/0:PaySource:credit_card_4421486",
        "recording": TEST0,
    },
]
SIMULATIONS = 20_000


def _study(folder: Path, recording: Path, pairs: list[dict]) -> Path:
    """A pairs study of ``recording`` with the realtext corpus's cases the pairs name."""
    return write_pairs_study(folder, recording, pairs, CASES)


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """20,000 small simulations with the sample's six real conversations among them."""
    path = tmp_path_factory.mktemp("big") / "big-tau2.json"
    write_big_tau2(TAU2_SAMPLE, path, SIMULATIONS)
    return path


class Counted:
    """Counts the conversions and matches each command makes (and can forbid them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.converted: list[str] = []
        self.matched: list[str] = []
        self.scans = 0
        self.monkeypatch = monkeypatch
        run, match, scan = tau2_index.tau2_run, recordings.match_task, formats.index_tau2

        def counted_run(simulation, index, domain, path):
            self.converted.append(str(simulation.get("id")))
            return run(simulation, index, domain, path)

        def counted_match(recorded, tasks, recording):
            self.matched.append(recording)
            return match(recorded, tasks, recording)

        def counted_scan(path):
            self.scans += 1
            return scan(path)

        monkeypatch.setattr(tau2_index, "tau2_run", counted_run)
        monkeypatch.setattr(recordings, "match_task", counted_match)
        monkeypatch.setattr(formats, "index_tau2", counted_scan)

    def reset(self) -> None:
        """A new command: nothing read yet, no process cache."""
        recordings.clear_caches()
        self.converted.clear()
        self.matched.clear()
        self.scans = 0


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_pairs_study_reads_only_what_it_names_now_and_later(big, tmp_path, monkeypatch):
    config, out = _study(tmp_path, big, PAIRS), tmp_path / "study"
    counted = Counted(monkeypatch)
    counted.reset()
    _cli("run", str(config), "--out", str(out), "--no-report", "--no-progress")
    # the file is scanned once; of 20,006 conversations the two named are converted and
    # matched, once each (three pairs, six runs)
    assert counted.scans == 1
    assert sorted(counted.converted) == sorted(counted.matched) == sorted([TEST0, TEST20])
    kept = json.loads((out / "recordings.json").read_text("utf-8"))["agents"]["claude"]
    spans = {s["id"]: s for s in kept["simulations"]}
    assert set(spans) == {TEST0, TEST20} and kept["size"] == big.stat().st_size
    assert spans[TEST20]["match"]["task_id"] == "test/20"
    assert spans[TEST0]["match"]["task_id"] == "test/0"
    with big.open("rb") as handle:  # a span holds its conversation, byte for byte
        handle.seek(spans[TEST0]["start"])
        raw = handle.read(spans[TEST0]["end"] - spans[TEST0]["start"])
    assert json.loads(raw)["id"] == TEST0

    counted.reset()  # later commands read no conversation of the file at all
    _cli("measure", str(out))
    _cli("show", str(out), "ps0")
    _cli("report", str(out))
    assert counted.scans == 0 and not counted.converted and not counted.matched
    html = (out / "report" / "report.html").read_text("utf-8")
    assert "2 of 2 conversations the pairs name matched" in html
    rows = (out / "report" / "tables" / "recording_matches.csv").read_text("utf-8")
    assert TEST20 in rows and "filler-" not in rows

    counted.reset()  # a resumed run seeks the kept spans: no scan, no other conversation
    output = _cli("run", str(config), "--out", str(out), "--no-report", "--no-progress")
    assert "6/6" in output
    assert counted.scans == 0 and set(counted.converted) <= {TEST0, TEST20}


def test_the_index_streams_the_file(big):
    """Indexing holds one simulation at a time: its peak memory is a small share of the
    file (the index itself is an id and three integers a simulation)."""
    tracemalloc.start()
    try:
        index = index_json_array(big, "simulations")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(index) == SIMULATIONS + 6
    assert peak < big.stat().st_size / 3, (peak, big.stat().st_size)


def test_a_kept_span_that_no_longer_fits_the_file_is_refused(big, tmp_path):
    """A span read back must hold the simulation it names (a changed file is an error)."""
    index = tau2_index.index_tau2(big)
    span = index.find(TEST0)[0]
    wrong = tau2_index.Span(TEST20, span.index, span.start, span.end)
    with pytest.raises(Exception, match="does not hold simulation"):
        index.run(wrong)


def test_a_huge_message_is_cut_on_report_pages_never_in_the_ledger(tmp_path, monkeypatch):
    """A 3 MB closing message: the ledger keeps every character, the run page shows the
    first SHOWN_CHARS and states the cut and where the whole text is; the report stays
    far below the message's size."""
    sample = json.loads(TAU2_SAMPLE.read_text("utf-8"))
    long = "The reservation is settled. " * 110_000  # 3,080,000 characters
    simulation = next(s for s in sample["simulations"] if s["id"] == TEST0)
    last = next(m for m in reversed(simulation["messages"]) if m["role"] == "assistant")
    last["content"] = (last.get("content") or "") + long
    cut = len(last["content"]) - SHOWN_CHARS
    recording = tmp_path / "long.json"
    recording.write_text(json.dumps(sample), "utf-8")
    config, out = _study(tmp_path, recording, PAIRS[2:]), tmp_path / "study"
    recordings.clear_caches()
    _cli("run", str(config), "--out", str(out), "--no-progress")
    ledgers = list((out / "runs").glob("*.ledger.jsonl"))
    assert ledgers and all(long in p.read_text("utf-8") for p in ledgers)
    report = out / "report"
    size = sum(p.stat().st_size for p in report.rglob("*") if p.is_file())
    assert size < len(long) / 3, size
    page = (report / "runs" / "ps0.html").read_text("utf-8")
    assert f"… [cut: {cut:,} more characters; full text in runs/ps0.ledger.jsonl]" in page
    assert page.count("The reservation is settled.") <= SHOWN_CHARS // 28 + 2
