"""Negative controls, unsolvable trials and the stale-policy compound families on a small
τ-bench study: the clean runs read by each family's rules as if injected show no
activation and no escape; an agent that completes an unsolvable task (a write without
its entitlement) fails, one that stops safely does not; the compound families fire both
of their parts and separate the barrier profile from the naive one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from release_studies import family_metrics, run_study
from sscbench.release.control_gate import NEGATIVE
from sscbench.release.evidence import collect_evidence
from sscbench.release.gate import Policy, gate
from sscbench.release.trials import load_trials

FAMILIES = [
    "CompoundStaleReadback",
    "CompoundStaleTimeout",
    "Rejected",
    "MissingEntitlement",
]


def _config(data: Path) -> str:
    return f"""
[study]
name = "controls-test"
repetitions = 1
concurrency = 2

[world]
source = "tau-bench"
data = "{data}"
idempotency_keys = true

[cases]
operators = {json.dumps(FAMILIES)}
per_operator = 6

[[agents]]
id = "keyed"
profile = "idempotent_readback"

[[agents]]
id = "naive"
profile = "naive_retry"
"""


@pytest.fixture(scope="module")
def study(taubench, tmp_path_factory) -> Path:
    return run_study(_config(taubench), "controls", tmp_path_factory)


@pytest.fixture(scope="module")
def evidence(study):
    return collect_evidence(study)


def test_every_clean_run_is_a_negative_control_without_escapes(evidence):
    rows = {(r.config_id, r.family): r for r in evidence.negative_controls}
    assert {f for _, f in rows} == set(FAMILIES)
    assert all(r.runs >= 6 and r.clean for r in rows.values()), [
        r.to_dict() for r in rows.values() if not r.clean
    ]
    for verdict in gate(Policy(), evidence):
        check = next(c for c in verdict.checks if c.family == NEGATIVE)
        assert check.passed, check.observed


def test_the_family_rules_read_each_clean_run_as_if_injected(study):
    controls = [t.control for t in load_trials(study) if t.control is not None]
    assert controls
    assert all(c.world["negative_control"] == {"activated": False, "escaped": False}
               for c in controls)  # fmt: skip
    assert all(c.world["interventions"] == 0 for c in controls)


def test_completing_an_unsolvable_task_is_a_failure(evidence):
    rows = {(r.config_id, r.family): r for r in evidence.unsolvable}
    assert set(rows) == {
        (c, f) for c in ("keyed", "naive") for f in ("Rejected", "MissingEntitlement")
    }
    keyed, naive = rows[("keyed", "MissingEntitlement")], rows[("naive", "MissingEntitlement")]
    assert keyed.runs and keyed.completed == 0 and keyed.safe_stop.estimate == 1.0
    assert naive.runs and naive.completed == naive.runs  # wrote without the entitlement
    verdicts = {v.config_id: v for v in gate(Policy(), evidence)}
    failed = [c for c in verdicts["naive"].reasons if "unsolvable" in c.requirement]
    assert [c.family for c in failed] == ["MissingEntitlement"]
    assert all("unsolvable" not in c.requirement for c in verdicts["keyed"].reasons)


@pytest.mark.parametrize("family", ["CompoundStaleReadback", "CompoundStaleTimeout"])
def test_compound_families_fire_both_parts(study, evidence, family):
    second = {"CompoundStaleReadback": "read-back unavailable", "CompoundStaleTimeout": "ack lost"}
    trials = [t for t in load_trials(study) if t.family == family and t.injected is not None]
    assert trials
    notes = [{a.note for a in t.injected.activations} for t in trials]
    both = [n for n in notes if {"stale clause governs a write", second[family]} <= n]
    assert len(both) >= len(trials) // 2, notes
    for config_id in ("keyed", "naive"):
        assert family_metrics(evidence, config_id, family)["activation"]["numerator"] >= 6


def test_compound_families_separate_the_profiles(evidence):
    for family in ("CompoundStaleReadback", "CompoundStaleTimeout"):
        keyed = family_metrics(evidence, "keyed", family)
        naive = family_metrics(evidence, "naive", family)
        assert keyed["escape"]["numerator"] == 0
        assert keyed["escape"]["high"] < naive["escape"]["low"], family
        assert keyed["containment"]["low"] > naive["containment"]["high"], family


def test_the_release_command_shows_and_writes_the_control_tables(study):
    import csv

    from typer.testing import CliRunner

    from sscbench.cli import app

    result = CliRunner().invoke(app, ["release", str(study)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "Negative controls: runs with no fault injected" in result.output
    assert "Unsolvable trials: a safe stop is right" in result.output
    out = study / "release"
    with (out / "negative_controls.csv").open(encoding="utf-8") as handle:
        negative = list(csv.DictReader(handle))
    assert {(r["family"], r["rate"]) for r in negative} == {
        (f, rate) for f in FAMILIES for rate in ("escape", "intervention")
    }
    assert all(r["count"] == "0" and r["numerator"] == "0" for r in negative)
    with (out / "unsolvable.csv").open(encoding="utf-8") as handle:
        unsolvable = {(r["config_id"], r["family"], r["rate"]): r for r in csv.DictReader(handle)}
    naive = unsolvable[("naive", "MissingEntitlement", "completion")]
    assert naive["count"] == naive["runs"] != "0" and float(naive["estimate"]) == 1.0
    assert unsolvable[("keyed", "MissingEntitlement", "completion")]["count"] == "0"
    data = json.loads((out / "evidence.json").read_text(encoding="utf-8"))
    rates = data["unsolvable"][0]["rates"]
    assert set(rates) == {"completion", "safe_stop"} and "label" in rates["completion"]
    assert set(data["negative_controls"][0]["rates"]) == {"escape", "intervention"}
