"""Fault hooks at the one tool-execution point, and the executor that applies them.

A hook can rewrite the observation delivered for a matched call while the state
stays authoritative, or suppress a matched write's state change while delivering
exactly the acknowledgement the tool returned when it committed (the call really
runs, then the state is rolled back). Each decision becomes an evaluator-only record.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sscbench.run.ledger import InterventionRecord
from sscbench.world.env import Env, ToolOutcome
from sscbench.world.state import WorldState
from sscbench.world.tools import ToolKind

Matcher = Callable[[str, Any, WorldState], bool]
Rewriter = Callable[[str, Any, WorldState], str | None]


@dataclass
class Injection:
    """One fault hook: which calls it matches and what it does to them.

    ``rewrite(observation, arguments, state)`` returns the observation to deliver
    (None leaves it unchanged); ``suppress_write`` rolls back a matched write's
    state change. A hook fires once unless ``persistent``.
    """

    hook_id: str
    match: Matcher
    rewrite: Rewriter | None = None
    suppress_write: bool = False
    persistent: bool = False

    def __post_init__(self) -> None:
        if (self.rewrite is None) == (not self.suppress_write):
            raise ValueError(
                f"injection {self.hook_id}: give exactly one of rewrite or suppress_write"
            )


@dataclass(frozen=True)
class Execution:
    """The observation delivered for one call and the intervention taken on it, if any."""

    observation: str
    outcome: ToolOutcome | None
    intervention: InterventionRecord | None


class InjectingExecutor:
    """The env's execution point with the run's fault hooks in front of it."""

    def __init__(self, env: Env, injections: list[Injection] | tuple[Injection, ...] = ()):
        self.env = env
        self.active = list(injections)

    def execute(self, step: int, call_id: str, name: str, raw_arguments: str) -> Execution:
        """Run one model-emitted call; malformed JSON becomes an error the agent sees."""
        try:
            arguments = json.loads(raw_arguments) if raw_arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return Execution(f"Error: arguments are not valid JSON: {exc}", None, None)
        hook = self._matching_hook(name, arguments)
        if hook is None:
            outcome = self.env.execute(name, arguments)
            return Execution(outcome.observation, outcome, None)
        if not hook.persistent:
            self.active.remove(hook)
        state = self.env.state
        before = state.changes()
        if hook.suppress_write:
            snapshot = state.snapshot()
            outcome = self.env.execute(name, arguments)
            would_change = state.changes() != before
            state.restore(snapshot)
            delivered = outcome.observation
            effective = would_change and outcome.kind is ToolKind.WRITE
            changed = False
            action = "suppress"
        else:
            outcome = self.env.execute(name, arguments)
            changed = would_change = state.changes() != before
            assert hook.rewrite is not None
            rewritten = hook.rewrite(outcome.observation, arguments, state)
            delivered = outcome.observation if rewritten is None else rewritten
            effective = delivered != outcome.observation
            action = "rewrite"
        record = InterventionRecord(
            hook_id=hook.hook_id,
            step=step,
            tool_call_id=call_id,
            name=name,
            arguments=arguments,
            action=action,
            original_observation=outcome.observation,
            delivered_observation=delivered,
            state_changed=changed,
            would_have_changed_state=would_change,
            effective=effective,
        )
        return Execution(delivered, outcome, record)

    def _matching_hook(self, name: str, arguments: Any) -> Injection | None:
        for hook in self.active:
            if hook.match(name, arguments, self.env.state):
                return hook
        return None
