"""A τ² results file indexed by simulation id: a named conversation read back by its span
is the conversation the whole-file reader gives."""

from __future__ import annotations

import json

import pytest

from realtext_corpus import TAU2_SAMPLE
from sscbench.errors import DataError
from sscbench.recordings.formats import load_recording, recording_id
from sscbench.recordings.tau2_index import index_from_rows, index_tau2


def test_a_span_reads_back_the_conversation_the_whole_file_gives():
    whole = {recording_id(r): r for r in load_recording(TAU2_SAMPLE)}
    index = index_tau2(TAU2_SAMPLE)
    assert list(index.ids) == list(whole) and index.domain == "airline"
    for simulation_id, run in whole.items():
        (span,) = index.find(simulation_id)
        assert index.run(span) == run
    assert index.find("no-such-id") == []


def test_a_kept_index_reads_back_its_rows():
    index = index_tau2(TAU2_SAMPLE)
    spans = [index.find(i)[0] for i in index.ids[2:4]]
    kept = index_from_rows(TAU2_SAMPLE, index.size, index.domain, [s.row() for s in spans])
    assert [kept.find(s.simulation_id) for s in spans] == [[s] for s in spans]
    assert kept.run(spans[1]) == index.run(spans[1])
    with pytest.raises(DataError, match="not an index row"):
        index_from_rows(TAU2_SAMPLE, 1, None, [{"id": "x"}])


def test_a_simulation_without_messages_is_refused_when_indexed(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"info": {}, "simulations": [{"id": "a", "messages": []}, {"id": "b"}]}')
    with pytest.raises(DataError, match=r"simulations\[1\].*messages"):
        index_tau2(path)


def test_one_id_with_two_contents_is_refused_when_indexed_and_a_repeat_passes(tmp_path):
    """The streamed index refuses what the whole-file reader refuses: a pairs study
    reading only named conversations must not replay whichever of two comes first."""
    user = {"role": "user", "content": "hi"}
    other = {"role": "user", "content": "hello"}

    def sim(name: str, message: dict) -> dict:
        return {"id": name, "messages": [message]}

    differ = tmp_path / "differ.json"
    differ.write_text(
        json.dumps({"simulations": [sim("s", user), sim("t", user), sim("s", other)]})
    )
    with pytest.raises(DataError, match=r"simulations\[2\]\.id.*simulations\[0\]"):
        index_tau2(differ)
    repeat = tmp_path / "repeat.json"
    repeat.write_text(json.dumps({"simulations": [sim("s", user), sim("s", user)]}))
    assert [s.index for s in index_tau2(repeat).find("s")] == [0, 1]
