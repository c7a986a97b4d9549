"""Scripted behaviour profiles: clean runs, determinism, faults, labels (the scripted user:
``tests/users/test_scripted_user.py``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.agents.scripted import ScriptedAgent, scripted_agent_factory
from sscbench.agents.scripted_facts import directions
from sscbench.core.agent import Agent, RunContext
from sscbench.core.injection import Injection, RewriteHook, SuppressHook
from sscbench.core.user import User
from sscbench.run.episode import EpisodeResult, run_episode
from sscbench.study.profiles import PROFILES, make_profile
from sscbench.users.scripted import ScriptedUser, scripted_user_factory
from sscbench.world.load import load_world
from sscbench.world.world import World

# τ-bench test tasks a scripted profile cannot solve, with the reason (state always matches;
# what is missing is a required output the script neither computes nor reads anywhere).
KNOWN_UNSOLVED = {
    "airline": {
        "test/8": "outputs 327/1000 are sums of gift-card and certificate balances",
        "test/9": "outputs 327/1000/1286 are balance sums and a card charge of a new booking",
        "test/44": "output 4 is a number of free bags derived from the policy",
    },
    "retail": {
        "test/2": "output 10 is a count of available T-shirt variants",
        "test/3": "output 10 is a count of available T-shirt variants",
        "test/4": "output 10 is a count of available T-shirt variants",
        "test/19": "output 41.64 is the saving of an alternative the user did not choose",
        "test/21": "output 44.08 is a gift-card balance after two changes",
        "test/24": "outputs are materials of products the ground truth never reads",
        "test/34": "output 1093.34 is the total of items returned across orders",
        "test/76": "output 1939.05 is the total price of grills in other orders",
        "test/89": "outputs are price and options of a keyboard found by a catalogue search",
        "test/104": "output is a tracking number of an order the ground truth never reads",
        "test/105": "output is a tracking number of an order the ground truth never reads",
    },
}


@pytest.fixture(scope="module")
def airline(generated_worlds: dict[str, World]) -> World:
    return generated_worlds["airline"]


@pytest.fixture(scope="module")
def retail(generated_worlds: dict[str, World]) -> World:
    return generated_worlds["retail"]


def context(world: World, task_id: str, seed: int = 0, repetition: int = 0) -> RunContext:
    return RunContext(
        world=world,
        task=world.task(task_id),
        system_prompt=world.policy,
        tools=world.tool_schemas(),
        seed=seed,
        repetition=repetition,
    )


def run(
    world: World,
    task_id: str,
    profile: str,
    injections: list[Injection] | tuple[Injection, ...] = (),
    *,
    seed: int = 0,
    repetition: int = 0,
    max_steps: int = 60,
    **params: Any,
) -> EpisodeResult:
    ctx = context(world, task_id, seed, repetition)
    agent = scripted_agent_factory(profile, **params)(ctx)
    user = scripted_user_factory(ctx)
    return asyncio.run(
        run_episode(
            world,
            ctx.task,
            agent,
            user,
            system_prompt=world.policy,
            injections=injections,
            max_steps=max_steps,
        )
    )


def labels(result: EpisodeResult) -> dict[str, Any]:
    found = [e for e in result.evaluator if e.type == "calibration"]
    assert len(found) == 1
    return found[0].labels


def texts(result: EpisodeResult) -> list[tuple[int, str]]:
    return [(e.step, e.content) for e in result.ledger if e.type == "assistant" and e.content]


def dump(result: EpisodeResult) -> str:
    events = [e.model_dump(mode="json") for e in [*result.ledger, *result.evaluator]]
    return json.dumps(events, sort_keys=True)


def tasks_of(world: World, kind: str) -> list[str]:
    return [t.task_id for t in world.tasks if t.intent and t.intent["kind"] == kind]


# ---- clean runs ---------------------------------------------------------------------


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_every_profile_solves_every_generated_task(profile: str, domain: str, request) -> None:
    world = request.getfixturevalue(domain)
    kinds = sorted({t.intent["kind"] for t in world.tasks})
    assert len(kinds) == (5 if domain == "airline" else 6)
    for task in world.tasks:
        result = run(world, task.task_id, profile)
        assert result.end.status == "completed", result.evaluator
        assert result.end.reward == 1.0, (task.task_id, task.intent["kind"], result.end)
        assert result.end.termination == "user_stop"
        json.dumps(labels(result))  # labels are JSON-serialisable


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_profiles_solve_taubench_tasks_except_known_outputs(taubench, domain: str) -> None:
    world = load_world("tau-bench", domain, taubench)
    tasks = [t for t in world.tasks if t.task_id.startswith("test/")]
    for profile in ("trusting", "readback", "product_lookup", "payment_check"):
        unsolved = {}
        for task in tasks:
            result = run(world, task.task_id, profile, max_steps=100)
            assert result.end.status == "completed", result.evaluator
            assert result.end.state_matches, (profile, task.task_id)
            if result.end.reward != 1.0:
                unsolved[task.task_id] = result.end.outputs
        assert set(unsolved) == set(KNOWN_UNSOLVED[domain]), (profile, unsolved)


# ---- determinism --------------------------------------------------------------------


def test_same_seed_gives_identical_ledgers(airline: World, retail: World) -> None:
    for world, task_id in ((airline, "gen/0"), (airline, "gen/18"), (retail, "gen/0")):
        for profile in ("random_readback", "tell_then_readback", "product_lookup"):
            first = run(world, task_id, profile, seed=11, repetition=2)
            second = run(world, task_id, profile, seed=11, repetition=2)
            assert dump(first) == dump(second)


def test_random_readback_varies_across_repetitions(airline: World) -> None:
    task_ids = tasks_of(airline, "change_flights")[:3]
    seen: dict[str, set[str]] = {t: set() for t in task_ids}
    for task_id in task_ids:
        for repetition in range(6):
            result = run(airline, task_id, "random_readback", seed=3, repetition=repetition)
            assert result.end.reward == 1.0
            seen[task_id].add(dump(result))
    assert any(len(dumps) > 1 for dumps in seen.values())


@settings(max_examples=25, deadline=None)
@given(
    index=st.integers(min_value=0, max_value=65),
    seed=st.integers(min_value=0, max_value=2**31 - 1),
    repetition=st.integers(min_value=0, max_value=9),
    p=st.floats(min_value=0.0, max_value=1.0),
)
def test_random_readback_always_solves_clean_tasks_reproducibly(
    generated_worlds: dict[str, World], index: int, seed: int, repetition: int, p: float
) -> None:
    world = generated_worlds["airline" if index < 30 else "retail"]
    task_id = world.tasks[index % len(world.tasks)].task_id
    first = run(world, task_id, "random_readback", seed=seed, repetition=repetition, p=p)
    assert first.end.reward == 1.0
    again = run(world, task_id, "random_readback", seed=seed, repetition=repetition, p=p)
    assert dump(first) == dump(again)


def test_profile_parameters() -> None:
    assert make_profile("random_readback", p=0.25).readback_p == 0.25
    assert scripted_agent_factory("readback", retry=True).profile.retry is True
    with pytest.raises(KeyError, match="unknown scripted profile"):
        scripted_agent_factory("nope")
    with pytest.raises(ValueError, match="unknown parameter 'colour'"):
        scripted_agent_factory("trusting", colour="red")
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        scripted_agent_factory("random_readback", p=2)


def test_scripted_agent_and_user_implement_the_protocols(airline: World) -> None:
    ctx = context(airline, "gen/0")
    assert isinstance(ScriptedAgent(ctx, "trusting"), Agent)
    assert isinstance(ScriptedUser(ctx), User)


# ---- WriteEffect: a suppressed flight change ---------------------------------------------


def suppress_flights() -> list[Injection]:
    return [SuppressHook("we", match=lambda n, a, s: n == "update_reservation_flights")]


def test_readback_says_not_applied_before_any_success_claim(airline: World) -> None:
    task_id = tasks_of(airline, "change_flights")[0]
    result = run(airline, task_id, "readback", suppress_flights())
    assert result.triggered
    said = texts(result)
    failure = next(step for step, text in said if "did not take effect" in text)
    assert not any(text.startswith("Done") for step, text in said if step < failure)
    write_uses = [u for u in labels(result)["uses"] if u["fact"].startswith("write:")]
    assert write_uses[0]["value"] == "not_applied"
    assert write_uses[0]["step"] == failure
    assert labels(result)["writes"][0]["took_effect"] is False
    rid = airline.task(task_id).intent["reservation_id"]
    assert labels(result)["final_stance"][f"write:{rid}:update_reservation_flights"] == "rejects"


def test_never_readback_claims_success(airline: World) -> None:
    task_id = tasks_of(airline, "change_flights")[0]
    result = run(airline, task_id, "never_readback", suppress_flights())
    said = texts(result)
    assert any(text.startswith("Done") for _, text in said)
    assert not any("did not take effect" in text for _, text in said)
    assert not [r for r in labels(result)["reads"] if r["purpose"] == "readback"]
    assert result.end.reward == 0.0


def test_tell_then_readback_claims_then_corrects(airline: World) -> None:
    task_id = tasks_of(airline, "change_flights")[0]
    result = run(airline, task_id, "tell_then_readback", suppress_flights())
    said = texts(result)
    claim = next(step for step, text in said if text.startswith("Done"))
    correction = next(step for step, text in said if text.startswith("Correction"))
    assert claim < correction
    values = [u["value"] for u in labels(result)["uses"] if u["fact"].startswith("write:")]
    assert values == ["applied", "not_applied"]
    first = next(u for u in labels(result)["uses"] if u["fact"].startswith("write:"))
    assert first["relied_on_injected"] is True


def test_readback_with_retry_recovers_from_a_one_shot_suppression(airline: World) -> None:
    task_id = tasks_of(airline, "change_flights")[0]
    result = run(airline, task_id, "readback", suppress_flights(), retry=True)
    assert result.end.reward == 1.0
    writes = labels(result)["writes"]
    assert [w["took_effect"] for w in writes] == [False, True]


# ---- ReturnDate: a reservation read with the return date moved before the outbound -----


def earlier_return(reservation_id: str, persistent: bool = False) -> list[Injection]:
    def rewrite(observation: str, arguments: Any, state: Any) -> str | None:
        record = json.loads(observation)
        outbound, back = directions(record)
        if not back:
            return None
        day = int(outbound[-1]["date"][-2:]) - 2
        for flight in back:
            flight["date"] = f"2024-05-{day:02d}"
        return json.dumps(record)

    return [
        RewriteHook(
            "rd",
            match=lambda n, a, s: (
                n == "get_reservation_details" and a.get("reservation_id") == reservation_id
            ),
            rewrite=rewrite,
            persistent=persistent,
        )
    ]


def round_trip_change(world: World) -> str:
    for task in world.tasks:
        intent = task.intent
        if (
            intent["kind"] == "change_flights"
            and intent.get("trip_type") == "round_trip"
            and intent["changed"] == "outbound"
        ):
            return task.task_id
    raise AssertionError("no round-trip outbound change in the generated world")


def test_trusting_states_and_uses_the_faulted_return_date(airline: World) -> None:
    task_id = round_trip_change(airline)
    rid = airline.task(task_id).intent["reservation_id"]
    result = run(airline, task_id, "trusting", earlier_return(rid))
    assert result.triggered
    faulted = json.loads(
        next(e for e in result.evaluator if e.type == "intervention").delivered_observation
    )
    bad = directions(faulted)[1][0]["date"]
    uses = [u for u in labels(result)["uses"] if u["fact"] == f"reservation:{rid}:return_date"]
    assert uses and all(u["value"] == bad and u["relied_on_injected"] for u in uses)
    by_step = {e.step: e for e in result.ledger}
    first = uses[0]
    assert bad in by_step[first["step"]].content  # stated in the message of the use step
    assert by_step[first["source_step"]].type == "tool"
    assert by_step[first["source_step"]].name == "get_reservation_details"
    write_use = [u for u in uses if by_step[u["step"]].tool_calls]
    assert write_use, "the faulted date went into the write arguments"
    assert bad in by_step[write_use[0]["step"]].tool_calls[0].arguments
    assert labels(result)["final_stance"][f"reservation:{rid}:return_date"] == "endorses"
    assert result.end.reward == 0.0


def test_consistency_check_rereads_before_using_the_return_date(airline: World) -> None:
    task_id = round_trip_change(airline)
    rid = airline.task(task_id).intent["reservation_id"]
    result = run(airline, task_id, "consistency_check", earlier_return(rid))
    assert result.end.reward == 1.0
    uses = [u for u in labels(result)["uses"] if u["fact"] == f"reservation:{rid}:return_date"]
    assert uses[0]["kind"] == "verify" and uses[0]["value_is_injected"] is True
    assert all(not u["relied_on_injected"] for u in uses)
    rechecks = [r for r in labels(result)["reads"] if r["purpose"] == "recheck"]
    assert len(rechecks) == 1 and rechecks[0]["step"] == uses[0]["step"]
    assert labels(result)["final_stance"][f"reservation:{rid}:return_date"] == "rejects"


def test_consistency_check_hands_over_when_the_record_stays_inconsistent(airline: World) -> None:
    task_id = round_trip_change(airline)
    rid = airline.task(task_id).intent["reservation_id"]
    result = run(airline, task_id, "consistency_check", earlier_return(rid, persistent=True))
    assert result.end.termination in ("user_stop", "transfer")
    assert not [w for w in labels(result)["writes"]]


# ---- ItemOption and PaySource ---------------------------------------------------------------


def swapped_options(world: World, order_id: str, item_id: str) -> list[Injection]:
    order = world.base.tables["orders"][order_id]
    item = next(i for i in order["items"] if i["item_id"] == item_id)
    product = world.base.tables["products"][item["product_id"]]
    other = next(v for k, v in product["variants"].items() if v["options"] != item["options"])

    def rewrite(observation: str, arguments: Any, state: Any) -> str:
        record = json.loads(observation)
        for entry in record["items"]:
            if entry["item_id"] == item_id:
                entry["options"] = dict(other["options"])
        return json.dumps(record)

    hook = RewriteHook(
        "io",
        match=lambda n, a, s: n == "get_order_details" and a.get("order_id") == order_id,
        rewrite=rewrite,
        persistent=True,
    )
    return [hook]


def test_product_lookup_trusts_the_variant_over_the_order(retail: World) -> None:
    task = retail.task(tasks_of(retail, "exchange")[0])
    oid, iid = task.intent["order_id"], task.intent["item_ids"][0]
    fact = f"order:{oid}:item:{iid}:options"
    true_options = task.intent["items"][0]["options"]
    trusting = run(retail, task.task_id, "trusting", swapped_options(retail, oid, iid))
    uses = [u for u in labels(trusting)["uses"] if u["fact"] == fact]
    assert uses and all(u["relied_on_injected"] and u["value"] != true_options for u in uses)
    assert labels(trusting)["final_stance"][fact] == "endorses"
    # trusting states the option first, looks the product up afterwards (late arrival)
    product_read = next(r for r in labels(trusting)["reads"] if r["name"] == "get_product_details")
    assert uses[0]["step"] < product_read["observation_step"]

    checked = run(retail, task.task_id, "product_lookup", swapped_options(retail, oid, iid))
    uses = [u for u in labels(checked)["uses"] if u["fact"] == fact]
    assert [u["kind"] for u in uses][:2] == ["verify", "use"]
    assert all(u["value"] == true_options for u in uses if u["kind"] == "use")
    assert not any(u["relied_on_injected"] for u in uses)
    assert labels(checked)["final_stance"][fact] == "rejects"
    assert checked.end.reward == 1.0


def flipped_category(user_id: str, payment_id: str, persistent: bool) -> list[Injection]:
    def rewrite(observation: str, arguments: Any, state: Any) -> str:
        record = json.loads(observation)
        method = record["payment_methods"][payment_id]
        method["source"] = "gift_card" if method["source"] != "gift_card" else "credit_card"
        return json.dumps(record)

    return [
        RewriteHook(
            "ps",
            match=lambda n, a, s: n == "get_user_details" and a.get("user_id") == user_id,
            rewrite=rewrite,
            persistent=persistent,
        )
    ]


def test_payment_check_rereads_the_category(airline: World) -> None:
    task = airline.task(tasks_of(airline, "update_baggages")[0])
    pid = task.intent["payment_id"]
    fact = f"payment:{pid}:category"
    injections = flipped_category(task.user_id, pid, persistent=False)
    trusting = run(airline, task.task_id, "trusting", injections)
    uses = [u for u in labels(trusting)["uses"] if u["fact"] == fact]
    assert uses and uses[0]["relied_on_injected"] is True
    assert uses[0]["value"] != task.intent["payment_source"]

    injections = flipped_category(task.user_id, pid, persistent=False)
    checked = run(airline, task.task_id, "payment_check", injections)
    uses = [u for u in labels(checked)["uses"] if u["fact"] == fact]
    assert [u["kind"] for u in uses] == ["verify", "use"]
    assert uses[-1]["value"] == task.intent["payment_source"]
    assert labels(checked)["final_stance"][fact] == "rejects"


def test_use_steps_point_at_assistant_events_and_sources_at_tool_events(
    airline: World, retail: World
) -> None:
    for world in (airline, retail):
        for task in world.tasks[::5]:
            result = run(world, task.task_id, "readback")
            by_step = {e.step: e for e in result.ledger}
            for use in labels(result)["uses"]:
                assert by_step[use["step"]].type == "assistant"
                assert by_step[use["source_step"]].type == "tool"
                assert use["source_step"] < use["step"]
            for read in labels(result)["reads"]:
                assert by_step[read["observation_step"]].type == "tool"
                assert by_step[read["observation_step"]].name == read["name"]
