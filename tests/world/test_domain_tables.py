"""The world's record tables (world/records.py) and the confirmation rule
(world/confirmation.py) that the scripted agent, the plan, the typed families and the
release assessment all read (issue 15, items 5 and 6)."""

from __future__ import annotations

import json

import pytest

from sscbench.agents.scripted_plan import task_plan
from sscbench.core.ledger import AssistantEvent, UserEvent
from sscbench.release.run_index import confirmed
from sscbench.world.confirmation import is_affirmative
from sscbench.world.load import load_world
from sscbench.world.records import (
    BOOKING_READBACK,
    BOOKING_WRITE,
    ORDER_WRITES,
    READ_TOOLS,
    RESERVATION_WRITES,
    USER_WRITES,
    reads_booked_record,
    record_key,
)
from sscbench.world.tools import ToolKind

WORLDS = {domain: load_world("generated", domain) for domain in ("airline", "retail")}
KIND_OF = {**dict.fromkeys(RESERVATION_WRITES, "reservation")}
KIND_OF.update(dict.fromkeys(ORDER_WRITES, "order"))
KIND_OF.update(dict.fromkeys(USER_WRITES, "user"))


def _spec(name: str):
    for world in WORLDS.values():
        if name in world.tools.specs:
            return world, world.tools.specs[name]
    raise AssertionError(f"{name} is in no world")


@pytest.mark.parametrize("name", sorted(KIND_OF))
def test_every_write_of_the_sets_is_a_write_tool_keyed_by_its_record(name):
    _world, spec = _spec(name)
    assert spec.kind is ToolKind.WRITE and not spec.ends_episode
    kind = KIND_OF[name]
    id_argument = READ_TOOLS[kind].id_argument
    assert id_argument in spec.parameters, (name, id_argument)
    assert record_key(name, {id_argument: "X1"}) == (kind, "X1")
    assert record_key(name, {id_argument: 7}) is None  # ids are strings or nothing


def test_the_sets_cover_every_write_that_names_a_record():
    for world in WORLDS.values():
        for name, spec in world.tools.specs.items():
            if spec.kind is ToolKind.WRITE and not spec.ends_episode:
                assert name in KIND_OF, f"{world.name}: {name} missing from the write sets"


@pytest.mark.parametrize("kind", sorted(READ_TOOLS))
def test_each_record_kind_is_read_by_its_read_tool_from_its_table(kind):
    read = READ_TOOLS[kind]
    world, spec = _spec(read.tool)
    assert spec.kind is ToolKind.READ
    assert read.id_argument in spec.parameters
    assert read.table in world.base.tables
    assert record_key(read.tool, {read.id_argument: "R"}) == (kind, "R")
    record_id = next(iter(world.base.tables[read.table]))
    observation = world.new_env().execute(read.tool, {read.id_argument: record_id}).observation
    assert json.loads(observation) == world.base.tables[read.table][record_id]


def test_a_booking_is_read_back_through_the_new_reservation():
    assert reads_booked_record(BOOKING_WRITE, BOOKING_READBACK)
    assert not reads_booked_record("update_reservation_flights", BOOKING_READBACK)
    assert not reads_booked_record(BOOKING_WRITE, "get_user_details")
    # the booking's acknowledgement is the new reservation, which its read-back returns
    world = WORLDS["airline"]
    task = next(t for t in world.tasks if any(a.name == BOOKING_WRITE for a in t.actions))
    env = world.new_env()
    ack = None
    for action in task.actions:
        out = env.execute(action.name, dict(action.kwargs)).observation
        if action.name == BOOKING_WRITE:
            ack = json.loads(out)
    assert ack is not None
    back = env.execute(BOOKING_READBACK, {"reservation_id": ack["reservation_id"]}).observation
    assert json.loads(back) == ack


def test_the_plan_keeps_the_authoritative_record_from_the_table_of_its_kind():
    world = WORLDS["retail"]
    task = next(t for t in world.tasks if any(a.name in ORDER_WRITES for a in t.actions))
    step = next(s for s in task_plan(world, task).steps if s.name in ORDER_WRITES)
    oid = step.kwargs["order_id"]
    assert step.before["order"] == world.base.tables[READ_TOOLS["order"].table][oid]
    assert step.owner == step.before["order"]["user_id"]


@pytest.mark.parametrize(
    "reply, yes",
    [
        ("Yes, please go ahead.", True),
        ("YES", True),
        ("ok", True),
        ("Sure, proceed", True),
        ("No, don't.", False),
        ("Stop, yes I mean no", False),
        ("Cancel that, yes", False),  # an opening "cancel" is no explicit go-ahead
        ("Please cancel it, yes.", True),  # "cancel" inside the reply is the request
        ("Let me think about it.", False),
        ("", False),
    ],
)
def test_an_explicit_yes(reply, yes):
    assert is_affirmative(reply) is yes


def _dialogue(reply: str) -> list:
    return [
        UserEvent(step=0, content="Cancel my order #W1."),
        AssistantEvent(step=1, content="I will cancel order #W1. Shall I proceed? (yes/no)"),
        UserEvent(step=2, content=reply),
        AssistantEvent(step=3, content=None),
    ]


@pytest.mark.parametrize("reply", ["Yes, please go ahead.", "Cancel that, yes", "No"])
def test_the_assessment_reads_a_reply_as_the_scripted_agent_does(reply):
    # the authority checkpoint and the scripted agent share one rule
    assert confirmed(_dialogue(reply), 3, -1) is is_affirmative(reply)
