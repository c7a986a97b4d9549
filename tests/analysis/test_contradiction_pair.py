"""The paper's contradiction-relation paired check on τ-bench with scripted profiles: the
same study with and without ``[world] consistent_source``, compared on matched (case,
configuration, repetition) pairs — adoption is never lower under the consistent source,
and it rises exactly for the profiles whose check the independent source served."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.analysis.sensitivity import paired_comparison
from sscbench.errors import DataError
from sscbench.measure.study import measure_study
from sscbench.report.inputs import read_measurements
from sscbench.run.executor import execute_study
from sscbench.study.cases import read_cases
from sscbench.study.config import parse_config


def _config(data: Path, consistent: bool, operators: str = '["ItemOption", "WriteEffect"]') -> str:
    return f"""
[study]
name = "pair"
seed = 11
repetitions = 1
concurrency = 2

[world]
source = "tau-bench"
data = "{data}"
domains = ["airline", "retail"]
consistent_source = {str(consistent).lower()}

[cases]
operators = {operators}
per_operator = 8

[[agents]]
id = "readback"
profile = "readback"

[[agents]]
id = "product-lookup"
profile = "product_lookup"
"""


def _study(data: Path, out: Path, consistent: bool) -> Path:
    text = _config(data, consistent)
    execute_study(parse_config(text, "pair.toml"), text, out, progress=False)
    measure_study(out)
    return out


@pytest.fixture(scope="module")
def pair(taubench, tmp_path_factory):
    root = tmp_path_factory.mktemp("pair")
    return _study(taubench, root / "a", False), _study(taubench, root / "b", True)


def test_adoption_is_never_lower_under_the_consistent_source(pair):
    a, b = (read_measurements(s) for s in pair)
    rows = paired_comparison(a, b, by_config=True)
    assert {(r["operator"], r["config_id"]) for r in rows} == {
        (op, cfg) for op in ("ItemOption", "WriteEffect") for cfg in ("readback", "product-lookup")
    }
    for r in rows:
        assert r["pairs"] >= 3
        assert r["adopted_only_in_a"] == 0  # no pair adopts only with the refuting source
        assert r["adoption_b_numerator"] >= r["adoption_a_numerator"]
        assert (
            r["adopted_in_both"]
            + r["adopted_only_in_a"]
            + r["adopted_only_in_b"]
            + r["adopted_in_neither"]
            == r["pairs"]
        )
    by = {(r["operator"], r["config_id"]): r for r in rows}
    # the check each profile makes is the one the variant turns: the product lookup
    # (ItemOption) and the read-back (WriteEffect) now confirm v′ instead of refuting it
    for key in (("ItemOption", "product-lookup"), ("WriteEffect", "readback")):
        assert by[key]["adoption_a_numerator"] < by[key]["pairs"]
        assert by[key]["adoption_b_numerator"] == by[key]["pairs"]
        assert by[key]["mcnemar_exact_p"] is not None
    overall = {r["operator"]: r for r in paired_comparison(a, b)}
    for r in overall.values():
        assert r["adoption_b_estimate"] > r["adoption_a_estimate"]


def test_the_pair_runs_the_same_cases_with_the_relation_marked(pair):
    a, b = (read_cases(s / "cases.jsonl") for s in pair)
    assert [c.case_id for c in a] == [c.case_id for c in b]
    assert {c.contract.authoritative_source for c in a} == {"independent"}
    assert {c.contract.authoritative_source for c in b} == {"consistent"}
    # under the consistent source the made-consistent source never refutes v′: no
    # read-back refutes WriteEffect, no product record refutes ItemOption (a later order
    # read showing the true option is another route, left as it is)
    b_rows = [
        r
        for r in read_measurements(pair[1])
        if r.kind == "faulted" and r.status == "completed" and r.triggered
    ]
    assert {r.operator for r in b_rows} == {"ItemOption", "WriteEffect"}
    for r in b_rows:
        reason = r.evidence.counterevidence if r.evidence is not None else ""
        if r.operator == "WriteEffect":
            assert r.T_E in (None, "inf", float("inf")), r.run_id
        assert "product record" not in reason, r.run_id


def test_a_study_with_an_operator_lacking_the_variant_is_refused(taubench, tmp_path):
    text = _config(taubench, True, '["ItemOption", "TimeoutAfterCommit"]')
    with pytest.raises(DataError, match=r"world\.consistent_source"):
        execute_study(parse_config(text, "pair.toml"), text, tmp_path / "s", progress=False)
