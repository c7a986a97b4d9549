"""The one agent interface every agent implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from sscbench.core.ledger import LedgerEvent, ToolCall
from sscbench.world.task import Task
from sscbench.world.world import World


@dataclass(frozen=True)
class AgentTurn:
    """What an agent does in one turn: reply to the user, call tools, or both.

    ``end`` says the agent has no further turn (a replayed recording has run out): the
    episode ends there and nothing is added to the ledger, so no text the model never
    wrote is ever put in its mouth.
    """

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    end: bool = False


RUN_KIND_OPTION = "run_kind"
"""``RunContext.options`` key: whether the run is the task's ``"clean"`` run or ``"faulted"``."""
RESPONSE_JOURNAL_OPTION = "response_journal"
"""``RunContext.options`` key: the run's response journal (``sscbench.llm.journal``), given
to model-calling agents and users so an interrupted run continues where it stopped."""


@dataclass(frozen=True)
class RunContext:
    """What an agent or user is built from for one run.

    ``system_prompt`` and ``tools`` are what the model sees; ``task`` carries the
    ground truth and intent that scripted doubles may read (models never see it).
    """

    world: World
    task: Task
    system_prompt: str
    tools: list[dict[str, Any]]
    seed: int
    repetition: int
    options: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Agent(Protocol):
    """An agent: given the model-visible ledger so far, produce the next turn.

    Raise :class:`sscbench.errors.HarnessFailure` when the model cannot be reached;
    the run is then missing, never an outcome.
    """

    async def act(self, ledger: Sequence[LedgerEvent]) -> AgentTurn:
        """The next assistant turn."""
        ...

    def calibration(self) -> dict[str, Any] | None:
        """Evaluator-only labels of the agent's own intentions (scripted agents), else None."""
        ...


class AgentFactory(Protocol):
    """Builds a fresh agent for each run."""

    def __call__(self, context: RunContext) -> Agent:
        """A new agent for this run."""
        ...
