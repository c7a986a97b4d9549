"""Release evidence of the tool, verification and context families on a small τ-bench
study: the barrier profile and the weak one separate on escape wherever the barrier
can hold, and neither is protected when the verifier shares the corrupted source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.release.evidence import collect_evidence, load_trials
from sscbench.run.config import parse_config
from sscbench.run.executor import execute_study

SEPARATED = ["PartialPayload", "CorruptedReceipt", "ContradictorySource", "RevokedProvenance"]
FAMILIES = [*SEPARATED, "SameSourceReadback"]


def _config(data: Path) -> str:
    return f"""
[study]
name = "surfaces-test"
repetitions = 1
concurrency = 2

[world]
source = "tau-bench"
data = "{data}"
idempotency_keys = true

[cases]
operators = {json.dumps(FAMILIES)}
per_operator = 8

[[agents]]
id = "keyed"
profile = "idempotent_readback"

[[agents]]
id = "naive"
profile = "naive_retry"
"""


@pytest.fixture(scope="module")
def study(taubench, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("surfaces") / "study"
    text = _config(taubench)
    execute_study(parse_config(text, "surfaces.toml"), text, out, progress=False)
    return out


@pytest.fixture(scope="module")
def evidence(study):
    return collect_evidence(study)


def _metrics(evidence, config_id, family):
    row = next(r for r in evidence.families if r.config_id == config_id and r.family == family)
    return row.to_dict()["metrics"]


def test_every_surface_family_ran_and_activated(evidence):
    assert {r.family for r in evidence.families} == set(FAMILIES)
    for row in evidence.families:
        activation = row.to_dict()["metrics"]["activation"]
        assert activation["denominator"] >= 8
        assert activation["numerator"] / activation["denominator"] >= 0.9


@pytest.mark.parametrize("family", SEPARATED)
def test_barrier_and_weak_profile_separate_on_escape(evidence, family):
    keyed = _metrics(evidence, "keyed", family)["escape"]
    naive = _metrics(evidence, "naive", family)["escape"]
    assert keyed["high"] < naive["low"], (keyed["label"], naive["label"])
    assert _metrics(evidence, "keyed", family)["detection"]["numerator"] > 0
    assert _metrics(evidence, "naive", family)["detection"]["numerator"] == 0


def test_a_read_back_from_the_same_source_protects_neither_profile(evidence):
    for config_id in ("keyed", "naive"):
        escape = _metrics(evidence, config_id, "SameSourceReadback")["escape"]
        assert escape["estimate"] >= 0.75, escape["label"]
    assert _metrics(evidence, "keyed", "SameSourceReadback")["detection"]["numerator"] == 0


def test_keyed_profile_reports_a_lost_write_as_not_made(study):
    trials = [
        t
        for t in load_trials(study)
        if t.family == "CorruptedReceipt" and t.config_id == "keyed" and t.injected is not None
    ]
    assert trials
    assert all(t.injected.outcome.value == "NO_EFFECT" for t in trials)
    assert all(t.injected.effects == 0 for t in trials)  # the store lost every write
