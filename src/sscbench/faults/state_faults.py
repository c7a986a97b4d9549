"""State-surface families beyond the intervening update.

``ReplayedEvent`` — the target write commits, and its commit event is delivered to the
store a second time (at-least-once delivery). A write carrying an idempotency key is
deduplicated by the store; one without applies twice, a duplicate effect the agent is
never told about (it sees one acknowledgement). The barrier is the idempotency key the
agent carries; the oracle counts effects in the state. Only writes a second delivery
would change are scheduled (a cancelled order cannot be cancelled again), decided by
running the write twice on a scratch copy of the world.
"""

from __future__ import annotations

from typing import Any

from sscbench.core.injection import Injection
from sscbench.faults.case import Case
from sscbench.faults.families import _Burst, _Family, _matches_write
from sscbench.world.task import Task
from sscbench.world.world import World


def changes_twice(world: World, tool: str, arguments: dict[str, Any]) -> bool:
    """Whether running ``tool`` a second time on the state it left changes it again."""
    env = world.new_env()
    if env.execute(tool, arguments).is_error:
        return False
    once = env.state.changes()
    second = env.execute(tool, arguments)
    return not second.is_error and env.state.changes() != once


class ReplayedEvent(_Family):
    """The committed write's event is delivered twice; only a key deduplicates it."""

    name = "ReplayedEvent"

    def cases_for(self, world: World, task: Task, **params: Any) -> list[Case]:
        """Cases whose target write a second delivery would apply again."""
        return [
            c
            for c in super().cases_for(world, task, **params)
            if changes_twice(world, c.params["tool"], c.params["arguments"])
        ]

    def injections(self, case: Case, world: World, seed: int = 0) -> list[Injection]:
        burst = _Burst(case.params, seed)
        is_target = _matches_write(case)

        def match(name: str, arguments: Any, state: Any) -> bool:
            return is_target(name, arguments, state) and burst.fire()

        return [
            Injection(f"{case.case_id}:redelivered", match=match, redeliver=True, persistent=True)
        ]
