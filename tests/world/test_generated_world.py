"""The embedded generated world: determinism, τ-bench's schema, and self-checking tasks."""

from __future__ import annotations

import collections
import hashlib
import itertools
import json
import os
import subprocess
import sys

import pytest

from sscbench.world.generated import GeneratedSize, generate_world, policy_text
from sscbench.world.load import load_world
from sscbench.world.reward import compute_reward, ground_truth

DOMAINS = ("airline", "retail")
SEEDS = (0, 1, 2)
CABINS = ("basic_economy", "economy", "business")

AIRLINE_KINDS = {"change_flights", "change_cabin", "cancel", "book", "update_baggages"}
RETAIL_KINDS = {
    "exchange",
    "return",
    "modify_items",
    "modify_payment",
    "cancel_order",
    "modify_address",
}

# Key order of every record type, as in τ-bench's own data files.
KEYS = {
    "airline_user": [
        "name",
        "address",
        "email",
        "dob",
        "payment_methods",
        "saved_passengers",
        "membership",
        "reservations",
    ],
    "flight": [
        "flight_number",
        "origin",
        "destination",
        "scheduled_departure_time_est",
        "scheduled_arrival_time_est",
        "dates",
    ],
    "reservation": [
        "reservation_id",
        "user_id",
        "origin",
        "destination",
        "flight_type",
        "cabin",
        "flights",
        "passengers",
        "payment_history",
        "created_at",
        "total_baggages",
        "nonfree_baggages",
        "insurance",
    ],
    "segment": ["origin", "destination", "flight_number", "date", "price"],
    "address": ["address1", "address2", "city", "country", "state", "zip"],
    "retail_user": ["name", "address", "email", "payment_methods", "orders"],
    "product": ["name", "product_id", "variants"],
    "variant": ["item_id", "options", "available", "price"],
    "order": [
        "order_id",
        "user_id",
        "address",
        "items",
        "fulfillments",
        "status",
        "payment_history",
    ],
    "item": ["name", "product_id", "item_id", "price", "options"],
    "transaction": ["transaction_type", "amount", "payment_method_id"],
}
PAYMENT_KEYS = {
    "airline": {
        "credit_card": ["source", "brand", "last_four", "id"],
        "gift_card": ["source", "amount", "id"],
        "certificate": ["source", "amount", "id"],
    },
    "retail": {
        "credit_card": ["source", "brand", "last_four", "id"],
        "gift_card": ["source", "balance", "id"],
        "paypal": ["source", "id"],
    },
}
DATE_KEYS = {
    "landed": ["status", "actual_departure_time_est", "actual_arrival_time_est"],
    "cancelled": ["status"],
    "flying": ["status", "actual_departure_time_est", "estimated_arrival_time_est"],
    "on time": ["status", "estimated_departure_time_est", "estimated_arrival_time_est"],
    "delayed": ["status", "estimated_departure_time_est", "estimated_arrival_time_est"],
    "available": ["status", "available_seats", "prices"],
}
FREE_BAGS = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 3},
}


@pytest.fixture(scope="module")
def worlds():
    """Every (domain, seed) world the tests look at, generated once."""
    return {(d, s): generate_world(d, seed=s) for d in DOMAINS for s in SEEDS}


def dump(world) -> str:
    tasks = [t.model_dump(mode="json") for t in world.tasks]
    return json.dumps({"tables": world.base.tables, "tasks": tasks}, ensure_ascii=False)


def digest(world) -> str:
    return hashlib.sha256(dump(world).encode("utf-8")).hexdigest()


# ---- determinism ---------------------------------------------------------------------


@pytest.mark.parametrize("domain", DOMAINS)
def test_same_seed_gives_identical_bytes(domain, worlds):
    again = generate_world(domain, seed=1)
    assert dump(again) == dump(worlds[(domain, 1)])
    assert again.base.initial_hash() == worlds[(domain, 1)].base.initial_hash()


@pytest.mark.parametrize("domain", DOMAINS)
def test_different_seeds_differ(domain, worlds):
    dumps = {dump(worlds[(domain, s)]) for s in SEEDS}
    assert len(dumps) == len(SEEDS)


