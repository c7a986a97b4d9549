"""Counts on the same runs (issue #30 item 3): the re-expression's nested counts, each
claim card's own population, the crossing denominator, the stance cut by T_E < T_U and
strict admission applied to ItemOption only."""

from __future__ import annotations

from same_runs_rows import run, write_effect_runs
from sscbench.analysis.claims import BUILT_IN, EVALUABLE, claim_cards
from sscbench.analysis.populations import (
    cell_table,
    crossing_groups,
    reliance_order,
    repeated_groups,
)
from sscbench.analysis.reexpression import reexpression
from sscbench.analysis.sensitivity import DESCRIPTIONS, sensitivity_table
from sscbench.analysis.user_claims import load_claims


def test_reexpression_is_nested_counts_on_one_population():
    rows = write_effect_runs()
    pooled = next(e for e in reexpression(rows) if e["config_id"] == "all configurations")
    assert [pooled[k] for k in ("evaluable", "adopted", "eventual_evidence")] == [10, 7, 5]
    assert pooled["evidence_before_use"] == 2
    assert (pooled["evidence_after_use"], pooled["evidence_absent"]) == (3, 2)
    assert pooled["runs"]["evaluable"] == [f"r{i}" for i in range(10)]
    # the conditional-rate claim cards have different denominators; the counts share one
    cards = {c["claim"]: c for c in claim_cards(rows) if c["config_id"] == "all configurations"}
    assert cards["adoption under pre-use counterevidence"]["denominator"] == 5
    assert pooled["evaluable"] == cards["propagation"]["denominator"]


def test_each_claim_card_states_its_own_population():
    rows = write_effect_runs()
    cards = {c["claim"]: c for c in claim_cards(rows) if c["config_id"] == "all configurations"}
    propagation = cards["propagation"]["population"]
    pre = cards["adoption under pre-use counterevidence"]["population"]
    assert propagation == f"{EVALUABLE}: 10 runs, 10 clusters"
    assert pre == f"{EVALUABLE}, with Z_S = pre: 5 runs, 5 clusters"
    assert len({c["population"] for c in cards.values()}) == len(BUILT_IN)


def test_a_user_claim_states_its_filter_in_its_population(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(
        '[[claims]]\nname = "x"\nrequired_condition = "y"\npopulation = { Z_S = ["absent"] }\n'
    )
    card = next(c for c in claim_cards(write_effect_runs(), load_claims(path)))
    assert card["population"] == f"{EVALUABLE}, with Z_S in [absent]: 2 runs, 2 clusters"


def test_crossing_groups_come_with_their_denominator():
    rows = [
        run(0, case_id="a", repetition=0, Z_S="pre"),
        run(1, case_id="a", repetition=1, Z_S="late"),
        run(2, case_id="b", repetition=0, Z_S="late"),
        run(3, case_id="b", repetition=1, Z_S="late"),
        run(4, case_id="c", repetition=0, Z_S="late"),  # one repetition: not repeated
        run(5, case_id="c", repetition=1, Z_S="undecidable"),
    ]
    repeated = repeated_groups(rows)
    assert [(g["case_id"], g["crosses"]) for g in repeated] == [("a", True), ("b", False)]
    assert [g["case_id"] for g in crossing_groups(rows)] == ["a"]


def test_reliance_order_cuts_by_evidence_before_first_reliance():
    assert reliance_order(run(0, T_E=2, T_U=5)) == "before"
    assert reliance_order(run(0, T_E=5, T_U=5)) == "after"
    assert reliance_order(run(0, T_E=7, T_U=5)) == "after"
    assert reliance_order(run(0, T_E="inf", T_U=5)) == "absent"
    assert reliance_order(run(0, T_E="undecidable", T_U=5)) == "undecidable"


def test_stance_counts_split_a_stratum_by_t_e_before_t_u():
    # two late runs (T_S < T_E), one with counterevidence before reliance (T_U later)
    rows = [
        run(0, T_S=2, T_E=4, T_U=6, Z_S="late", Y_end="rejects"),
        run(1, T_S=2, T_E=4, T_U=2, Z_S="late", Y_end="endorses"),
    ]
    (cell,) = cell_table(rows)
    assert cell["Y_end_late_rejects"] == 1 and cell["Y_end_late_endorses"] == 1
    assert cell["Y_end_late_before_rejects"] == 1 and cell["Y_end_late_before_endorses"] == 0
    assert cell["Y_end_late_after_endorses"] == 1
    assert cell["runs"]["Y_end_late_before_rejects"] == ["r0"]


def test_strict_admission_drops_loose_item_option_runs_only():
    rows = [
        run(0, operator="ItemOption", literal=False),
        run(1, operator="ItemOption", literal=True),
        run(2, operator="WriteEffect", literal=False),
        run(3, operator="WriteEffect", literal=True),
    ]
    triggered = {
        (r["analysis"], r["operator"]): r["numerator"]
        for r in sensitivity_table(rows)
        if r["quantity"] == "triggered"
    }
    assert triggered[("strict admission", "ItemOption")] == 1
    assert triggered[("strict admission", "WriteEffect")] == 2  # unchanged from primary
    assert triggered[("primary", "WriteEffect")] == 2
    assert "ItemOption only" in DESCRIPTIONS["strict admission"]
