"""Studies on the packaged τ-bench data: no ``world.data``, ``tau-bench:`` recordings, the
inputs hashed as for a folder, and the examples parse from a clone."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.run.builders import hash_inputs, input_files
from sscbench.study.config import load_config, parse_config
from sscbench.study.worlds import build_worlds
from sscbench.world.packaged import manifest, packaged_taubench

ROOT = Path(__file__).resolve().parents[2]

STUDY = """
[world]
source = "tau-bench"
domains = ["airline"]
[[agents]]
id = "gpt-4o"
kind = "replay"
[agents.replay]
path = "tau-bench:historical_trajectories/gpt-4o-airline.json"
trials = [0]
[user]
kind = "replay"
"""


def test_a_tau_bench_study_without_data_reads_the_packaged_data(tmp_path):
    config = parse_config(STUDY, tmp_path / "study.toml", base_dir=tmp_path)
    folder = packaged_taubench()
    assert config.world_data() == folder
    (replay,) = [a.replay for a in config.agents if a.replay is not None]
    recording = folder / "historical_trajectories" / "gpt-4o-airline.json"
    assert replay.resolved == recording
    assert replay.sha256 == manifest()["files"]["historical_trajectories/gpt-4o-airline.json"]
    assert replay.world_data == folder
    assert build_worlds(config)["airline"].counts()["tasks"] == 50


def test_the_packaged_inputs_are_hashed_like_a_folder(tmp_path):
    config = parse_config(STUDY, tmp_path / "study.toml", base_dir=tmp_path)
    folder = packaged_taubench()
    hashes = hash_inputs(input_files(config))
    files = manifest()["files"]
    expected = {f"tau-bench:{n}": files[n] for n in files if n.startswith("airline/")}
    recording = "historical_trajectories/gpt-4o-airline.json"
    expected[f"tau-bench:{recording}"] = files[recording]
    assert hashes == expected
    assert (folder / recording).is_file()


SCRIPTED = """
[study]
seed = 1
[world]
source = "tau-bench"
domains = ["airline"]
[cases]
operators = ["PaySource"]
per_operator = 1
[[agents]]
id = "trusting"
profile = "trusting"
"""


def _in_cache(monkeypatch, cache: Path) -> None:
    monkeypatch.setenv("SSCBENCH_CACHE", str(cache))
    packaged_taubench.cache_clear()


def test_a_packaged_study_resumes_from_another_cache(tmp_path, monkeypatch):
    from sscbench.run.executor import execute_study

    out = tmp_path / "study"
    try:
        _in_cache(monkeypatch, tmp_path / "cache-one")
        first = parse_config(SCRIPTED, "s.toml", base_dir=tmp_path)
        execute_study(first, SCRIPTED, out, progress=False)
        recorded = (out / "sscbench-study.json").read_text("utf-8")
        assert "cache-one" not in recorded and "tau-bench:airline/flights.json" in recorded
        assert "cache-one" not in (out / "config.json").read_text("utf-8")
        _in_cache(monkeypatch, tmp_path / "cache-two")
        second = parse_config(SCRIPTED, "s.toml", base_dir=tmp_path)
        assert second.world_data() == packaged_taubench()
        assert packaged_taubench().is_relative_to(tmp_path / "cache-two")
        assert second.config_hash() == first.config_hash()
        summary = execute_study(second, SCRIPTED, out, progress=False)
        assert summary.resumed and summary.executed_now == 0
    finally:
        monkeypatch.undo()
        packaged_taubench.cache_clear()


def test_a_study_that_recorded_cache_paths_resumes_from_another_cache(tmp_path, monkeypatch):
    """Studies recorded before inputs were named portably hold absolute cache paths."""
    import json

    from sscbench.run.executor import execute_study

    out = tmp_path / "study"
    config = parse_config(SCRIPTED, "s.toml", base_dir=tmp_path)
    execute_study(config, SCRIPTED, out, progress=False)
    marker = json.loads((out / "sscbench-study.json").read_text("utf-8"))
    old = tmp_path / "elsewhere" / f"tau-bench-{manifest()['archive_sha256'][:16]}"
    marker["inputs"] = {
        str(old / name.removeprefix("tau-bench:")): digest
        for name, digest in marker["inputs"].items()
    }
    (out / "sscbench-study.json").write_text(json.dumps(marker), "utf-8")
    assert execute_study(config, SCRIPTED, out, progress=False).resumed


def test_a_missing_packaged_recording_names_the_field(tmp_path):
    text = STUDY.replace("gpt-4o-airline.json", "gpt-5.json")
    with pytest.raises(DataError, match="no such packaged file"):
        parse_config(text, tmp_path / "study.toml", base_dir=tmp_path)


@pytest.mark.parametrize(
    "name",
    [
        "taubench-study",
        "replay-study",
        "typed-study",
        "contradiction-pair",
        "contradiction-pair-consistent",
        "paper-matrix",
        "read-back-cue",
        "read-back-cue-off",
    ],
)
def test_the_examples_need_nothing_beside_the_project(name):
    config, _ = load_config(ROOT / "examples" / f"{name}.toml")
    assert config.world.source == "tau-bench" and config.world.data is None
    assert config.world_data() == packaged_taubench()
    for path in input_files(config):
        assert path.is_relative_to(packaged_taubench()), path
