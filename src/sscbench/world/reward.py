"""Reward with τ-bench's semantics, computed from what executed.

The state part holds when the final state's hash equals the hash after replaying
the task's ground-truth actions on a fresh state. Both states share one base, so the
comparison is made on the records that differ from it (equal exactly when the
τ-bench hashes are equal); the replay is done once per task and cached.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sscbench.world.state import WorldState
from sscbench.world.task import Task
from sscbench.world.world import World


@dataclass(frozen=True)
class GroundTruth:
    """The state a task's ground truth leaves, and the calls of it that answered an error."""

    changes: dict[tuple[str, str], str | None]
    errors: list[tuple[int, str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class RewardResult:
    """τ-bench's reward: 1.0 only when the state and every required output match."""

    reward: float
    state_matches: bool
    outputs: dict[str, bool]


def ground_truth(world: World, task: Task) -> GroundTruth:
    """Replay a task's ground-truth actions on a fresh env (cached per task)."""
    cached = world._expected.get(task.task_id)
    if isinstance(cached, GroundTruth):
        return cached
    env = world.new_env()
    errors: list[tuple[int, str, str]] = []
    for index, action in enumerate(task.actions):
        spec = world.tools.specs.get(action.name)
        if spec is not None and spec.ends_episode:
            continue
        outcome = env.execute(action.name, dict(action.kwargs))
        if outcome.is_error:
            errors.append((index, action.name, outcome.observation))
    result = GroundTruth(changes=env.state.changes(), errors=errors)
    world._expected[task.task_id] = result
    return result


def output_found(output: str, messages: Iterable[str]) -> bool:
    """τ-bench's output check: lower-cased output inside one message with commas removed."""
    needle = output.lower()
    return any(needle in message.lower().replace(",", "") for message in messages)


def compute_reward(
    world: World, task: Task, state: WorldState, agent_messages: Iterable[str]
) -> RewardResult:
    """Reward of a finished run: its final state and the agent's text replies to the user."""
    state_matches = state.changes() == ground_truth(world, task).changes
    messages = list(agent_messages)
    outputs = {output: output_found(output, messages) for output in task.outputs}
    ok = state_matches and all(outputs.values())
    return RewardResult(reward=1.0 if ok else 0.0, state_matches=state_matches, outputs=outputs)
