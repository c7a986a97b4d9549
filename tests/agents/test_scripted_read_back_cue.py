"""Scripted profiles that honour the read-back cue ([world] read_back_cue).

The cue is in the write tools' descriptions the agent is given; a cue-following profile
reads the record back before reporting when it is there, and only then. What changes is
the transcript (a read-back call before the report), which measurement reads.
"""

from __future__ import annotations

import asyncio
import copy

import pytest

from sscbench.agents.scripted import scripted_agent_factory
from sscbench.core.agent import RunContext
from sscbench.core.injection import Injection, SuppressHook
from sscbench.run.episode import EpisodeResult, run_episode
from sscbench.study.profiles import PROFILES, make_profile
from sscbench.study.worlds import with_read_back_cue
from sscbench.users.scripted import scripted_user_factory
from sscbench.world.world import World

WRITE = "update_reservation_flights"
READ = "get_reservation_details"


@pytest.fixture(scope="module")
def airline(generated_worlds: dict[str, World]) -> World:
    return generated_worlds["airline"]


@pytest.fixture(scope="module")
def cued(airline: World) -> World:
    return with_read_back_cue(copy.copy(airline))


def suppress() -> list[Injection]:
    return [SuppressHook("we", match=lambda n, a, s: n == WRITE)]


def run(world: World, profile: str, **params: object) -> EpisodeResult:
    task = next(t for t in world.tasks if t.intent and t.intent["kind"] == "change_flights")
    ctx = RunContext(
        world=world,
        task=task,
        system_prompt=world.policy,
        tools=world.tool_schemas(),
        seed=0,
        repetition=0,
    )
    agent = scripted_agent_factory(profile, **params)(ctx)
    return asyncio.run(
        run_episode(
            world,
            task,
            agent,
            scripted_user_factory(ctx),
            system_prompt=world.policy,
            injections=suppress(),
            max_steps=60,
        )
    )


def calls(result: EpisodeResult) -> list[tuple[int, str]]:
    """(step, tool name) of every tool call the agent made, in order."""
    return [(e.step, c.name) for e in result.ledger if e.type == "assistant" for c in e.tool_calls]


def first_report(result: EpisodeResult) -> int:
    """The step of the first message after the write that reports its outcome."""
    write = next(step for step, name in calls(result) if name == WRITE)
    return next(
        e.step
        for e in result.ledger
        if e.type == "assistant" and e.step > write and e.content and not e.tool_calls
    )


def reads_back_before_report(result: EpisodeResult) -> bool:
    write = next(step for step, name in calls(result) if name == WRITE)
    report = first_report(result)
    return any(name == READ and write < step < report for step, name in calls(result))


def test_the_cue_is_in_the_write_tools_descriptions_only_of_the_cued_world(
    airline: World, cued: World
) -> None:
    def description(world: World) -> str:
        return next(
            s["function"]["description"]
            for s in world.tool_schemas()
            if s["function"]["name"] == WRITE
        )

    assert "read the record back" in description(cued)
    assert "read the record back" not in description(airline)


def test_cue_follower_reads_back_only_when_cued(airline: World, cued: World) -> None:
    with_cue, without = run(cued, "cue_follower"), run(airline, "cue_follower")
    assert with_cue.triggered and without.triggered
    assert reads_back_before_report(with_cue)
    assert not reads_back_before_report(without)
    assert not any(name == READ and step > first_report(without) for step, name in calls(without))
    said = [e.content for e in with_cue.ledger if e.type == "assistant" and e.content]
    assert any("did not take effect" in text for text in said)


def test_cued_tell_then_readback_reads_back_first_only_when_cued(
    airline: World, cued: World
) -> None:
    assert reads_back_before_report(run(cued, "cued_tell_then_readback"))
    plain = run(airline, "cued_tell_then_readback")
    assert not reads_back_before_report(plain)
    assert any(name == READ and step > first_report(plain) for step, name in calls(plain))


def test_profiles_without_the_setting_ignore_the_cue(airline: World, cued: World) -> None:
    assert not reads_back_before_report(run(cued, "trusting"))
    assert not reads_back_before_report(run(cued, "tell_then_readback"))


def test_cue_follower_draws_its_read_back_with_readback_p(cued: World) -> None:
    assert not reads_back_before_report(run(cued, "cue_follower", p=0.0))
    assert make_profile("cue_follower", p=0.4).readback_p == 0.4
    assert PROFILES["cue_follower"].params()["follows_readback_cue"] is True
    assert "follows_readback_cue" not in PROFILES["readback"].params()
