"""Fault hooks at the one tool-execution point, and the executor that applies them.

A hook can rewrite the observation delivered for a matched call while the state
stays authoritative, suppress a matched write's state change while delivering
exactly the acknowledgement the tool returned when it committed (the call really
runs, then the state is rolled back), let the call run and then change the state
behind the agent's back (another actor's update), or run the call on arguments the
model did not send (a subject rebound at the execution point). Each decision becomes an
evaluator-only record, and so does every call of a write tool (with whether it
changed the state), so effects are counted from the state, never from what the
agent was told.

When the world offers idempotency keys, a write carrying ``idempotency_key`` that
was seen before (for the same request) is answered with the first call's own
acknowledgement without running again. A write whose change was rolled back by a
hook leaves no record under its key (nothing committed under it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Literal

from sscbench.core.actions import UNPARSABLE_ACTION, UNPARSABLE_OBSERVATION
from sscbench.core.arguments import parse_arguments
from sscbench.core.ledger import InterventionRecord, WriteRecord
from sscbench.json_types import JsonValue
from sscbench.world.env import Env, ToolOutcome
from sscbench.world.state import WorldState
from sscbench.world.tools import ToolKind

Matcher = Callable[[str, object, WorldState], bool]
Rewriter = Callable[[str, object, WorldState], str | None]
Updater = Callable[[WorldState], None]
Rebinder = Callable[[str, object, WorldState], Any]  # the arguments that run instead
_Changes = dict[tuple[str, str], str | None]  # WorldState.changes(): what a call changed

IDEMPOTENCY_KEY = "idempotency_key"


@dataclass
class Hook:
    """What every fault hook has: its id, which calls it matches, and how often it fires
    (once, ``limit`` times, or on every match when ``persistent``)."""

    hook_id: str
    match: Matcher
    _: KW_ONLY
    persistent: bool = False
    limit: int | None = None

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"injection {self.hook_id}: limit must be >= 1")


@dataclass
class RewriteHook(Hook):
    """``rewrite(observation, arguments, state)`` returns the observation to deliver for
    a matched call (None leaves it unchanged); the state stays authoritative."""

    _: KW_ONLY
    rewrite: Rewriter
    kind: Literal["rewrite"] = field(default="rewrite", init=False)


@dataclass
class SuppressHook(Hook):
    """Rolls back a matched write's state change while delivering the acknowledgement
    of its real commit. An optional ``rewrite`` sees the write's state before the
    rollback and its answer is delivered instead (a receipt that lies about a lost
    write, a partial payload, a refusal)."""

    _: KW_ONLY
    rewrite: Rewriter | None = None
    kind: Literal["suppress"] = field(default="suppress", init=False)


@dataclass
class UpdateHook(Hook):
    """``update(state)`` changes the state right after the matched call ran (another
    actor's update); its observation is delivered unchanged."""

    _: KW_ONLY
    update: Updater
    kind: Literal["update"] = field(default="update", init=False)


@dataclass
class RedeliverHook(Hook):
    """Delivers a matched write's commit event to the store a second time (at-least-once
    delivery): the write runs again unless it carried an idempotency key."""

    _: KW_ONLY
    kind: Literal["redeliver"] = field(default="redeliver", init=False)


@dataclass
class RebindHook(Hook):
    """``rebind(name, arguments, state)`` returns the arguments the tool runs on instead
    of the model's (None leaves them): its real answer is delivered; the record keeps
    both."""

    _: KW_ONLY
    rebind: Rebinder
    kind: Literal["rebind"] = field(default="rebind", init=False)


Injection = RewriteHook | SuppressHook | UpdateHook | RedeliverHook | RebindHook
"""One fault hook: a tagged union of the hook kinds (``kind``), dispatched by ``match``."""


@dataclass(frozen=True)
class _Call:
    """One call as the executor runs it: what the model sent and what runs."""

    step: int
    call_id: str
    name: str
    arguments: JsonValue
    requested: JsonValue
    key: str | None


@dataclass(frozen=True)
class Execution:
    """The observation delivered for one call, the intervention taken on it, if any,
    and the evaluator's record of a write call."""

    observation: str
    outcome: ToolOutcome | None
    intervention: InterventionRecord | None
    write: WriteRecord | None = None


_Ran = tuple[ToolOutcome, bool, str, InterventionRecord | None]
"""What running one call gave: its outcome, whether the state changed, the observation
delivered and the intervention taken."""


class InjectingExecutor:
    """The env's execution point with the run's fault hooks in front of it."""

    def __init__(
        self,
        env: Env,
        injections: list[Injection] | tuple[Injection, ...] = (),
        *,
        idempotency_keys: bool = False,
    ):
        self.env = env
        self.active = list(injections)
        self._fired: dict[int, int] = {}
        self.idempotency_keys = idempotency_keys
        self._keys: dict[str, tuple[str, str, ToolOutcome]] = {}

    def execute(self, step: int, call_id: str, name: str, raw_arguments: str) -> Execution:
        """Run one model-emitted call; malformed JSON becomes an error the agent sees.

        A reply an act/react agent could not read as an action arrives as a call of
        :data:`UNPARSABLE_ACTION` (its text as the arguments): nothing runs, and the
        observation says what a reply must be.
        """
        if name == UNPARSABLE_ACTION:
            return Execution(UNPARSABLE_OBSERVATION, None, None)
        arguments, error = parse_arguments(raw_arguments)
        if error is not None:
            return Execution(error, None, None)
        spec = self.env.world.tools.specs.get(name)
        is_write = spec is not None and spec.kind is ToolKind.WRITE and not spec.ends_episode
        key: str | None = None
        if (
            self.idempotency_keys
            and is_write
            and isinstance(arguments, dict)
            and IDEMPOTENCY_KEY in arguments
        ):
            arguments = dict(arguments)
            given = arguments.pop(IDEMPOTENCY_KEY)
            if not isinstance(given, str) or not given.strip():
                return Execution(
                    f"Error: argument '{IDEMPOTENCY_KEY}' must be a non-empty string", None, None
                )
            key = given
        replay = self._replay(key, name, arguments)
        if isinstance(replay, str):
            return Execution(replay, None, None)
        hook = self._matching_hook(name, arguments)
        requested = arguments  # what the model sent (a rebinding hook changes what runs)
        if isinstance(hook, RebindHook) and replay is None:
            rebound = hook.rebind(name, arguments, self.env.state)
            arguments = arguments if rebound is None else rebound
        call = _Call(step, call_id, name, arguments, requested, key)
        before = self.env.state.changes() if (hook is not None or is_write) else None
        if replay is not None:
            outcome, changed, delivered, intervention = self._replayed(hook, call, replay)
        elif isinstance(hook, SuppressHook):
            outcome, changed, delivered, intervention = self._suppressed(hook, call, before)
        else:
            outcome, changed, delivered, intervention = self._executed(hook, call, before)
        rolled_back = isinstance(hook, SuppressHook)
        if key is not None and replay is None and not outcome.is_error and not rolled_back:
            self._keys[key] = (name, _canonical(requested), outcome)  # a lost write keeps none
        if hook is not None and intervention is not None:
            self._spend(hook)
        write = None
        if is_write:
            write = WriteRecord(
                step=step,
                name=name,
                arguments=arguments,
                idempotency_key=key,
                replayed=replay is not None,
                state_changed=changed,
                error=outcome.is_error,
            )
        return Execution(delivered, outcome, intervention, write)

    def _replayed(self, hook: Injection | None, call: _Call, outcome: ToolOutcome) -> _Ran:
        """A repeated key answered with the first call's acknowledgement (nothing runs);
        a rewriting hook still rewrites it."""
        delivered, intervention = outcome.observation, None
        if isinstance(hook, RewriteHook | SuppressHook) and hook.rewrite is not None:
            intervention, delivered = self._rewrite(hook, call, outcome, False)
        return outcome, False, delivered, intervention

    def _suppressed(self, hook: SuppressHook, call: _Call, before: _Changes | None) -> _Ran:
        """The write runs, then its state change is rolled back; the acknowledgement (or
        the hook's rewrite of it, seen before the rollback) is delivered."""
        state = self.env.state
        snapshot = state.snapshot()
        outcome = self.env.execute(call.name, call.arguments)
        would_change = state.changes() != before
        delivered = outcome.observation
        if hook.rewrite is not None:  # seen before the rollback
            rewritten = hook.rewrite(outcome.observation, outcome.arguments, state)
            delivered = outcome.observation if rewritten is None else rewritten
        state.restore(snapshot)
        effective = would_change and outcome.kind is ToolKind.WRITE
        intervention = _record(
            hook, call, outcome, "suppress", delivered, False, would_change, effective=effective
        )
        return outcome, False, delivered, intervention

    def _executed(self, hook: Injection | None, call: _Call, before: _Changes | None) -> _Ran:
        """The call runs; a matched hook acts on its answer or on the state after it."""
        state = self.env.state
        outcome = self.env.execute(call.name, call.arguments)
        changed = before is not None and state.changes() != before
        delivered = outcome.observation
        intervention: InterventionRecord | None = None
        match hook:
            case RewriteHook():
                intervention, delivered = self._rewrite(hook, call, outcome, changed)
            case UpdateHook():
                prior = state.changes()
                hook.update(state)
                updated = state.changes() != prior
                intervention = _record(
                    hook, call, outcome, "update", delivered, updated, updated, effective=updated
                )
            case RedeliverHook() if not outcome.is_error:
                intervention = self._redeliver(hook, call, outcome)
            case RebindHook() if call.arguments is not call.requested:
                effective = call.arguments != call.requested  # ran on what the model did not send
                record = _record(
                    hook, call, outcome, "rebind", delivered, changed, changed, effective=effective
                )
                intervention = record.model_copy(update={"requested_arguments": call.requested})
        return outcome, changed, delivered, intervention

    def _replay(self, key: str | None, name: str, arguments: JsonValue) -> ToolOutcome | str | None:
        """The stored outcome of a repeated key, an error for a reused one, or None."""
        if key is None or key not in self._keys:
            return None
        stored_name, stored_arguments, outcome = self._keys[key]
        if stored_name != name or stored_arguments != _canonical(arguments):
            return f"Error: {IDEMPOTENCY_KEY} {key!r} was already used for a different request"
        return outcome

    def _redeliver(
        self, hook: RedeliverHook, call: _Call, outcome: ToolOutcome
    ) -> InterventionRecord:
        """The committed write's event delivered again: deduplicated under its key, else
        applied a second time (the record says whether that changed the state)."""
        duplicate = False
        if call.key is None:
            prior = self.env.state.changes()
            self.env.execute(outcome.name, outcome.arguments)
            duplicate = self.env.state.changes() != prior
        return _record(
            hook,
            call,
            outcome,
            "redeliver",
            outcome.observation,
            duplicate,
            duplicate,
            effective=True,  # the event was delivered twice, whatever the store made of it
        )

    def _rewrite(
        self, hook: RewriteHook | SuppressHook, call: _Call, outcome: ToolOutcome, changed: bool
    ) -> tuple[InterventionRecord, str]:
        assert hook.rewrite is not None
        rewritten = hook.rewrite(outcome.observation, outcome.arguments, self.env.state)
        delivered = outcome.observation if rewritten is None else rewritten
        record = _record(hook, call, outcome, "rewrite", delivered, changed, changed)
        return record, delivered

    def _spend(self, hook: Injection) -> None:
        if hook.persistent:
            return
        count = self._fired.get(id(hook), 0) + 1
        self._fired[id(hook)] = count
        if count >= (hook.limit or 1):
            self.active.remove(hook)

    def _matching_hook(self, name: str, arguments: JsonValue) -> Injection | None:
        for hook in self.active:
            if hook.match(name, arguments, self.env.state):
                return hook
        return None


def _record(
    hook: Hook,
    call: _Call,
    outcome: ToolOutcome,
    action: str,
    delivered: str,
    changed: bool,
    would_change: bool,
    effective: bool | None = None,
) -> InterventionRecord:
    """The evaluator's record of one hook decision (by default effective when the
    delivered observation differs from the tool's)."""
    return InterventionRecord(
        hook_id=hook.hook_id,
        step=call.step,
        tool_call_id=call.call_id,
        name=outcome.name,
        arguments=outcome.arguments,
        action=action,
        original_observation=outcome.observation,
        delivered_observation=delivered,
        state_changed=changed,
        would_have_changed_state=would_change,
        effective=delivered != outcome.observation if effective is None else effective,
    )


def _canonical(arguments: JsonValue) -> str:
    return json.dumps(arguments, sort_keys=True, default=str)
