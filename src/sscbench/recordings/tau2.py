"""τ²-bench results files as recordings: each simulation becomes a :class:`RecordedRun`.

A τ²-bench results file (``{"timestamp", "info", "tasks", "simulations": [...]}``)
holds one conversation per simulation in τ²'s message format: ``role`` in {assistant,
user, tool}, tool calls as ``{"id", "name", "arguments": {...}}`` (arguments a JSON
object, several calls per message allowed), tool results as ``role: "tool"`` with the
call's ``id``, and no system message (the policy is in ``info.environment_info``).

The conversion keeps every assistant and user text and every call as recorded; it
drops only the harness's opening greeting (τ²'s fixed first assistant message, sent
before the user speaks, which sscbench's episode does not have: the user opens). A
simulation's ``task_id`` is τ²'s, which renumbers τ-bench's tasks (and is wrong in
some files): :mod:`sscbench.recordings.task_match` finds the τ-bench task each
conversation ran by its content.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pydantic import JsonValue, ValidationError

from sscbench.errors import DataError
from sscbench.json_types import JsonArray, JsonObject
from sscbench.recordings.recorded import RecordedMessage, RecordedRun
from sscbench.world.hashing import data_hash

TAU2_FORMAT = "tau2"
"""The format's name (``[agents.replay] format``, each run's ``info["format"]``)."""


def _call(call: JsonValue, where: str, path: Path) -> JsonObject:
    name = call.get("name") if isinstance(call, dict) else None
    if not isinstance(call, dict) or not isinstance(name, str):
        raise DataError(path, where, "a tool call needs a 'name'")
    arguments = call.get("arguments")
    text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return {
        "id": str(call.get("id") or ""),
        "type": "function",
        "function": {"name": name, "arguments": text},
    }


def _message(message: JsonValue, where: str, path: Path) -> JsonObject | None:
    """One τ² message in τ-bench's (OpenAI) message format; None for a message to skip."""
    if not isinstance(message, dict):
        raise DataError(path, where, "a message must be an object")
    role = message.get("role")
    if role == "assistant":
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            raise DataError(path, f"{where}.tool_calls", "must be a list")
        out: JsonObject = {"role": "assistant", "content": message.get("content")}
        if calls:
            converted: list[JsonValue] = [
                _call(c, f"{where}.tool_calls[{i}]", path) for i, c in enumerate(calls)
            ]
            out["tool_calls"] = converted
        return out
    if role == "user":
        return {"role": "user", "content": str(message.get("content") or "")}
    if role == "tool":
        return {
            "role": "tool",
            "tool_call_id": str(message.get("id") or message.get("tool_call_id") or ""),
            "content": str(message.get("content") or ""),
        }
    if role == "system":
        return {"role": "system", "content": str(message.get("content") or "")}
    raise DataError(path, f"{where}.role", f"unknown role {role!r}")


def _validated(message: JsonObject, where: str, path: Path) -> RecordedMessage:
    """One converted message as a recorded one; an error names the message where it
    stands in the file (``simulations[3].messages[2].content``)."""
    try:
        return RecordedMessage.model_validate(message)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = ".".join(str(part) for part in error["loc"])
        field = f"{where}.{loc}" if loc else where
        raise DataError(path, field, error["msg"].removeprefix("Value error, ")) from exc


def _conversation(messages: JsonArray, where: str, path: Path) -> list[RecordedMessage]:
    """The simulation's messages from the user's first one on (the greeting dropped)."""
    kept: list[RecordedMessage] = []
    for i, raw in enumerate(messages):
        converted = _message(raw, f"{where}.messages[{i}]", path)
        if converted is not None:
            kept.append(_validated(converted, f"{where}.messages[{i}]", path))
    first_user = next((i for i, m in enumerate(kept) if m.role == "user"), None)
    if first_user is None:
        raise DataError(path, f"{where}.messages", "the conversation has no user message")
    head = [m for m in kept[:first_user] if m.role == "system"]
    return head + kept[first_user:]


