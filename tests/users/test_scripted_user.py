"""The scripted user: openings for every task kind, answers to identifier questions and
confirmations, a stop after a bounded number of turns."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from sscbench.core.agent import RunContext
from sscbench.core.user import STOP
from sscbench.users.scripted import ScriptedUser
from sscbench.world.world import World

ContextFactory = Callable[..., RunContext]


@pytest.fixture(scope="module")
def airline(generated_worlds: dict[str, World]) -> World:
    return generated_worlds["airline"]


@pytest.fixture(scope="module")
def retail(generated_worlds: dict[str, World]) -> World:
    return generated_worlds["retail"]


def test_scripted_user_answers_identifiers_confirms_and_stops(
    airline: World, retail: World, run_context: ContextFactory
) -> None:
    task = airline.task("gen/0")
    user = ScriptedUser(run_context(airline, "gen/0"))
    opening = asyncio.run(user.first_message())
    assert task.intent["reservation_id"] in opening and task.user_id not in opening
    assert task.user_id in user.answer("Could you please provide your user id?")
    assert task.intent["reservation_id"] in user.answer("What is your reservation number?")
    assert user.answer("I will change the flights. Shall I proceed? (yes/no)").startswith("Yes")
    assert STOP in user.answer("Done. Is there anything else I can help you with?")
    assert STOP not in user.answer("Done: reservation X now has these flights: A, B.")

    rtask = retail.task("gen/0")
    ruser = ScriptedUser(run_context(retail, "gen/0"))
    email = retail.base.tables["users"][rtask.user_id]["email"]
    assert email in ruser.answer("To locate your account, could you please provide your email?")
    zip_code = retail.base.tables["users"][rtask.user_id]["address"]["zip"]
    assert zip_code in ruser.answer("Please tell me your name and zip code.")
    assert rtask.intent["order_id"] in ruser.answer("Which order id is it?")


def test_scripted_user_openings_cover_every_kind(
    airline: World, retail: World, run_context: ContextFactory
) -> None:
    for world in (airline, retail):
        for task in world.tasks:
            opening = ScriptedUser(run_context(world, task.task_id)).request
            assert opening and "None" not in opening, (task.task_id, opening)


def test_scripted_user_stops_after_a_bounded_number_of_turns(
    airline: World, run_context: ContextFactory
) -> None:
    user = ScriptedUser(run_context(airline, "gen/0"), max_turns=3)
    replies = [asyncio.run(user.reply([])) for _ in range(3)]
    assert STOP in replies[-1]


def test_the_worked_exchange_shows_the_answers_the_scripted_user_gives(
    airline: World, run_context: ContextFactory
) -> None:
    """The act/react worked exchange (agents/demo.py) asks for the user id and announces
    the reservation read; the scripted user answers those lines as the exchange shows."""
    from sscbench.agents.demo import ASK_USER, LOOK_UP, USER_ID_REPLY

    task = airline.task("gen/7")
    user = ScriptedUser(run_context(airline, "gen/7"))
    assert user.answer(ASK_USER) == USER_ID_REPLY.replace("jane_doe_1", task.user_id)
    assert user.answer(LOOK_UP) == "OK, thank you."


def test_the_retail_worked_exchange_shows_the_answers_the_scripted_user_gives(
    retail: World, run_context: ContextFactory
) -> None:
    """The retail worked exchange asks for the email and for a yes; the scripted user
    answers those lines as the exchange shows."""
    from sscbench.agents.demo import ASK_EMAIL, CONFIRM, EMAIL_REPLY, ORDER_LOOK_UP

    task = retail.task("gen/1")
    user = ScriptedUser(run_context(retail, "gen/1"))
    email = retail.base.tables["users"][task.user_id]["email"]
    assert user.answer(ASK_EMAIL) == EMAIL_REPLY.replace("jane.doe@example.com", email)
    assert user.answer(ORDER_LOOK_UP) == "OK, thank you."
    assert user.answer(CONFIRM) == "Yes, please go ahead."
