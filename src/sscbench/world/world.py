"""A world: a domain's base data, tools, policy and tasks, and the factory of its envs."""

from __future__ import annotations

from dataclasses import dataclass, field

from sscbench.json_types import JsonObject
from sscbench.world.env import Env
from sscbench.world.state import BaseData
from sscbench.world.task import Task
from sscbench.world.tools import ToolRegistry


@dataclass
class World:
    """Everything an episode needs from a domain, loaded once and shared by its envs.

    ``schemas`` overrides the registry's own tool schemas when the source ships the
    original ones (τ-bench's ``tools.json``), so an agent sees exactly those.
    ``strict_arguments`` is an interface variant: a call whose top-level argument has
    the wrong JSON type is refused before the tool runs (τ-bench itself checks no types).
    """

    name: str
    domain: str
    source: str
    base: BaseData
    tools: ToolRegistry
    policy: str
    tasks: list[Task]
    schemas: list[JsonObject] | None = None
    strict_arguments: bool = False
    _expected: dict[str, object] = field(default_factory=dict, repr=False)

    def new_env(self) -> Env:
        """A fresh isolated env at the initial state."""
        return Env(self)

    def tool_schemas(self) -> list[JsonObject]:
        """The tool schemas an agent is given, in OpenAI function format."""
        return self.schemas if self.schemas is not None else self.tools.schemas()

    def task(self, task_id: str) -> Task:
        """A task by id; KeyError names the world when absent."""
        for task in self.tasks:
            if task.task_id == task_id:
                return task
        raise KeyError(f"no task {task_id!r} in world {self.name}")

    def counts(self) -> dict[str, int]:
        """Number of records per table and of tasks."""
        out = {name: len(table) for name, table in self.base.tables.items()}
        out["tasks"] = len(self.tasks)
        return out
