"""Suite self-check: every task's reference solution is scored with the task's own reward.

τ-bench's reward replays a task's ground-truth calls, errors included, so a ground truth
scores 1 even when one of its calls meets an error; the check therefore reports, besides
the reward, every ground truth that meets an error, and tells τ-bench's own data defects
(:mod:`sscbench.world.taubench_defects`) from errors its tools would not return.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sscbench.world.reward import compute_reward, ground_truth
from sscbench.world.taubench_defects import KNOWN_GROUND_TRUTH_ERRORS
from sscbench.world.world import World

ToolErrors = tuple[tuple[int, str, str], ...]


@dataclass
class SelfCheck:
    """Each task's outcome: reward 1 with no tool error, reward 1 with errors τ-bench's own
    tools return (``known``), with other errors (``unexpected``), or a reward below 1."""

    world: str
    splits: dict[str, str] = field(default_factory=dict)
    clean: list[str] = field(default_factory=list)
    known: dict[str, ToolErrors] = field(default_factory=dict)
    unexpected: dict[str, ToolErrors] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Number of tasks checked."""
        return len(self.splits)

    @property
    def rewarded(self) -> int:
        """Ground truths that earn reward 1 (tool errors or not)."""
        return self.total - len(self.failed)

    @property
    def ok(self) -> bool:
        """True when every ground truth earns 1 and meets no error but τ-bench's known ones."""
        return not self.failed and not self.unexpected

    def by_split(self) -> dict[str, Counter[str]]:
        """Per split, how many tasks are ``tasks``, ``rewarded`` and ``errors`` (any kind)."""
        counts: dict[str, Counter[str]] = {}
        for task_id, split in self.splits.items():
            row = counts.setdefault(split, Counter())
            row["tasks"] += 1
            row["rewarded"] += task_id not in self.failed
            row["errors"] += task_id in self.known or task_id in self.unexpected
        return counts


def _split(task_id: str) -> str:
    """The split a task id names (``test/12`` → ``test``; ``gen/0`` → ``gen``)."""
    return task_id.partition("/")[0] if "/" in task_id else "tasks"


def check_world(world: World) -> SelfCheck:
    """Replay every task's ground truth on a fresh env and score it with the task's reward.

    A ground truth that meets an error observation is still scored (as τ-bench does) and
    listed as ``known`` when exactly those errors are τ-bench's own at the pinned commit
    (only for the ``tau-bench`` source), else as ``unexpected``.
    """
    report = SelfCheck(world.name)
    known = KNOWN_GROUND_TRUTH_ERRORS.get(world.domain, {}) if world.source == "tau-bench" else {}
    env = world.new_env()
    for task in world.tasks:
        report.splits[task.task_id] = _split(task.task_id)
        env.reset()
        for action in task.actions:
            env.execute(action.name, dict(action.kwargs))
        result = compute_reward(world, task, env.state, [" ".join(task.outputs)])
        errors = tuple(ground_truth(world, task).errors)
        if errors:
            target = report.known if known.get(task.task_id) == errors else report.unexpected
            target[task.task_id] = errors
        if result.reward != 1.0:
            report.failed[task.task_id] = (
                f"state matches: {result.state_matches}, outputs: {result.outputs}"
            )
        elif not errors:
            report.clean.append(task.task_id)
    return report


def describe_errors(errors: ToolErrors) -> str:
    """One line for a ground truth's erroring calls: ``action 1 get_product_details: …``."""
    return "; ".join(f"action {index} {name}: {observation}" for index, name, observation in errors)
