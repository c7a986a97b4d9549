"""The profile settings the surface families test: re-sending a throttled write, treating
an incomplete read-back as no evidence, and a shallow verifier."""

from __future__ import annotations

import pytest

from sscbench.agents.scripted.phrases import incomplete, throttled
from sscbench.agents.scripted_facts import Obs
from sscbench.study.profiles import make_profile


def _obs(text: str, name: str = "get_order_details") -> Obs:
    return Obs(1, "c1", name, {}, text)


def test_surface_settings_of_the_profiles() -> None:
    keyed = make_profile("idempotent_readback")
    assert (keyed.throttle_retries, keyed.complete_readback, keyed.readback_compares) == (
        2,
        True,
        True,
    )
    shallow = make_profile("shallow_readback")
    assert shallow.readback == "before_report" and not shallow.readback_compares
    assert shallow.throttle_retries == 0 and not shallow.complete_readback
    naive = make_profile("naive_retry")
    assert (naive.throttle_retries, naive.complete_readback) == (0, False)
    # defaults stay out of the labels of profiles that do not use them
    assert "throttle_retries" not in make_profile("readback").params()
    assert "readback_compares" in shallow.params()


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"throttle_retries": -1}, "throttle_retries"),
        ({"throttle_retries": True}, "throttle_retries"),
        ({"complete_readback": "yes"}, "complete_readback"),
        ({"readback_compares": 0}, "readback_compares"),
    ],
)
def test_bad_surface_settings_name_the_field(params, field) -> None:
    with pytest.raises(ValueError, match=field):
        make_profile("readback", **params)


def test_throttled_and_incomplete_observations() -> None:
    assert throttled(_obs("Error: throttled: too many requests"))
    assert not throttled(_obs("Error: timeout: the request timed out"))
    before = _obs('{"order_id": "#W1", "status": "pending", "items": []}')
    ack = _obs('{"order_id": "#W1", "status": "cancelled", "items": [], "cancel_reason": "x"}')
    full = _obs('{"order_id": "#W1", "status": "cancelled", "items": [], "cancel_reason": "x"}')
    partial = _obs('{"order_id": "#W1", "items": []}')
    assert incomplete(ack, partial, before)
    assert not incomplete(ack, full, before)
    # an unchanged record has every field it had: not incomplete (it is "not applied")
    assert not incomplete(ack, before, before)
    assert not incomplete(ack, _obs("Error: not found"), before)
    # a record read first now (a booking) is held to the acknowledgement's fields
    assert incomplete(ack, partial, None)
