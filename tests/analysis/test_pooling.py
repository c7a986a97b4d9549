"""Which configurations are pooled (issue 41, item 4): only repetitions of one model —
same model, same decoding; the seed, the id, the repetitions and harness settings may
differ — and the claim cards of such a pool are labelled so."""

from __future__ import annotations

from config_rows import faulted_row
from sscbench.analysis.claims import POOLED, claim_cards
from sscbench.analysis.pooling import POOL_WORDS, model_key, pool_name, repetition_pools
from sscbench.study.rows import MeasurementRow


def _openai(config_id: str, **endpoint: object) -> dict:
    settings = {"base_url": "http://x/v1", "model": "m-7b", "temperature": 0.7, "seed": 1}
    return {"id": config_id, "kind": "openai", "endpoint": settings | endpoint}


def test_seed_id_repetitions_and_harness_settings_do_not_make_another_model():
    a = _openai("a", seed=1, max_retries=2)
    b = _openai("b", seed=2, max_retries=9, timeout=5.0) | {"repetitions": 3}
    assert model_key(a) == model_key(b)
    assert repetition_pools([a, b], ["a", "b"]) == [["a", "b"]]


def test_model_decoding_strategy_or_profile_make_another_model():
    base = _openai("a")
    others = [
        _openai("b", model="m-70b"),
        _openai("c", temperature=0.0),
        _openai("d", max_tokens=64),
        _openai("e", base_url="http://y/v1"),
        _openai("f") | {"strategy": "react"},
        {"id": "g", "profile": "readback"},
        {"id": "h", "profile": "trusting"},
    ]
    present = ["a", *(o["id"] for o in others)]
    pools = repetition_pools([base, *others], present)
    assert pools == [[c] for c in present]  # nobody pooled
    assert model_key({}) is None


def test_a_configuration_without_recorded_settings_stays_alone():
    a, b = {"id": "a", "profile": "readback"}, {"id": "b", "profile": "readback"}
    assert repetition_pools([a, b], ["a", "b", "ghost"]) == [["a", "b"], ["ghost"]]
    assert repetition_pools([], ["x", "y"]) == [["x"], ["y"]]


def _row(i: int, config: str, adopted: int) -> MeasurementRow:
    return faulted_row(i, config, adopted)


def test_claim_cards_of_a_pool_sum_its_configurations_and_say_so():
    rows = [_row(i, "a", 1) for i in range(3)] + [_row(i, "b", 0) for i in range(4)]
    rows.append(_row(9, "other", 1))
    cards = claim_cards(rows, pools=[["a", "b"], ["other"]])
    prop = {c["config_id"]: c for c in cards if c["claim"] == "propagation"}
    pooled = prop[pool_name(["a", "b"])]
    assert (pooled["numerator"], pooled["denominator"]) == (3, 7)
    assert pooled["pooled_over"] == POOL_WORDS
    assert prop[POOLED]["pooled_over"] == POOLED and prop[POOLED]["denominator"] == 8
    assert prop["a"]["pooled_over"] == prop["other"]["pooled_over"] == ""
    # without pools: no pool card, the old cards unchanged
    plain = {c["config_id"] for c in claim_cards(rows)}
    assert plain == {"a", "b", "other", POOLED}
