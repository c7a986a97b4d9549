"""Choosing the executor: config fields outside the hash, a clear error without Ray, and
the worker's rebuild from the study's inputs refusing inputs that differ (no Ray needed)."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.run.builders import build_cases
from sscbench.run.remote import EpisodeWorker, StudyInputs, cases_digest
from sscbench.study.config import load_config, parse_config
from sscbench.study.worlds import build_worlds

SMALL = """
[study]
repetitions = 1
{extra}
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 2
[[agents]]
id = "readback"
profile = "readback"
{agent_extra}
"""


def small(extra: str = "", agent_extra: str = "") -> str:
    return SMALL.format(extra=extra, agent_extra=agent_extra)


def test_where_runs_execute_is_not_part_of_the_config_hash():
    plain = parse_config(small(), "a.toml")
    placed = parse_config(
        small(
            'executor = "ray"\n[study.ray]\naddress = "auto"\nworkers = 8\n',
            '[agents.ray]\nresources = { "endpoint-gpu0" = 1 }\n',
        ),
        "b.toml",
    )
    assert placed.study.executor == "ray"
    assert placed.study.ray.workers == 8
    assert placed.agents[0].ray.resources == {"endpoint-gpu0": 1.0}
    assert placed.config_hash() == plain.config_hash()


def test_a_bad_ray_setting_names_its_field():
    with pytest.raises(DataError) as refused:
        parse_config(small("[study.ray]\nworkers = 0\n"), "c.toml")
    assert refused.value.field == "study.ray.workers"
    with pytest.raises(DataError) as refused:
        parse_config(small("", '[agents.ray]\nresources = { "gpu" = -1 }\n'), "c.toml")
    assert refused.value.field is not None and refused.value.field.startswith("agents[0].ray")


def test_without_ray_the_ray_executor_exits_2_naming_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    out = tmp_path / "study"
    result = CliRunner().invoke(
        app, ["run", "--out", str(out), "--executor", "ray", "--no-progress", "--no-report"]
    )
    assert result.exit_code == 2, result.output
    assert "pip install 'sscbench[ray]'" in result.output
    assert not out.exists()


def test_an_unknown_executor_exits_2(tmp_path):
    result = CliRunner().invoke(
        app, ["run", "--out", str(tmp_path / "s"), "--executor", "spark", "--no-report"]
    )
    assert result.exit_code == 2
    assert "'spark' is not 'local', 'processes' or 'ray'" in result.output


def study_inputs(tmp_path):
    cases_file = tmp_path / "cases.jsonl"
    config, text = load_config(None)
    worlds = build_worlds(config)
    cases = build_cases(config, worlds)[:3]
    cases_file.write_text("".join(c.model_dump_json() + "\n" for c in cases))
    text = small().replace('operators = ["ReturnDate"]\nper_operator = 2', 'file = "cases.jsonl"')
    text = text.replace('domains = ["airline"]', 'domains = ["airline", "retail"]')
    config = parse_config(text, tmp_path / "s.toml", base_dir=tmp_path)
    return StudyInputs.of(config, text, build_cases(config, build_worlds(config))), cases_file


def test_a_worker_rebuilds_the_study_from_its_inputs_and_makes_the_same_run(tmp_path):
    import asyncio

    inputs, _ = study_inputs(tmp_path)
    worker = EpisodeWorker(inputs)
    unit = next(iter(worker.plan))
    output = asyncio.run(worker.make(unit.faulted_run_id, "clean", unit.clean_run_id))
    again = asyncio.run(worker.make(unit.faulted_run_id, "clean", unit.clean_run_id))
    assert output.end.status == "completed"
    assert [e.model_dump() for e in output.ledger] == [e.model_dump() for e in again.ledger]
    assert output.meta["pid"] > 0


def test_a_worker_refuses_inputs_that_differ_from_the_drivers(tmp_path):
    inputs, cases_file = study_inputs(tmp_path)
    cases_file.write_text(cases_file.read_text().splitlines()[0] + "\n")  # another node's file
    with pytest.raises(DataError) as refused:
        EpisodeWorker(inputs)
    assert str(cases_file) in str(refused.value)
    assert "every node must read the same study inputs" in str(refused.value)


def test_a_worker_refuses_other_cases_and_another_config(tmp_path):
    inputs, _ = study_inputs(tmp_path)
    with pytest.raises(DataError) as refused:
        EpisodeWorker(replace(inputs, cases_sha256=cases_digest([])))
    assert refused.value.field == "cases"
    with pytest.raises(DataError) as refused:
        EpisodeWorker(replace(inputs, config_hash="0" * 64))
    assert "different sscbench versions or configs" in str(refused.value)
