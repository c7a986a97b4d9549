"""Suite self-check: every task's reference solution must earn its own reward."""

from __future__ import annotations

from dataclasses import dataclass, field

from sscbench.world.reward import compute_reward, ground_truth
from sscbench.world.world import World


@dataclass
class SelfCheck:
    """Which tasks' ground truth replays cleanly and earns reward 1, and why others do not."""

    world: str
    passed: list[str] = field(default_factory=list)
    not_replayable: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Number of tasks checked."""
        return len(self.passed) + len(self.not_replayable) + len(self.failed)


def check_world(world: World) -> SelfCheck:
    """Replay every task's ground truth on a fresh env and score it with the task's reward.

    A task whose ground truth meets an error observation is listed as not replayable
    with that error; one that replays but does not earn 1 is a failure.
    """
    report = SelfCheck(world.name)
    env = world.new_env()
    for task in world.tasks:
        expected = ground_truth(world, task)
        if expected.errors:
            index, name, observation = expected.errors[0]
            report.not_replayable[task.task_id] = f"action {index} {name}: {observation}"
            continue
        env.reset()
        for action in task.actions:
            env.execute(action.name, dict(action.kwargs))
        result = compute_reward(world, task, env.state, [" ".join(task.outputs)])
        if result.reward == 1.0:
            report.passed.append(task.task_id)
        else:
            report.failed[task.task_id] = (
                f"state matches: {result.state_matches}, outputs: {result.outputs}"
            )
    return report
