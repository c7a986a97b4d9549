"""The worlds a study config names, with the interface variants it asks for."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sscbench.json_types import JsonObject
from sscbench.study.config import StudyConfig
from sscbench.world.load import load_world
from sscbench.world.world import World

READ_BACK_CUE = (
    " After this call succeeds, read the record back with the matching get_*_details tool "
    "and confirm the change before telling the user."
)


def _with_write_schemas(world: World, change: Callable[[JsonObject], JsonObject]) -> World:
    """The world whose write tools' schemas are passed through ``change``."""
    from sscbench.world.tools import ToolKind

    schemas = []
    for schema in world.tool_schemas():
        function = schema["function"]
        name = function.get("name") if isinstance(function, dict) else None
        spec = world.tools.specs.get(name) if isinstance(name, str) else None
        is_write = spec is not None and spec.kind is ToolKind.WRITE and not spec.ends_episode
        if is_write and isinstance(function, dict):
            schema = {**schema, "function": change(function)}
        schemas.append(schema)
    world.schemas = schemas
    return world


def with_read_back_cue(world: World) -> World:
    """The interface variant whose write tools ask the agent to read the record back."""
    return _with_write_schemas(
        world, lambda f: {**f, "description": f"{f['description']}{READ_BACK_CUE}"}
    )


IDEMPOTENCY_KEY_SCHEMA: JsonObject = {
    "type": "string",
    "description": (
        "Optional key chosen by the caller for this request. Repeating the call with the "
        "same key returns the first call's result without applying the change again; "
        "reuse it when retrying a request whose outcome is unknown."
    ),
}


def with_idempotency_keys(world: World) -> World:
    """The interface variant whose write tools accept an optional ``idempotency_key``."""
    from sscbench.core.injection import IDEMPOTENCY_KEY

    def change(function: JsonObject) -> JsonObject:
        given = function.get("parameters")
        parameters: JsonObject = (
            dict(given) if isinstance(given, dict) and given else {"type": "object"}
        )
        known = parameters.get("properties", {})
        properties: JsonObject = {
            **(known if isinstance(known, dict) else {}),
            IDEMPOTENCY_KEY: IDEMPOTENCY_KEY_SCHEMA,
        }
        return {**function, "parameters": {**parameters, "properties": properties}}

    return _with_write_schemas(world, change)


def with_strict_arguments(world: World) -> World:
    """The interface variant that refuses top-level arguments of the wrong JSON type.

    τ-bench itself checks no types (a string amount still issues a certificate); the
    variant answers ``Error: argument 'X' must be of type T, got U`` instead and leaves
    the state untouched.
    """
    world.strict_arguments = True
    return world


def _data_folder(config: StudyConfig) -> Path | None:
    return config.world_data()


def build_worlds(config: StudyConfig) -> dict[str, World]:
    """The study's worlds, by domain (with the interface variant the config names)."""
    data = config.world_data()
    worlds: dict[str, World] = {
        domain: load_world(config.world.source, domain, data, config.world.seed)
        for domain in config.world.domains
    }
    if config.world.read_back_cue:
        worlds = {d: with_read_back_cue(w) for d, w in worlds.items()}
    if config.world.idempotency_keys:
        worlds = {d: with_idempotency_keys(w) for d, w in worlds.items()}
    if config.world.strict_arguments:
        worlds = {d: with_strict_arguments(w) for d, w in worlds.items()}
    return worlds
