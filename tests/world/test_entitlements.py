"""The entitlement registry: every listed write finds its authorising section in the
policies of τ-bench's and the generated worlds, and removing it is what a compiler sees."""

from __future__ import annotations

import pytest

from sscbench.world.entitlements import (
    AUTHORISING_HEADINGS,
    authorising_section,
    lacks_entitlement,
    without_entitlement,
)


def _policies(worlds):
    return {domain: world.policy for domain, world in worlds.items()}


def _write_tools(world):
    return {
        n for n, s in world.tools.specs.items() if s.kind.value == "write" and not s.ends_episode
    }


@pytest.mark.parametrize("source", ["generated", "taubench"])
def test_every_registered_write_has_its_section(source, request):
    worlds = request.getfixturevalue(f"{source}_worlds")
    for world in worlds.values():
        listed = _write_tools(world) & set(AUTHORISING_HEADINGS)
        assert listed, world.name
        for tool in listed:
            span = authorising_section(world.policy, tool)
            assert span is not None, (world.name, tool)
            assert world.policy[span[0] :].startswith("## ")
            assert not lacks_entitlement(world.policy, tool)
            stripped = without_entitlement(world.policy, tool)
            assert stripped is not None and lacks_entitlement(stripped, tool)
            # every other write keeps its own section unless it shares this one
            for other in listed:
                shared = set(AUTHORISING_HEADINGS[other]) & set(AUTHORISING_HEADINGS[tool])
                assert lacks_entitlement(stripped, other) is bool(shared), (tool, other)


def test_an_unknown_policy_or_tool_is_never_missing_an_entitlement():
    assert not lacks_entitlement("Be helpful.\n## Something else\n- rule", "cancel_reservation")
    assert not lacks_entitlement("## Cancel flight\n- rule\n", "modify_user_address")
    assert lacks_entitlement("## Book flight\n- rule\n", "cancel_reservation")
    assert without_entitlement("no sections here", "cancel_reservation") is None
