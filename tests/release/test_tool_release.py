"""Release evidence of the tool-surface families on the read and the refusal on a small
τ-bench study: the barrier profile and the weak one separate on StaleValue and
SchemaDrift (non-overlapping escape intervals) and on Rejected (containment: the blind
loop); the intensity curves show where containment turns into escape (SchemaDrift at
plausibility 3 for the full schema check, at 1 for a check of names; StaleValue at age 2
for a single re-read)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from release_studies import THREE_PROFILES, family_metrics, run_study
from sscbench.release.evidence import collect_evidence
from sscbench.release.trials import load_trials

FAMILIES = ["StaleValue", "SchemaDrift", "Rejected", "Throttled"]


def _config(data: Path) -> str:
    return f"""
[study]
name = "tool-reads-test"
repetitions = 1
concurrency = 2

[world]
source = "tau-bench"
data = "{data}"
idempotency_keys = true

[cases]
operators = {json.dumps(FAMILIES)}
per_operator = 8

[[cases.intensity]]
family = "SchemaDrift"
parameter = "plausibility"
levels = [1, 3]

[[cases.intensity]]
family = "StaleValue"
parameter = "age"
levels = [2]

{THREE_PROFILES}"""


@pytest.fixture(scope="module")
def study(taubench, tmp_path_factory) -> Path:
    return run_study(_config(taubench), "tool-reads", tmp_path_factory)


@pytest.fixture(scope="module")
def evidence(study):
    return collect_evidence(study)


def _curve(evidence, config_id, family, level):
    point = next(
        p
        for p in evidence.curves
        if p.config_id == config_id and p.family == family and float(p.level) == level
    )
    return point.row.to_dict()["metrics"]


def test_every_family_ran_and_activated(evidence):
    assert {r.family for r in evidence.families} == set(FAMILIES)
    for row in evidence.families:
        activation = row.to_dict()["metrics"]["activation"]
        assert activation["denominator"] >= 8, (row.config_id, row.family)
        assert activation["numerator"] / activation["denominator"] >= 0.9


@pytest.mark.parametrize(("family", "weak"), [("StaleValue", "naive"), ("SchemaDrift", "naive")])
def test_barrier_and_weak_profile_separate_on_escape(evidence, family, weak):
    keyed = family_metrics(evidence, "keyed", family)
    other = family_metrics(evidence, weak, family)
    assert keyed["escape"]["numerator"] == 0
    assert keyed["escape"]["high"] < other["escape"]["low"], (
        keyed["escape"]["label"],
        other["escape"]["label"],
    )
    assert keyed["detection"]["numerator"] == keyed["activation"]["numerator"]


def test_stale_value_escapes_only_where_no_precondition_guards_the_write(study):
    """Retail writes refuse the moved-on order for every profile; the airline escapes are
    the naive profile's changes to a reservation another actor cancelled."""
    trials = [
        t
        for t in load_trials(study)
        if t.family == "StaleValue" and t.injected is not None and not t.level
    ]
    escaped = [t for t in trials if t.verdict is not None and t.verdict.escaped]
    assert escaped and all(t.case.domain == "airline" for t in escaped)
    assert {t.config_id for t in escaped} <= {"naive", "shallow"}
    assert all(t.injected.world["stale_effects"] >= 1 for t in escaped)


def test_rejected_separates_on_the_blind_loop_and_nobody_claims_success(evidence, study):
    keyed = family_metrics(evidence, "keyed", "Rejected")
    loop = family_metrics(evidence, "shallow", "Rejected")
    assert keyed["containment"]["low"] > loop["containment"]["high"]
    for config_id in ("keyed", "naive", "shallow"):
        assert family_metrics(evidence, config_id, "Rejected")["escape"]["numerator"] == 0
    trials = [t for t in load_trials(study) if t.family == "Rejected" and t.injected is not None]
    assert all(t.injected.effects == 0 for t in trials)  # refused before commit, always
    assert {t.injected.outcome.value for t in trials if t.config_id == "keyed"} == {"REJECTED"}
    # Throttled, the same commit semantics: there re-sending is right (recovery)
    assert family_metrics(evidence, "shallow", "Throttled")["recovery"]["low"] > 0.6


def test_schema_drift_curve_turns_from_containment_to_escape_where_the_check_ends(evidence):
    assert _curve(evidence, "keyed", "SchemaDrift", 1)["escape"]["numerator"] == 0
    assert _curve(evidence, "keyed", "SchemaDrift", 3)["escape"]["estimate"] == 1.0
    assert family_metrics(evidence, "shallow", "SchemaDrift")["escape"]["numerator"] == 0  # renamed
    assert _curve(evidence, "shallow", "SchemaDrift", 1)["escape"]["estimate"] == 1.0


def test_stale_value_curve_beats_a_single_re_read_from_age_two(evidence):
    assert family_metrics(evidence, "keyed", "StaleValue")["escape"]["numerator"] == 0  # age 1
    aged = _curve(evidence, "keyed", "StaleValue", 2)["escape"]
    assert aged["low"] > 0  # the airline half: the re-read was stale too
