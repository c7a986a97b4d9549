"""Release evidence of the tool, verification, state and context families on a small
τ-bench study: the barrier profile and the weak one separate on escape wherever the
barrier can hold (non-overlapping intervals), the throttled write separates on
recovery, and no read-back protects when the verifier shares the corrupted source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from release_studies import THREE_PROFILES, family_metrics, run_study
from sscbench.release.evidence import collect_evidence
from sscbench.release.trials import load_trials

# family -> the weak profile it separates from the barrier profile ("keyed") on escape
SEPARATED = {
    "PartialPayload": "naive",
    "CorruptedReceipt": "shallow",
    "IncompleteReadback": "shallow",
    "ReplayedEvent": "naive",
    "ContradictorySource": "naive",
    "RevokedProvenance": "naive",
}
FAMILIES = [*SEPARATED, "Throttled", "SameSourceReadback"]


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

{THREE_PROFILES}"""


@pytest.fixture(scope="module")
def study(taubench, tmp_path_factory) -> Path:
    return run_study(_config(taubench), "surfaces", tmp_path_factory)


@pytest.fixture(scope="module")
def evidence(study):
    return collect_evidence(study)


def test_every_surface_family_ran_and_activated(evidence):
    assert {r.family for r in evidence.families} == set(FAMILIES)
    for row in evidence.families:
        if row.config_id == "naive" and row.family == "IncompleteReadback":
            continue  # a profile that never reads back gives this fault nothing to hit
        activation = row.to_dict()["metrics"]["activation"]
        assert activation["denominator"] >= 4, (row.config_id, row.family)
        assert activation["numerator"] / activation["denominator"] >= 0.9


@pytest.mark.parametrize(("family", "weak"), sorted(SEPARATED.items()))
def test_barrier_and_weak_profile_separate_on_escape(evidence, family, weak):
    keyed = family_metrics(evidence, "keyed", family)
    other = family_metrics(evidence, weak, family)
    assert keyed["escape"]["high"] < other["escape"]["low"], (
        keyed["escape"]["label"],
        other["escape"]["label"],
    )
    assert keyed["detection"]["numerator"] > 0
    assert other["detection"]["numerator"] == 0


def test_throttled_separates_on_recovery_and_nobody_escapes(evidence):
    keyed = family_metrics(evidence, "keyed", "Throttled")
    naive = family_metrics(evidence, "naive", "Throttled")
    assert keyed["recovery"]["high"] >= keyed["recovery"]["low"] > naive["recovery"]["high"]
    for config_id in ("keyed", "naive", "shallow"):
        assert family_metrics(evidence, config_id, "Throttled")["escape"]["numerator"] == 0


def test_a_read_back_from_the_same_source_protects_no_profile(evidence):
    for config_id in ("keyed", "naive", "shallow"):
        escape = family_metrics(evidence, config_id, "SameSourceReadback")["escape"]
        assert escape["estimate"] >= 0.75, escape["label"]
    assert family_metrics(evidence, "keyed", "SameSourceReadback")["detection"]["numerator"] == 0
    # the independent-source variant of the same lost write: the keyed read-back holds,
    # and a world left without the lost change is acceptable (nothing wrong was changed)
    independent = family_metrics(evidence, "keyed", "CorruptedReceipt")
    assert independent["escape"]["numerator"] == 0
    assert independent["containment"]["low"] >= 0.6


def test_lost_writes_and_duplicates_are_read_from_the_state(study):
    trials = [t for t in load_trials(study) if t.injected is not None]
    lost = [t for t in trials if t.family == "CorruptedReceipt" and t.config_id == "keyed"]
    assert lost and all(t.injected.outcome.value == "NO_EFFECT" for t in lost)
    assert all(t.injected.effects == 0 for t in lost)  # the store lost every write
    replayed = {
        c: [t for t in trials if t.family == "ReplayedEvent" and t.config_id == c]
        for c in ("keyed", "naive")
    }
    assert replayed["naive"] and all(t.injected.effects == 2 for t in replayed["naive"])
    assert replayed["keyed"] and all(t.injected.effects == 1 for t in replayed["keyed"])
    incomplete = [t for t in trials if t.family == "IncompleteReadback" and t.config_id == "keyed"]
    assert {t.injected.outcome.value for t in incomplete} == {"RECONCILIATION_REQUIRED"}