def _reward(simulation: JsonObject) -> float | None:
    info = simulation.get("reward_info")
    reward = info.get("reward") if isinstance(info, dict) else None
    return float(reward) if isinstance(reward, int | float) else None


def simulation_id(simulation: JsonObject, index: int) -> str:
    """A simulation's id as recordings and pairs name it (its index when it has none)."""
    return str(simulation.get("id") or index)


def distinct_ids(path: Path) -> Callable[[JsonValue, int], bool]:
    """A check of a file's simulations, in order: each an object with a ``messages``
    list, each id once. A simulation whose id an earlier one has is not kept (False)
    when it is identical to it (the same conversation written twice) and refused, naming
    both positions, when it differs (which one would a pair replay?). The one rule of
    the whole-file reader (:func:`tau2_runs`) and the streamed index (``tau2_index``)."""
    first: dict[str, tuple[int, str]] = {}

    def keep(simulation: JsonValue, index: int) -> bool:
        found = check_simulation(simulation, index, path)
        name = simulation_id(found, index)
        digest = data_hash(found)
        seen = first.setdefault(name, (index, digest))
        if seen[1] != digest:
            raise DataError(
                path,
                f"simulations[{index}].id",
                f"{name!r} is also the id of simulations[{seen[0]}], whose content "
                "differs: each simulation needs its own id",
            )
        return seen[0] == index

    return keep


def tau2_runs(raw: JsonObject, path: str | Path) -> list[RecordedRun]:
    """Every simulation of a τ² results file as a recorded run (τ²'s task id kept in
    ``info["tau2_task_id"]`` and as ``task_id`` until a match replaces it). Simulation
    ids are unique (:func:`distinct_ids`); errors name the field where it is in the file."""
    path = Path(path)
    domain = tau2_domain(raw.get("info"))
    keep = distinct_ids(path)
    simulations = raw.get("simulations")
    if not isinstance(simulations, list):
        raise DataError(path, "simulations", "a τ² results file needs a 'simulations' list")
    kept = [(index, s) for index, s in enumerate(simulations) if keep(s, index)]
    return [tau2_run(s, index, domain, path) for index, s in kept]


def tau2_domain(info: JsonValue) -> JsonValue:
    """The domain a τ² results file's ``info`` names (``environment_info.domain_name``)."""
    environment = info.get("environment_info") if isinstance(info, dict) else None
    return environment.get("domain_name") if isinstance(environment, dict) else None


def check_simulation(simulation: JsonValue, index: int, path: Path) -> JsonObject:
    """The simulation, refused when it is not an object with a ``messages`` list."""
    if not isinstance(simulation, dict) or not isinstance(simulation.get("messages"), list):
        raise DataError(path, f"simulations[{index}]", "a simulation needs a 'messages' list")
    return simulation


def tau2_run(simulation: JsonValue, index: int, domain: JsonValue, path: Path) -> RecordedRun:
    """One simulation (the ``index``-th of its file) as a recorded run."""
    where = f"simulations[{index}]"
    found = check_simulation(simulation, index, path)
    messages = found["messages"]
    traj = _conversation(messages if isinstance(messages, list) else [], where, path)
    info: JsonObject = {
        "format": TAU2_FORMAT,
        "simulation_id": simulation_id(found, index),
        "simulation_index": index,
        "tau2_task_id": str(found.get("task_id")),
        "domain": domain,
    }
    trial = found.get("trial")
    try:
        return RecordedRun(
            task_id=str(found.get("task_id")),
            traj=traj,
            reward=_reward(found),
            trial=trial if isinstance(trial, int) and not isinstance(trial, bool) else None,
            info=info,
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = ".".join(str(part) for part in error["loc"])
        raise DataError(path, f"{where}.{loc}" if loc else where, error["msg"]) from exc
