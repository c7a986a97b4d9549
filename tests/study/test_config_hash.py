"""Fields added to the config and the contract after studies were recorded leave the
recorded studies' config hash and cases file unchanged while they hold their defaults."""

from __future__ import annotations

import json

from sscbench.run.builders import build_cases
from sscbench.study.config import parse_config
from sscbench.study.config_hash import canonical_config_json
from sscbench.study.worlds import build_worlds

# the default study as recorded before strategy, constrain, qualify, prefer and
# consistent_source existed: its hash must not move when they appear at their defaults
BASE = """
[study]
name = "hash"
[[agents]]
id = "a"
profile = "trusting"
"""


def test_later_fields_at_their_defaults_are_not_in_the_hashed_text():
    config = parse_config(BASE, "hash.toml")
    data = json.loads(canonical_config_json(config))
    assert "consistent_source" not in data["world"]
    assert "prefer" not in data["cases"]
    for key in ("strategy", "constrain", "qualify"):
        assert key not in data["agents"][0]


def test_a_later_field_set_away_from_its_default_changes_the_hash():
    base = parse_config(BASE, "hash.toml").config_hash()
    with_source = parse_config(BASE + "[world]\nconsistent_source = true\n", "hash.toml")
    assert with_source.config_hash() != base
    assert json.loads(with_source.canonical_json())["world"]["consistent_source"] is True
    completed = parse_config(BASE + 'qualify = "completed"\n', "hash.toml")
    assert completed.config_hash() != base


def test_a_contract_at_the_independent_source_is_written_without_the_field():
    config = parse_config(BASE, "hash.toml")
    worlds = build_worlds(config)
    cases = build_cases(config, worlds)
    assert cases
    contract = next(c.contract for c in cases if c.contract is not None)
    assert "authoritative_source" not in contract.model_dump_json()
    consistent = contract.model_copy(update={"authoritative_source": "consistent"})
    assert json.loads(consistent.model_dump_json())["authoritative_source"] == "consistent"
