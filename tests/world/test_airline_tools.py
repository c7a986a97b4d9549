"""The airline tools against τ-bench: conformance corpus, schemas, quirks and isolation."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from sscbench.world.airline.tools import AIRLINE_TOOLS
from sscbench.world.conformance import run_conformance
from sscbench.world.hashing import data_hash
from sscbench.world.world import World

# One recorded gpt-4o episode whose stored arguments were changed after they were used:
# τ-bench's book_reservation keeps the caller's ``payment_methods`` list as the new
# reservation's ``payment_history``, and the cancel_reservation that followed appended
# the refund to that same list, so the corpus shows the booking (step 9) paid with
# [305, -305] while τ-bench actually received [305] (see the historical trajectory).
# No faithful tool can reproduce that booking from the stored arguments.
CORPUS_ALIASED = "gpt-4o-airline[150] task 0 trial 3"


@pytest.fixture(scope="module")
def world(taubench_worlds: dict[str, World]) -> World:
    return taubench_worlds["airline"]


@pytest.fixture(scope="module")
def airline_episodes(taubench_conformance: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("conformance") / "airline.jsonl"
    with (taubench_conformance / "episodes.jsonl").open(encoding="utf-8") as src:
        lines = [line for line in src if json.loads(line)["domain"] == "airline"]
    out.write_text("".join(lines), encoding="utf-8")
    return out


def test_airline_conformance_corpus(world: World, airline_episodes: Path) -> None:
    report = run_conformance(airline_episodes, lambda domain: world)
    assert report.hashes == 400
    assert report.differences == [], report.differences[:3]
    assert report.passed
    # The aliased episode's booking is replayed with the arguments τ-bench received.
    assert len(report.restored) == 1 and CORPUS_ALIASED in report.restored[0]


def test_aliased_episode_matches_with_the_arguments_tau_bench_received(
    world: World, airline_episodes: Path
) -> None:
    episodes = [json.loads(line) for line in airline_episodes.read_text().splitlines()]
    (episode,) = [e for e in episodes if e["source"] == CORPUS_ALIASED]
    booking = episode["steps"][9]["kwargs"]
    assert [p["amount"] for p in booking["payment_methods"]] == [305, -305]
    booking["payment_methods"] = booking["payment_methods"][:1]
    env = world.new_env()
    for step in episode["steps"]:
        assert env.execute(step["name"], step["kwargs"]).observation == step["observation"]
    assert env.db_hash() == episode["final_hash"]


def test_base_is_never_mutated(
    world: World, airline_episodes: Path, taubench_conformance: Path
) -> None:
    expected = json.loads((taubench_conformance / "initial_hashes.json").read_text())
    run_conformance(airline_episodes, lambda domain: world)
    assert data_hash(world.base.tables) == expected["airline"]
    assert world.base.initial_hash() == expected["airline"]
    assert world.new_env().db_hash() == expected["airline"]


def test_schemas_mirror_tools_json_apart_from_descriptions(world: World, taubench: Path) -> None:
    original = json.loads((taubench / "airline" / "tools.json").read_text())

    def shape(value):
        if isinstance(value, dict):
            return {k: shape(v) for k, v in value.items() if k != "description"}
        if isinstance(value, list):
            return [shape(v) for v in value]
        return value

    ours = AIRLINE_TOOLS.schemas()
    assert [s["function"]["name"] for s in ours] == [s["function"]["name"] for s in original]
    for mine, theirs in zip(ours, original, strict=True):
        assert shape(mine["function"]["parameters"]) == shape(theirs["function"]["parameters"])
    assert [n for n, s in AIRLINE_TOOLS.specs.items() if s.ends_episode] == [
        "transfer_to_human_agents"
    ]


def _bookable_reservation(world: World) -> tuple[str, dict, str]:
    """A reservation whose flights are all still available in business, and a card of its owner."""
    flights = world.base.tables["flights"]
    users = world.base.tables["users"]
    for rid, res in world.base.tables["reservations"].items():
        if res["cabin"] == "business" or not res["flights"]:
            continue
        days = [flights[f["flight_number"]]["dates"].get(f["date"]) for f in res["flights"]]
        if not all(
            d
            and d["status"] == "available"
            and d["available_seats"]["business"] >= len(res["passengers"])
            for d in days
        ):
            continue
        cards = [
            p
            for p, m in users[res["user_id"]]["payment_methods"].items()
            if m["source"] == "credit_card"
        ]
        if cards:
            return rid, res, cards[0]
    pytest.skip("no reservation suits the test")


def test_update_reservation_flights_keeps_the_cabin(world: World) -> None:
    rid, res, card = _bookable_reservation(world)
    env = world.new_env()
    flights = [{"flight_number": f["flight_number"], "date": f["date"]} for f in res["flights"]]
    out = json.loads(
        env.execute(
            "update_reservation_flights",
            {"reservation_id": rid, "cabin": "business", "flights": flights, "payment_id": card},
        ).observation
    )
    assert out["cabin"] == res["cabin"]
    assert env.state.get("reservations", rid)["cabin"] == res["cabin"]
    # ... while the flights were repriced at business fares and the difference charged.
    fares = [
        world.base.tables["flights"][f["flight_number"]]["dates"][f["date"]]["prices"]["business"]
        for f in res["flights"]
    ]
    assert [f["price"] for f in out["flights"]] == fares
    assert out["payment_history"][-1]["payment_id"] == card
    assert world.base.tables["reservations"][rid] == res


def test_arguments_are_not_aliased_into_the_database(world: World) -> None:
    env = world.new_env()
    user_id = "mia_li_3668"
    kwargs = {
        "user_id": user_id,
        "origin": "JFK",
        "destination": "SEA",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [
            {"flight_number": "HAT136", "date": "2024-05-20"},
            {"flight_number": "HAT039", "date": "2024-05-20"},
        ],
        "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
        "payment_methods": [{"payment_id": "credit_card_4421486", "amount": 305}],
        "total_baggages": 3,
        "nonfree_baggages": 1,
        "insurance": "no",
    }
    before = copy.deepcopy(kwargs)
    booked = json.loads(env.execute("book_reservation", kwargs).observation)
    assert booked["reservation_id"] == "HATHAT"
    env.execute("cancel_reservation", {"reservation_id": "HATHAT"})
    assert kwargs == before
    assert env.execute("book_reservation", kwargs).observation.startswith(
        '{"reservation_id": "HATHAU"'
    )


def test_get_reservation_details_quirk_and_onestop_next_day(world: World) -> None:
    env = world.new_env()
    assert (
        env.execute("get_reservation_details", {"reservation_id": "NOPE00"}).observation
        == "Error: user not found"
    )

    # A first leg arriving after midnight: the second leg's date is 'day + 1' with no zero
    # padding (so none is found from the 5th: '2024-05-6' is no date), and the second
    # leg's seats and prices are read from the first leg's date.
    def overnight(date: str) -> list:
        found = json.loads(
            env.execute(
                "search_onestop_flight", {"origin": "SFO", "destination": "JFK", "date": date}
            ).observation
        )
        return [pair for pair in found if "+1" in pair[0]["scheduled_arrival_time_est"]]

    assert overnight("2024-05-05") == []
    pairs = overnight("2024-05-19")
    assert pairs
    flights = world.base.tables["flights"]
    for _first, second in pairs:
        assert second["date"] == "2024-05-20"
        on_19th = flights[second["flight_number"]]["dates"]["2024-05-19"]
        assert second["available_seats"] == on_19th["available_seats"]


def test_calculate_refuses_runaway_powers(world: World) -> None:
    env = world.new_env()
    assert env.execute("calculate", {"expression": "2**10 / 4"}).observation == "256.0"
    assert env.execute("calculate", {"expression": "10 / 3"}).observation == "3.33"
    assert env.execute("calculate", {"expression": "1/0"}).observation == "Error: division by zero"
    assert env.execute("calculate", {"expression": "9**9**9"}).observation.startswith("Error:")
