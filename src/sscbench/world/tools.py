"""Tool declarations: each tool is declared once, tagged READ or WRITE, with its schema.

A tool is a plain function ``fn(db, **arguments) -> str`` over a :class:`WorldState`.
It returns τ-bench's observation string (errors included, as ``"Error: ..."``). The
registry turns declarations into OpenAI function schemas and checks calls against
them before they reach the function.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from sscbench.json_types import JsonObject


class ToolKind(StrEnum):
    """Whether a tool only reads the database or may change it."""

    READ = "read"
    WRITE = "write"


@dataclass(frozen=True)
class ToolSpec:
    """One declared tool: its function, kind and the schema an agent sees."""

    name: str
    kind: ToolKind
    func: Callable[..., str]
    description: str
    parameters: JsonObject
    required: tuple[str, ...]
    accepted: frozenset[str]
    ends_episode: bool = False
    domain: str = ""

    @property
    def invoke_name(self) -> str:
        """τ-bench's class name for the tool (used in its argument-binding errors)."""
        return "".join(part.capitalize() for part in self.name.split("_"))

    @property
    def invoke_path(self) -> str:
        """The full name of τ-bench's ``invoke`` for this tool: module path and class.

        Python names a function this way when a call's keyword arguments collide, so
        it is part of the text τ-bench shows for an argument named ``data``.
        """
        return f"tau_bench.envs.{self.domain}.tools.{self.name}.{self.invoke_name}.invoke"

    def schema(self) -> JsonObject:
        """The tool in OpenAI function-calling format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": self.parameters,
                    "required": list(self.required),
                },
            },
        }


@dataclass
class ToolRegistry:
    """The tools of one domain, in declaration order."""

    domain: str
    specs: dict[str, ToolSpec] = field(default_factory=dict)

    def tool(
        self,
        kind: ToolKind,
        description: str,
        parameters: JsonObject | None = None,
        *,
        ends_episode: bool = False,
    ) -> Callable[[Callable[..., str]], Callable[..., str]]:
        """Decorator declaring ``fn(db, **arguments)`` as a tool of this domain."""

        def register(func: Callable[..., str]) -> Callable[..., str]:
            params = dict(parameters or {})
            signature = inspect.signature(func)
            names = [n for n in signature.parameters if n != "db"]
            required = tuple(
                n for n in names if signature.parameters[n].default is inspect.Parameter.empty
            )
            if set(params) != set(names):
                raise ValueError(
                    f"tool {func.__name__}: schema properties {sorted(params)} "
                    f"differ from the function's arguments {sorted(names)}"
                )
            if func.__name__ in self.specs:
                raise ValueError(f"tool {func.__name__} declared twice in {self.domain}")
            self.specs[func.__name__] = ToolSpec(
                name=func.__name__,
                kind=kind,
                func=func,
                description=description,
                parameters=params,
                required=required,
                accepted=frozenset(names),
                ends_episode=ends_episode,
                domain=self.domain,
            )
            return func

        return register

    def schemas(self) -> list[JsonObject]:
        """All tools in OpenAI function format, in declaration order."""
        return [spec.schema() for spec in self.specs.values()]


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _json_type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _quote_list(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def argument_error(spec: ToolSpec, arguments: object, *, strict: bool = False) -> str | None:
    """τ-bench's error text for a call whose arguments cannot bind, else None.

    τ-bench's ``Env.step`` calls ``Tool.invoke(data=self.data, **arguments)``, so the
    texts are Python's own binding errors for that call: an argument named ``data``
    collides with the database while the call is assembled (before anything else is
    checked), then unexpected names fail in argument order, then missing ones. τ-bench
    checks no types: a wrong-typed value reaches the tool code. Only with ``strict``
    (the ``world.strict_arguments`` interface variant) is a top-level value of the
    wrong JSON type refused with its name before the tool runs.
    """
    if not isinstance(arguments, dict):
        return f"Error: arguments must be a JSON object, got {_json_type_name(arguments)}"
    if "data" in arguments:
        return f"Error: {spec.invoke_path}() got multiple values for keyword argument 'data'"
    for name in arguments:
        if name not in spec.accepted:
            return f"Error: {spec.invoke_name}.invoke() got an unexpected keyword argument '{name}'"
    missing = [n for n in spec.required if n not in arguments]
    if missing:
        plural = "argument" if len(missing) == 1 else "arguments"
        return (
            f"Error: {spec.invoke_name}.invoke() missing {len(missing)} required positional "
            f"{plural}: {_quote_list(missing)}"
        )
    if not strict:
        return None
    for name, value in arguments.items():
        schema = spec.parameters.get(name)
        expected = schema.get("type") if isinstance(schema, dict) else None
        allowed = _JSON_TYPES.get(expected) if isinstance(expected, str) else None
        if allowed is None or (value is None and name not in spec.required):
            continue
        ok = isinstance(value, allowed) and not (
            isinstance(value, bool) and expected in ("integer", "number")
        )
        if not ok:
            return (
                f"Error: argument '{name}' must be of type {expected}, got {_json_type_name(value)}"
            )
    return None
