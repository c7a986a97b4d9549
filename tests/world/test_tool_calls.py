"""The one execution point: unknown tools, unbindable arguments and tool exceptions."""

from __future__ import annotations

import pytest

from sscbench.world.env import Env
from sscbench.world.state import BaseData
from sscbench.world.tools import ToolKind, ToolRegistry
from sscbench.world.world import World

REG = ToolRegistry("test")


@REG.tool(
    ToolKind.WRITE,
    "Set a user's name.",
    {
        "user_id": {"type": "string"},
        "name": {"type": "string"},
        "count": {"type": "integer"},
        "note": {"type": "string"},
    },
)
def rename_user(db, user_id: str, name: str, count: int, note: str | None = None) -> str:
    user = db.edit("users", user_id)
    user["name"] = name
    return f"{user_id} renamed {count}"


@REG.tool(ToolKind.READ, "Fail.", {})
def broken(db) -> str:
    return {}["missing"]


@pytest.fixture
def env() -> Env:
    world = World("t", "test", "test", BaseData({"users": {"u": {"name": "A"}}}), REG, "", [])
    return world.new_env()


def test_ok_call_changes_state(env):
    out = env.execute("rename_user", {"user_id": "u", "name": "B", "count": 1})
    assert out.observation == "u renamed 1" and not out.is_error and out.kind is ToolKind.WRITE
    assert env.state.get("users", "u") == {"name": "B"}


def test_unknown_tool(env):
    assert env.execute("nope", {}).observation == "Unknown action nope"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"user_id": "u", "name": "B"},
            "Error: RenameUser.invoke() missing 1 required positional argument: 'count'",
        ),
        (
            {"user_id": "u"},
            "Error: RenameUser.invoke() missing 2 required positional arguments: 'name' and 'count'",
        ),
        (
            {},
            "Error: RenameUser.invoke() missing 3 required positional arguments: "
            "'user_id', 'name', and 'count'",
        ),
        (
            {"user_id": "u", "name": "B", "count": 1, "x": 2},
            "Error: RenameUser.invoke() got an unexpected keyword argument 'x'",
        ),
        (
            # τ-bench calls invoke(data=db, **arguments): Python refuses the collision
            # while assembling the call and names the function by its module path.
            {"data": 1, "x": 2},
            "Error: tau_bench.envs.test.tools.rename_user.RenameUser.invoke() got multiple "
            "values for keyword argument 'data'",
        ),
        (["u"], "Error: arguments must be a JSON object, got array"),
    ],
)
def test_bad_arguments_become_error_observations(env, args, expected):
    out = env.execute("rename_user", args)
    assert out.observation == expected and out.is_error
    assert env.state.changes() == {}


def test_wrong_types_reach_the_tool_by_default(env):
    """τ-bench checks no argument types: the tool runs and writes, as τ-bench's would."""
    out = env.execute("rename_user", {"user_id": "u", "name": {"k": "v"}, "count": "1"})
    assert out.observation == "u renamed 1" and not out.is_error
    assert env.state.get("users", "u") == {"name": {"k": "v"}}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"user_id": "u", "name": "B", "count": "1"},
            "Error: argument 'count' must be of type integer, got string",
        ),
        (
            {"user_id": "u", "name": "B", "count": True},
            "Error: argument 'count' must be of type integer, got boolean",
        ),
        (
            {"user_id": "u", "name": {"k": "v"}, "count": 1},
            "Error: argument 'name' must be of type string, got object",
        ),
    ],
)
def test_strict_arguments_refuse_wrong_types(env, args, expected):
    """The ``world.strict_arguments`` interface variant checks top-level JSON types."""
    env.world.strict_arguments = True
    out = env.execute("rename_user", args)
    assert out.observation == expected and out.is_error
    assert env.state.changes() == {}


def test_optional_argument_may_be_null(env):
    env.world.strict_arguments = True
    out = env.execute("rename_user", {"user_id": "u", "name": "B", "count": 1, "note": None})
    assert not out.is_error


def test_exception_inside_tool_is_an_observation(env):
    assert env.execute("broken", {}).observation == "Error: 'missing'"
    assert env.execute("rename_user", {"user_id": "zz", "name": "B", "count": 1}).observation == (
        "Error: 'zz'"
    )


def test_schema_must_match_signature():
    reg = ToolRegistry("x")
    with pytest.raises(ValueError, match="differ"):

        @reg.tool(ToolKind.READ, "d", {"a": {"type": "string"}})
        def f(db, b: str) -> str:
            return b


def test_schema_lists_required():
    schema = REG.specs["rename_user"].schema()
    assert schema["function"]["parameters"]["required"] == ["user_id", "name", "count"]
