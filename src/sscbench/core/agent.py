"""The one agent interface every agent implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from sscbench.core.ledger import LedgerEvent, ToolCall
from sscbench.json_types import JsonObject
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


RunKind = Literal["clean", "faulted"]
"""A run is its task's clean control or a faulted run of a case."""


@dataclass
class ReplayChoice:
    """The recording a replayed run replays: chosen by the replay agent's factory
    (:mod:`sscbench.agents.recordings`), read by the recorded user
    (:mod:`sscbench.users.replay`), so agent and user of a run replay the same recording.

    ``run`` is a :class:`sscbench.recordings.recorded.RecordedRun` (``core`` sits below
    ``agents`` and cannot name it: the reader narrows it), None until a factory chose.
    """

    run: object | None = None


@dataclass(frozen=True)
class RunContext:
    """What an agent or user is built from for one run.

    ``system_prompt`` and ``tools`` are what the model sees; ``task`` carries the
    ground truth and intent that scripted doubles may read (models never see it).
    ``kind`` says whether the run is the task's clean run or a faulted one (a pairs
    replay applies its edits to the faulted run only). ``journal`` is the run's response
    journal (a :class:`sscbench.llm.journal.ResponseJournal`, which ``core`` cannot name;
    None when the study keeps none), given to model-calling agents and users so an
    interrupted run continues where it stopped. ``replay`` carries the replay choice
    from the agent's factory to the user's.
    """

    world: World
    task: Task
    system_prompt: str
    tools: list[JsonObject]
    seed: int
    repetition: int
    kind: RunKind = "faulted"
    journal: object | None = None
    replay: ReplayChoice = field(default_factory=ReplayChoice)


@runtime_checkable
class Agent(Protocol):
    """An agent: given the model-visible ledger so far, produce the next turn.

    Raise :class:`sscbench.errors.HarnessFailure` when the model cannot be reached;
    the run is then missing, never an outcome.
    """

    async def act(self, ledger: Sequence[LedgerEvent]) -> AgentTurn:
        """The next assistant turn."""
        ...

    def calibration(self) -> JsonObject | None:
        """Evaluator-only labels of the agent's own intentions (scripted agents), else None."""
        ...


class AgentFactory(Protocol):
    """Builds a fresh agent for each run."""

    def __call__(self, context: RunContext) -> Agent:
        """A new agent for this run."""
        ...
