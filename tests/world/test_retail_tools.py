"""The retail tools against τ-bench's recordings, plus state-safety checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.world.conformance import run_conformance
from sscbench.world.hashing import data_hash
from sscbench.world.retail.tools import RETAIL_TOOLS
from sscbench.world.state import BaseData
from sscbench.world.world import World


@pytest.fixture(scope="module")
def retail_world(taubench_worlds: dict[str, World]) -> World:
    return taubench_worlds["retail"]


@pytest.fixture(scope="module")
def retail_episodes(taubench_conformance: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("conformance") / "retail.jsonl"
    with (taubench_conformance / "episodes.jsonl").open(encoding="utf-8") as src:
        lines = [line for line in src if json.loads(line)["domain"] == "retail"]
    out.write_text("".join(lines), encoding="utf-8")
    return out


def test_schemas_follow_taubench_shape(taubench: Path) -> None:
    """Same tools, order, parameter names, types and shapes as τ-bench's tools.json."""

    def shape(value):
        if isinstance(value, dict):
            return {k: shape(v) for k, v in value.items() if k != "description"}
        if isinstance(value, list):
            return [shape(v) for v in value]
        return value

    reference = json.loads((taubench / "retail" / "tools.json").read_text("utf-8"))
    assert shape(RETAIL_TOOLS.schemas()) == shape(reference)
    assert [s.name for s in RETAIL_TOOLS.specs.values() if s.ends_episode] == [
        "transfer_to_human_agents"
    ]


def test_retail_conformance_and_base_untouched(
    retail_world: World, retail_episodes: Path, taubench_conformance: Path
) -> None:
    report = run_conformance(retail_episodes, lambda domain: retail_world)
    assert report.observations > 0 and report.hashes == 785
    assert report.passed, report.differences[:5]
    # Running every episode must not have changed the shared base in any way.
    initial = json.loads((taubench_conformance / "initial_hashes.json").read_text("utf-8"))
    assert data_hash(retail_world.base.tables) == initial["retail"]


# ---- synthetic worlds: failures part-way through a tool ------------------------------------


def _world() -> World:
    tables = {
        "orders": {
            "#W1": {
                "order_id": "#W1",
                "user_id": "u1",
                "items": [
                    {
                        "name": "Lamp",
                        "product_id": "p1",
                        "item_id": "a",
                        "price": 10.0,
                        "options": {"color": "red"},
                    },
                    {
                        "name": "Lamp",
                        "product_id": "p1",
                        "item_id": "b",
                        "price": 20.0,
                        "options": {"color": "blue"},
                    },
                ],
                "status": "pending",
                "payment_history": [
                    {
                        "transaction_type": "payment",
                        "amount": 5.0,
                        "payment_method_id": "gift_card_1",
                    },
                    {
                        "transaction_type": "payment",
                        "amount": 3.0,
                        "payment_method_id": "gift_card_9",
                    },
                ],
            },
            "#W2": {
                "order_id": "#W2",
                "user_id": "u1",
                "items": [],
                "status": "pending",
                "payment_history": [
                    {
                        "transaction_type": "payment",
                        "amount": 4.0,
                        "payment_method_id": "gift_card_9",
                    }
                ],
            },
        },
        "products": {
            "p1": {
                "name": "Lamp",
                "product_id": "p1",
                "variants": {
                    "a": {
                        "item_id": "a",
                        "options": {"color": "red"},
                        "available": True,
                        "price": 10.0,
                    },
                    "b": {
                        "item_id": "b",
                        "options": {"color": "blue"},
                        "available": True,
                        "price": 20.0,
                    },
                    "c": {
                        "item_id": "c",
                        "options": {"color": "green"},
                        "available": True,
                        "price": 40.0,
                    },
                },
            }
        },
        "users": {
            "u1": {
                "payment_methods": {
                    "gift_card_1": {"source": "gift_card", "balance": 10.0, "id": "gift_card_1"},
                    "credit_card_1": {"source": "credit_card", "id": "credit_card_1"},
                }
            }
        },
    }
    return World("t", "retail", "test", BaseData(tables), RETAIL_TOOLS, "", [])


def test_cancel_keeps_refunds_made_before_an_error() -> None:
    world = _world()
    before = data_hash(world.base.tables)
    env = world.new_env()
    out = env.execute("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})
    # τ-bench refunds the first gift card, then fails on the unknown second one.
    assert out.observation == "Error: 'gift_card_9'"
    assert env.state.get("users", "u1")["payment_methods"]["gift_card_1"]["balance"] == 15.0
    order = env.state.get("orders", "#W1")
    assert order["status"] == "pending" and len(order["payment_history"]) == 2
    assert data_hash(world.base.tables) == before


def test_payment_change_keeps_writes_made_before_an_error() -> None:
    env = _world().new_env()
    out = env.execute(
        "modify_pending_order_payment", {"order_id": "#W2", "payment_method_id": "gift_card_1"}
    )
    # The new card is charged and the history extended before the old card is looked up.
    assert out.observation == "Error: 'gift_card_9'"
    assert env.state.get("users", "u1")["payment_methods"]["gift_card_1"]["balance"] == 6.0
    assert len(env.state.get("orders", "#W2")["payment_history"]) == 3


def test_item_swap_retargets_an_already_changed_item() -> None:
    env = _world().new_env()
    out = env.execute(
        "modify_pending_order_items",
        {
            "order_id": "#W1",
            "item_ids": ["a", "b"],
            "new_item_ids": ["b", "c"],
            "payment_method_id": "credit_card_1",
        },
    )
    order = json.loads(out.observation)
    # a→b turns the first item into 'b', which the second pair then turns into 'c'.
    assert [item["item_id"] for item in order["items"]] == ["c", "b"]
    assert order["payment_history"][-1] == {
        "transaction_type": "payment",
        "amount": 30.0,
        "payment_method_id": "credit_card_1",
    }
    assert order["status"] == "pending (item modified)"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2 + 2", "4.0"),
        ("  10 / 3", "3.33"),
        ("1/0", "Error: division by zero"),
        ("2 ^ 3", "Error: invalid characters in expression"),
        ("(1)(2)", "Error: 'int' object is not callable"),
        ("1 +", "Error: invalid syntax (<string>, line 1)"),
        ("10**400", "Error: int too large to convert to float"),
        ("9**9**9**9", "Error: int too large to convert to float"),
        ("1" + "+1" * 1500, "1501.0"),  # deeper than Python's recursion limit, as eval allows
    ],
)
def test_calculate(expression: str, expected: str) -> None:
    env = _world().new_env()
    assert env.execute("calculate", {"expression": expression}).observation == expected
