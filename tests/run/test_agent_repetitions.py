"""Per-configuration repetitions: ``[[agents]] repetitions`` overrides the study's in
the plan, the shared clean runs, the plan bound and the config hash; bad values stop
with the file and the field."""

from __future__ import annotations

from collections import Counter

import pytest

from sscbench.errors import DataError
from sscbench.integrations.inspect_export import most_repetitions
from sscbench.run.builders import build_cases
from sscbench.run.planning import make_plan
from sscbench.study.config import parse_config
from sscbench.study.worlds import build_worlds

STUDY = """
[study]
repetitions = 2
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate", "PaySource"]
per_operator = 2
[[agents]]
id = "F"
profile = "trusting"
repetitions = 3
[[agents]]
id = "T"
profile = "readback"
repetitions = 1
[[agents]]
id = "D"
profile = "readback"
"""


def _plan(text: str = STUDY):
    config = parse_config(text, "s.toml")
    cases = build_cases(config, build_worlds(config))
    return config, cases, make_plan(config, cases)


def test_an_agents_repetitions_override_the_studys_and_the_default_stays():
    config, cases, plan = _plan()
    reps = {c: sorted({u.repetition for u in plan if u.config_id == c}) for c in "FTD"}
    assert reps == {"F": [0, 1, 2], "T": [0], "D": [0, 1]}
    units = Counter(u.config_id for u in plan)
    assert units == {"F": 3 * len(cases), "T": len(cases), "D": 2 * len(cases)}
    assert len(plan) == 6 * len(cases)
    tasks = len({(c.domain, c.task_id) for c in cases})
    clean = Counter(slot.config_id for slot in plan.clean_slots())
    assert clean == {"F": 3 * tasks, "T": tasks, "D": 2 * tasks}
    slots = [u.clean.slot_index for u in plan]
    assert len(set(slots)) == plan.clean_count() == 6 * tasks and max(slots) < plan.slot_count
    assert plan.repetitions == {"F": 3, "T": 1, "D": 2}
    assert config.plan_bound() == 2 * 1 * 2 * 6  # operators x domains x per_operator x reps


def test_the_override_changes_the_hash_and_its_absence_keeps_the_old_one():
    plain = STUDY.replace("repetitions = 3\n", "").replace("repetitions = 1\n", "")
    without = parse_config(plain, "s.toml")
    assert "repetitions" not in without.canonical_json().split('"agents"')[1].split('"cases"')[0]
    assert parse_config(STUDY, "s.toml").config_hash() != without.config_hash()
    assert [without.repetitions_of(a) for a in without.agents] == [2, 2, 2]


@pytest.mark.parametrize("value", ["0", "-1", "2.0", '"3"', "true"])
def test_a_bad_repetitions_value_names_the_file_and_the_field(value):
    text = STUDY.replace("repetitions = 1\n", f"repetitions = {value}\n")
    with pytest.raises(DataError) as info:
        parse_config(text, "bad.toml")
    assert "bad.toml" in str(info.value) and "agents[1].repetitions" in str(info.value)


def test_a_plan_too_large_by_one_agents_repetitions_is_refused():
    text = STUDY.replace("repetitions = 3\n", "repetitions = 10000\n").replace(
        "per_operator = 2", "per_operator = 100"
    )
    with pytest.raises(DataError, match="agent's repetitions"):
        parse_config(text, "big.toml")


def test_inspect_epochs_are_the_most_repetitions_of_any_configuration():
    config = parse_config(STUDY, "s.toml").model_dump(mode="json")
    assert most_repetitions(config) == 3
    assert most_repetitions({"study": {"repetitions": 2}, "agents": [{"id": "a"}]}) == 2


def test_a_replay_agent_refuses_repetitions_its_recordings_decide():
    from pydantic import ValidationError

    from sscbench.study.config import AgentSettings

    fields = {"id": "r", "kind": "replay", "replay": {"path": "runs.json"}}
    AgentSettings.model_validate(fields)  # without repetitions: accepted
    with pytest.raises(ValidationError, match="does not apply to a replay agent"):
        AgentSettings.model_validate({**fields, "repetitions": 2})
