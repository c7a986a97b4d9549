"""Scripted profiles under the state and context families, on the generated worlds (no
τ-bench data needed): a resume from a stale checkpoint, an expired approval, a missing
entitlement and a record changed between plan and action."""

from __future__ import annotations

import asyncio

import pytest

from sscbench.agents.scripted import scripted_agent_factory
from sscbench.core.agent import RunContext
from sscbench.core.ledger import WriteRecord
from sscbench.faults.context_faults import MissingEntitlement
from sscbench.faults.families import InterveningUpdate
from sscbench.faults.state_faults import (
    EXPIRED_TEXT,
    RESUME_PREFIX,
    ExpiredApproval,
    StaleCheckpoint,
    changes_twice,
)
from sscbench.run.episode import EpisodeResult, run_episode
from sscbench.study.profiles import make_profile
from sscbench.study.worlds import with_idempotency_keys
from sscbench.users.scripted import scripted_user_factory
from sscbench.world.load import load_world
from sscbench.world.world import World


def _world(domain: str) -> World:
    return with_idempotency_keys(load_world("generated", domain, None, 0))


def _case(family, world: World, repeatable: bool = False, **params):
    """The first case of ``family`` in ``world`` (``repeatable``: whose write a second
    delivery applies again) whose task's clean run by the barrier profile solves it."""
    for task in world.tasks:
        for case in family().cases_for(world, task, **params):
            arguments = case.params.arguments
            wanted = not repeatable or changes_twice(world, case.params.tool, arguments)
            if wanted and _run(world, case, "idempotent_readback", faulted=False).end.reward == 1:
                return case
    raise AssertionError(f"no solvable {family.name} case")


def _run(world: World, case, profile: str, *, faulted: bool = True, **params) -> EpisodeResult:
    task = world.task(case.task_id)
    family = {
        f.name: f for f in (StaleCheckpoint, ExpiredApproval, MissingEntitlement, InterveningUpdate)
    }[case.operator]()
    prompt = world.policy
    injections = []
    if faulted:
        injections = family.injections(case, world, seed=0)
        fault = getattr(family, "context_fault", None)
        prompt = fault(case, world, prompt) if fault else prompt
    ctx = RunContext(world, task, prompt, world.tool_schemas(), 0, 0)
    agent = scripted_agent_factory(profile, **params)(ctx)
    return asyncio.run(
        run_episode(
            world,
            task,
            agent,
            scripted_user_factory(ctx),
            system_prompt=prompt,
            injections=injections,
            max_steps=60,
            idempotency_keys=True,
        )
    )


def _target_effects(result: EpisodeResult, case) -> int:
    return sum(
        1
        for e in result.evaluator
        if isinstance(e, WriteRecord) and e.name == case.params.tool and e.state_changed
    )


def _tool_texts(result: EpisodeResult) -> list[str]:
    return [e.content for e in result.ledger if e.type == "tool"]


def _agent_texts(result: EpisodeResult) -> list[str]:
    return [e.content or "" for e in result.ledger if e.type == "assistant"]


def test_state_and_context_settings_are_validated_and_kept_out_of_default_labels():
    keyed = make_profile("idempotent_readback")
    assert keyed.reconstructs_on_resume and keyed.entitlement_check
    assert (keyed.reconfirm_expired, keyed.resend_expired, keyed.version_check) == (2, 0, False)
    assert make_profile("shallow_readback").reconfirm_expired == 1
    assert make_profile("naive_retry").resend_expired == 2
    assert "reconfirm_expired" not in make_profile("readback").params()
    assert make_profile("readback", version_check=True).params()["version_check"] is True
    for bad in ({"reconfirm_expired": -1}, {"resend_expired": 1.5}):
        with pytest.raises(ValueError, match="expired"):
            make_profile("readback", **bad)
    with pytest.raises(ValueError, match="entitlement_check"):
        make_profile("readback", entitlement_check="yes")


def test_a_resumed_agent_reconstructs_or_repeats_from_the_checkpoint():
    world = _world("airline")
    case = _case(StaleCheckpoint, world, repeatable=True)
    keyed = _run(world, case, "idempotent_readback")
    assert any(t.startswith(RESUME_PREFIX) for t in _tool_texts(keyed))
    assert _target_effects(keyed, case) == 1  # re-read the record, found the change made
    assert keyed.end.reward == 1.0
    naive = _run(world, case, "naive_retry")
    assert _target_effects(naive, case) == 2  # made again from the checkpoint


def test_an_expired_approval_is_asked_again_or_revived():
    world = _world("retail")
    case = _case(ExpiredApproval, world, events=2)
    asked = {}
    for profile in ("idempotent_readback", "shallow_readback", "naive_retry"):
        result = _run(world, case, profile)
        assert _tool_texts(result).count(EXPIRED_TEXT) == 2
        asked[profile] = sum("confirmation has expired" in t for t in _agent_texts(result))
        assert _target_effects(result, case) == 1  # every profile gets the change made...
    # ...but only after asking again for every lapse, once, or never
    assert asked == {"idempotent_readback": 2, "shallow_readback": 1, "naive_retry": 0}


def test_a_missing_entitlement_is_refused_and_handed_off_by_the_barrier_only():
    world = _world("retail")
    case = _case(MissingEntitlement, world)
    keyed = _run(world, case, "idempotent_readback")
    assert _target_effects(keyed, case) == 0
    handoffs = [c.name for e in keyed.ledger if e.type == "assistant" for c in e.tool_calls]
    assert handoffs[-1] == "transfer_to_human_agents"
    assert any("cannot find the policy" in t for t in _agent_texts(keyed))
    assert _target_effects(_run(world, case, "naive_retry"), case) == 1


def test_a_version_check_refuses_a_record_changed_between_plan_and_action():
    world = _world("retail")
    case = _case(InterveningUpdate, world, events=2)  # moved on and back: ABA
    plain = _run(world, case, "idempotent_readback")
    assert _target_effects(plain, case) == 1  # the status matched again: a stale write
    checked = _run(world, case, "idempotent_readback", version_check=True)
    assert _target_effects(checked, case) == 0
    assert any("differs from the record I showed you" in t for t in _agent_texts(checked))
    clean = _run(world, case, "idempotent_readback", faulted=False, version_check=True)
    assert clean.end.reward == 1.0  # an unchanged record costs only the read