def test_bytes_do_not_depend_on_the_string_hash_seed(worlds):
    code = (
        "import hashlib, json\n"
        "from sscbench.world.generated import generate_world\n"
        "for d in ('airline', 'retail'):\n"
        "    w = generate_world(d, seed=2)\n"
        "    tasks = [t.model_dump(mode='json') for t in w.tasks]\n"
        "    text = json.dumps({'tables': w.base.tables, 'tasks': tasks}, ensure_ascii=False)\n"
        "    print(hashlib.sha256(text.encode('utf-8')).hexdigest())\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="4242")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == [digest(worlds[(d, 2)]) for d in DOMAINS]


def test_size_changes_the_world_and_is_validated():
    small = GeneratedSize(users=60, reservations=150, orders=150, products=12, tasks_per_kind=2)
    for domain in DOMAINS:
        world = generate_world(domain, seed=0, size=small)
        assert world.counts()["users"] == 60
        assert len(world.tasks) == 2 * len(AIRLINE_KINDS if domain == "airline" else RETAIL_KINDS)
    with pytest.raises(ValueError):
        GeneratedSize(users=0)
    with pytest.raises(ValueError):
        GeneratedSize(airports=30)
    with pytest.raises(ValueError):
        generate_world("retail", size=GeneratedSize(products=99))
    with pytest.raises(KeyError):
        generate_world("telecom")


def test_load_world_returns_the_generated_world():
    world = load_world("generated", "retail", seed=1)
    assert world.name == "generated/retail"
    assert world.source == "generated"
    assert world.schemas is None
    assert dump(world) == dump(generate_world("retail", seed=1))


# ---- schema ---------------------------------------------------------------------------


def check_payment_methods(domain, user):
    for pid, method in user["payment_methods"].items():
        assert method["id"] == pid
        assert pid.startswith(method["source"] + "_")
        assert list(method) == PAYMENT_KEYS[domain][method["source"]]


@pytest.mark.parametrize("seed", SEEDS)
def test_airline_schema(seed, worlds):
    world = worlds[("airline", seed)]
    flights = world.base.tables["flights"]
    reservations = world.base.tables["reservations"]
    users = world.base.tables["users"]
    assert list(world.base.tables) == ["flights", "reservations", "users"]
    dates = [f"2024-05-{d:02d}" for d in range(1, 31)]
    for number, flight in flights.items():
        assert list(flight) == KEYS["flight"] and flight["flight_number"] == number
        assert list(flight["dates"]) == dates
        for date, record in flight["dates"].items():
            assert list(record) == DATE_KEYS[record["status"]]
            if date > "2024-05-15":
                assert record["status"] == "available"
                assert list(record["available_seats"]) == list(CABINS)
                assert list(record["prices"]) == list(CABINS)
            elif date < "2024-05-15":
                assert record["status"] in ("landed", "cancelled")
    sources = collections.Counter()
    for uid, user in users.items():
        assert list(user) == KEYS["airline_user"]
        assert list(user["address"]) == KEYS["address"]
        check_payment_methods("airline", user)
        kinds = {m["source"] for m in user["payment_methods"].values()}
        assert "credit_card" in kinds  # every user can pay for a change
        sources.update(kinds)
        for rid in user["reservations"]:
            assert reservations[rid]["user_id"] == uid
    assert set(sources) == {"credit_card", "gift_card", "certificate"}
    trip_types = collections.Counter()
    for rid, res in reservations.items():
        assert list(res) == KEYS["reservation"] and res["reservation_id"] == rid
        assert rid in users[res["user_id"]]["reservations"]
        trip_types[res["flight_type"]] += 1
        assert res["cabin"] in CABINS
        for seg in res["flights"]:
            assert list(seg) == KEYS["segment"]
            flight = flights[seg["flight_number"]]
            assert (seg["origin"], seg["destination"]) == (flight["origin"], flight["destination"])
        chain = res["flights"]
        for a, b in itertools.pairwise(chain):
            assert a["destination"] == b["origin"] and a["date"] <= b["date"]
        assert chain[0]["origin"] == res["origin"]
        if res["flight_type"] == "round_trip":
            assert chain[-1]["destination"] == res["origin"]
            turn = next(i for i, s in enumerate(chain) if s["destination"] == res["destination"])
            assert chain[turn + 1]["date"] > chain[turn]["date"]  # the return leg is later
        else:
            assert chain[-1]["destination"] == res["destination"]
        n = len(res["passengers"])
        total = sum(s["price"] for s in chain) * n + 50 * res["nonfree_baggages"]
        total += 30 * n if res["insurance"] == "yes" else 0
        assert res["payment_history"] == [
            {"payment_id": res["payment_history"][0]["payment_id"], "amount": total}
        ]
        assert res["payment_history"][0]["payment_id"] in users[res["user_id"]]["payment_methods"]
        allowance = FREE_BAGS[users[res["user_id"]]["membership"]][res["cabin"]] * n
        assert res["nonfree_baggages"] == max(0, res["total_baggages"] - allowance)
        assert res["created_at"] <= "2024-05-15T15:00:00"
        assert not rid.startswith("HATHA")  # the ids book_reservation creates
    assert trip_types["one_way"] and trip_types["round_trip"]


@pytest.mark.parametrize("seed", SEEDS)
def test_retail_schema(seed, worlds):
    world = worlds[("retail", seed)]
    orders = world.base.tables["orders"]
    products = world.base.tables["products"]
    users = world.base.tables["users"]
    assert list(world.base.tables) == ["orders", "products", "users"]
    item_ids = set()
    for pid, product in products.items():
        assert list(product) == KEYS["product"] and product["product_id"] == pid
        assert len(product["variants"]) >= 3
        assert sum(v["available"] for v in product["variants"].values()) >= 2
        combos = set()
        for iid, variant in product["variants"].items():
            assert list(variant) == KEYS["variant"] and variant["item_id"] == iid
            combos.add(tuple(variant["options"].items()))
            assert iid not in item_ids and iid not in products
            item_ids.add(iid)
        assert len(combos) == len(product["variants"])  # options name a variant
    identities = set()
    for uid, user in users.items():
        assert list(user) == KEYS["retail_user"]
        assert list(user["address"]) == KEYS["address"]
        assert user["payment_methods"]
        check_payment_methods("retail", user)
        identity = (user["name"]["first_name"], user["name"]["last_name"], user["address"]["zip"])
        assert identity not in identities
        identities.add(identity)
        for oid in user["orders"]:
            assert orders[oid]["user_id"] == uid
    statuses = collections.Counter()
    for oid, order in orders.items():
        assert list(order)[:7] == KEYS["order"] and order["order_id"] == oid
        assert oid.startswith("#W") and oid in users[order["user_id"]]["orders"]
        statuses[order["status"]] += 1
        methods = users[order["user_id"]]["payment_methods"]
        for item in order["items"]:
            assert list(item) == KEYS["item"]
            product = products[item["product_id"]]
            assert item["name"] == product["name"]
            variant = product["variants"][item["item_id"]]  # every item is a variant
            assert item["options"] == variant["options"]
            assert item["price"] == variant["price"]
        for txn in order["payment_history"]:
            assert list(txn) == KEYS["transaction"]
            assert txn["payment_method_id"] in methods
        first = order["payment_history"][0]
        if order["status"] != "pending (item modified)":
            assert first["amount"] == round(sum(i["price"] for i in order["items"]), 2)
        if order["status"].startswith("pending"):
            assert order["fulfillments"] == []
        else:
            shipped = [iid for f in order["fulfillments"] for iid in f["item_ids"]]
            assert shipped == [i["item_id"] for i in order["items"]]
        own_items = [i["item_id"] for i in order["items"]]
        if order["status"] == "return requested":
            assert set(order["return_items"]) <= set(own_items)
        if order["status"] == "exchange requested":
            assert set(order["exchange_items"]) <= set(own_items)
    assert set(statuses) == {
        "pending",
        "processed",
        "delivered",
        "cancelled",
        "return requested",
        "exchange requested",
        "pending (item modified)",
    }


@pytest.mark.parametrize("domain", DOMAINS)
def test_schema_matches_taubench_data_when_present(domain, worlds, taubench):
    root = taubench
    ours = worlds[(domain, 0)].base.tables
    for table, records in ours.items():
        with open(root / domain / f"{table}.json", encoding="utf-8") as handle:
            theirs = json.load(handle)
        their_keys = {tuple(r) for r in theirs.values()}
        for record in records.values():
            keys = tuple(k for k in record if not k.startswith(("return_", "exchange_")))
            assert keys in their_keys, (table, keys)


# ---- tasks ----------------------------------------------------------------------------


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("seed", SEEDS)
def test_every_ground_truth_runs_cleanly_and_earns_reward_1(domain, seed, worlds):
    world = worlds[(domain, seed)]
    assert world.tasks
    for task in world.tasks:
        env = world.new_env()
        for action in task.actions:
            outcome = env.execute(action.name, dict(action.kwargs))
            assert not outcome.is_error, (task.task_id, action.name, outcome.observation)
        assert ground_truth(world, task).errors == []
        assert env.state.changes()  # every task writes something
        message = "Here is what you asked: " + ", ".join(task.outputs)
        result = compute_reward(world, task, env.state, [message])
        assert result.reward == 1.0, (task.task_id, result)
        untouched = compute_reward(world, task, world.new_env().state, [message])
        assert untouched.reward == 0.0


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("seed", SEEDS)
def test_tasks_carry_intents_and_slots(domain, seed, worlds):
    world = worlds[(domain, seed)]
    tables = world.base.tables
    kinds = collections.Counter(t.intent["kind"] for t in world.tasks)
    assert set(kinds) == (AIRLINE_KINDS if domain == "airline" else RETAIL_KINDS)
    assert [t.task_id for t in world.tasks] == [f"gen/{i}" for i in range(len(world.tasks))]
    for task in world.tasks:
        assert task.domain == domain
        assert task.instruction.startswith(f"Your user id is {task.user_id}.")
        assert task.intent["user_id"] == task.user_id
        assert all(world.tools.specs[a.name].kind == "write" for a in task.actions)
        methods = tables["users"][task.user_id]["payment_methods"]
        for key in ("payment_id", "payment_method_id"):
            if key in task.intent:
                method = methods[task.intent[key]]
                assert method["source"] == task.intent["payment_source"]
    if domain == "airline":
        check_airline_intents(world)
    else:
        check_retail_intents(world)


def check_airline_intents(world):
    reservations = world.base.tables["reservations"]
    round_trip_changes = 0
    for task in world.tasks:
        intent, kwargs = task.intent, task.actions[0].kwargs
        if intent["kind"] in ("change_flights", "change_cabin", "cancel", "update_baggages"):
            res = reservations[intent["reservation_id"]]
            assert res["user_id"] == task.user_id
            assert kwargs["reservation_id"] == intent["reservation_id"]
            assert all(s["date"] > "2024-05-15" for s in res["flights"])  # nothing flown
        if intent["kind"] == "change_flights":
            assert res["cabin"] != "basic_economy" and kwargs["cabin"] == res["cabin"]
            assert kwargs["flights"] == intent["flights"]
            old = [(s["flight_number"], s["date"]) for s in res["flights"]]
            new = [(s["flight_number"], s["date"]) for s in kwargs["flights"]]
            assert old != new
            assert intent["trip_type"] == res["flight_type"]
            if res["flight_type"] == "round_trip":
                round_trip_changes += 1
        elif intent["kind"] == "change_cabin":
            assert kwargs["cabin"] != res["cabin"]
            assert kwargs["flights"] == [
                {"flight_number": s["flight_number"], "date": s["date"]} for s in res["flights"]
            ]
            assert task.outputs == (str(abs(intent["price_difference"])),)
        elif intent["kind"] == "cancel":
            allowed = (
                res["created_at"] >= "2024-05-14T15:00:00"
                or res["cabin"] == "business"
                or (res["insurance"] == "yes" and intent["reason"] in ("health", "weather"))
            )
            assert allowed
        elif intent["kind"] == "book":
            sources = [m["payment_id"].rsplit("_", 1)[0] for m in kwargs["payment_methods"]]
            assert intent["payment_source"] in sources
            assert sources.count("certificate") <= 1 and sources.count("credit_card") <= 1
        elif intent["kind"] == "update_baggages":
            assert kwargs["total_baggages"] > res["total_baggages"]
    assert round_trip_changes >= 3
    book_sources = {t.intent["payment_source"] for t in world.tasks if t.intent["kind"] == "book"}
    assert book_sources == {"credit_card", "gift_card", "certificate"}


def check_retail_intents(world):
    orders = world.base.tables["orders"]
    products = world.base.tables["products"]
    wanted_status = {
        "exchange": "delivered",
        "return": "delivered",
        "modify_items": "pending",
        "modify_payment": "pending",
        "cancel_order": "pending",
        "modify_address": "pending",
    }
    for task in world.tasks:
        intent, kwargs = task.intent, task.actions[0].kwargs
        order = orders[intent["order_id"]]
        assert order["user_id"] == task.user_id and kwargs["order_id"] == intent["order_id"]
        assert order["status"] == wanted_status[intent["kind"]]
        for item in order["items"]:
            assert len(products[item["product_id"]]["variants"]) >= 3
        if intent["kind"] in ("exchange", "modify_items"):
            assert kwargs["item_ids"] == intent["item_ids"]
            assert kwargs["new_item_ids"] == intent["new_item_ids"]
            for slot in intent["items"]:
                variants = products[slot["product_id"]]["variants"]
                assert slot["new_item_id"] in variants and slot["new_item_id"] != slot["item_id"]
                assert variants[slot["new_item_id"]]["available"]
                assert variants[slot["new_item_id"]]["options"] == slot["new_options"]
        elif intent["kind"] == "return":
            refund = round(
                sum(i["price"] for i in order["items"] if i["item_id"] in intent["item_ids"]), 2
            )
            assert intent["refund_amount"] == refund and task.outputs
        elif intent["kind"] == "cancel_order":
            assert kwargs["reason"] in ("no longer needed", "ordered by mistake")


@pytest.mark.parametrize("domain", DOMAINS)
def test_policy_is_shipped_with_the_package(domain, worlds):
    text = policy_text(domain)
    assert worlds[(domain, 0)].policy == text
    assert text.startswith("# ")
    assert '"yes"' in text  # confirmation before writes
    assert len(text) > 2000
