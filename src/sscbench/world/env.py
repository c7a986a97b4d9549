"""An env: one isolated, resettable instance of a world, and the one tool-execution point."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sscbench.world.state import BaseData, WorldState
from sscbench.world.tools import ToolKind, ToolRegistry, argument_error


class EnvSource(Protocol):
    """What an env needs of its world (:class:`~sscbench.world.world.World` is one): the
    base data it copies, the tools it runs, and whether arguments are type-checked."""

    base: BaseData
    tools: ToolRegistry
    strict_arguments: bool


@dataclass(frozen=True)
class ToolOutcome:
    """What one tool call produced: the observation string and what kind of call it was."""

    name: str
    arguments: object
    observation: str
    kind: ToolKind | None
    is_error: bool
    ends_episode: bool = False


class Env:
    """One isolated instance of a world's state with the single tool-execution point."""

    def __init__(self, world: EnvSource):
        self.world = world
        self.state = WorldState(world.base)

    def reset(self) -> None:
        """Back to the world's initial state (nothing is re-read or re-parsed)."""
        self.state.reset()

    def execute(self, name: str, arguments: object) -> ToolOutcome:
        """Run one tool call exactly as τ-bench would and return its observation.

        Never raises: an unknown tool, arguments that cannot bind, and exceptions
        inside a tool all become error observations the agent sees.
        """
        spec = self.world.tools.specs.get(name)
        if spec is None:
            return ToolOutcome(name, arguments, f"Unknown action {name}", None, True)
        error = argument_error(spec, arguments, strict=self.world.strict_arguments)
        if error is not None:
            return ToolOutcome(name, arguments, error, spec.kind, True, spec.ends_episode)
        assert isinstance(arguments, dict)  # argument_error refuses anything else
        try:
            observation = spec.func(self.state, **arguments)
        except Exception as exc:  # τ-bench turns every tool exception into an observation
            observation = f"Error: {exc}"
        if not isinstance(observation, str):
            observation = str(observation)
        return ToolOutcome(
            name,
            arguments,
            observation,
            spec.kind,
            observation.startswith("Error:"),
            spec.ends_episode,
        )

    def db_hash(self) -> str:
        """τ-bench's hash of the current state."""
        return self.state.db_hash()
