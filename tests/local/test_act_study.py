"""The act studies' configs (:mod:`sscbench.local.act_study`): one per domain, each a
valid study of that domain's operators on the generated world (no model needed)."""

from __future__ import annotations

import pytest

from sscbench.faults.operators import DEFAULT_OPERATORS, SSCBENCH_OPERATORS
from sscbench.local.act_study import ALL_OPERATORS, DOMAIN_OPERATORS, act_study_toml
from sscbench.study.config import parse_config


@pytest.mark.parametrize("domain", sorted(DOMAIN_OPERATORS))
def test_each_domain_study_runs_its_own_operators_on_its_world(domain: str) -> None:
    config = parse_config(act_study_toml("http://127.0.0.1:1/v1", domain=domain), "act.toml")
    assert config.world.domains == [domain]
    assert tuple(config.cases.operators) == DOMAIN_OPERATORS[domain]
    assert set(config.cases.max_steps) == set(DOMAIN_OPERATORS[domain])
    assert config.cases.prefer == "read-first" and config.cases.per_operator == 2


def test_the_studies_cover_the_four_sscbench_operators_once() -> None:
    assert sorted(ALL_OPERATORS) == ["ItemOption", "PaySource", "ReturnDate", "WriteEffect"]
    assert act_study_toml("http://x/v1") == act_study_toml("http://x/v1", domain="airline")


def test_the_act_studies_split_the_one_default_operator_list_by_domain():
    """``local`` may not import ``faults``: its per-domain split is checked here against the
    one default list (``faults.operators.DEFAULT_OPERATORS``), each operator on its domain."""
    assert sorted(ALL_OPERATORS) == sorted(DEFAULT_OPERATORS)
    domains = {op.name: op.domain for op in SSCBENCH_OPERATORS}
    for domain, names in DOMAIN_OPERATORS.items():
        assert all(domains[name] == domain for name in names)
        assert list(names) == [n for n in DEFAULT_OPERATORS if domains[n] == domain]
