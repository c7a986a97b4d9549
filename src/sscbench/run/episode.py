"""The pure episode function: agent, environment and user, with τ-bench's semantics.

A tool call goes through the one execution point (with the run's fault hooks); a
text reply goes to the user; the user's ``###STOP###`` or a call to
``transfer_to_human_agents`` ends the episode; so does the step limit, counted in
agent turns, and an agent's ``end`` turn (a replayed recording that has run out), which
adds nothing to the ledger. Nothing here touches the disk: the result is returned whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sscbench.core.agent import Agent
from sscbench.core.injection import InjectingExecutor, Injection
from sscbench.core.ledger import (
    AssistantEvent,
    CalibrationLabels,
    ContextIntervention,
    EvaluatorEvent,
    HarnessError,
    InterventionRecord,
    LedgerEvent,
    RunEnd,
    SystemEvent,
    ToolCall,
    ToolEvent,
    Usage,
    UserEvent,
)
from sscbench.core.user import STOP, User
from sscbench.errors import EndpointUnreachable, HarnessFailure
from sscbench.world.env import Env
from sscbench.world.reward import compute_reward
from sscbench.world.task import Task
from sscbench.world.world import World


@dataclass
class EpisodeResult:
    """Everything a run produced: the model-visible ledger and the evaluator-only log."""

    ledger: list[LedgerEvent] = field(default_factory=list)
    evaluator: list[EvaluatorEvent] = field(default_factory=list)
    end: RunEnd | None = None

    @property
    def triggered(self) -> bool:
        """True when an intervention took effect and its observation was delivered."""
        return self.end is not None and self.end.triggered


async def run_episode(
    world: World,
    task: Task,
    agent: Agent,
    user: User,
    *,
    system_prompt: str,
    injections: list[Injection] | tuple[Injection, ...] = (),
    max_steps: int = 30,
    first_tool_call_only: bool = True,
    env: Env | None = None,
    idempotency_keys: bool = False,
    context_interventions: tuple[ContextIntervention, ...] = (),
) -> EpisodeResult:
    """Run one episode from the world's initial state and return its ledger and log.

    ``first_tool_call_only`` keeps τ-bench's rule that only the first tool call of
    an assistant turn is executed (the others are dropped from the turn). A
    :class:`HarnessFailure` from the agent or user ends the run as missing;
    :class:`EndpointUnreachable` is not a run's failure but the study's: it propagates.
    ``context_interventions`` record a fault already placed in ``system_prompt``;
    ``idempotency_keys`` lets a write carry a key that makes its repeat a replay.
    """
    env = env or world.new_env()
    env.reset()
    executor = InjectingExecutor(env, list(injections), idempotency_keys=idempotency_keys)
    result = EpisodeResult()
    result.evaluator.extend(context_interventions)
    conversation = _Conversation(
        result, executor, triggered=any(c.effective for c in context_interventions)
    )
    try:
        await conversation.converse(agent, user, system_prompt, max_steps, first_tool_call_only)
    except EndpointUnreachable:
        raise
    except Exception as exc:  # a crash in agent or user code is the harness's, not the agent's
        _end_in_harness_error(conversation, exc, agent, user)
        return result
    _end_completed(conversation, world, task, env, agent, user)
    return result


@dataclass
class _Conversation:
    """One episode while it runs: its result so far, the tool execution point, the agent's
    texts to the user (the reward reads them), whether a fault took effect, the agent
    turns taken and why the episode ends."""

    result: EpisodeResult
    executor: InjectingExecutor
    triggered: bool
    agent_texts: list[str] = field(default_factory=list)
    turns: int = 0
    termination: str = "max_steps"

    def add(self, event_type: Callable[..., LedgerEvent], **fields: Any) -> LedgerEvent:
        """Append an event to the ledger at the next step."""
        ledger = self.result.ledger
        event = event_type(step=len(ledger), **fields)
        ledger.append(event)
        return event

    async def converse(
        self,
        agent: Agent,
        user: User,
        system_prompt: str,
        max_steps: int,
        first_tool_call_only: bool,
    ) -> None:
        """The turns: the agent acts; a tool call is executed, a text goes to the user; ends
        at the step limit, a transfer, the user's stop or the agent's end."""
        ledger = self.result.ledger
        self.add(SystemEvent, content=system_prompt)
        self.add(UserEvent, content=await user.first_message())
        while self.turns < max_steps:
            self.turns += 1
            turn = await agent.act(ledger)
            if turn.end:  # nothing more to say (a recording ran out): no step is invented
                self.turns -= 1
                self.termination = "agent_end"
                break
            calls = turn.tool_calls[:1] if first_tool_call_only else turn.tool_calls
            self.add(AssistantEvent, content=turn.content, tool_calls=tuple(calls))
            if calls:
                if self._execute(calls):
                    self.termination = "transfer"
                    break
                continue
            self.agent_texts.append(turn.content or "")
            reply = await user.reply(ledger)
            self.add(UserEvent, content=reply)
            if STOP in reply:
                self.termination = "user_stop"
                break

    def _execute(self, calls: Sequence[ToolCall]) -> bool:
        """Execute a turn's tool calls through the fault hooks, logging writes and
        interventions; True when one of them ends the episode."""
        ended = False
        for call in calls:
            step = len(self.result.ledger)
            execution = self.executor.execute(step, call.id, call.name, call.arguments)
            self.add(ToolEvent, tool_call_id=call.id, name=call.name, content=execution.observation)
            if execution.write is not None:
                self.result.evaluator.append(execution.write)
            if execution.intervention is not None:
                self.result.evaluator.append(execution.intervention)
                self.triggered = self.triggered or execution.intervention.effective
            if execution.outcome is not None and execution.outcome.ends_episode:
                ended = True
        return ended


def _end_in_harness_error(
    conversation: _Conversation, exc: Exception, agent: Agent, user: User
) -> None:
    """End the run as missing: the harness's error (a crash in agent or user code)."""
    result = conversation.result
    where, message, kind = (
        (exc.where, exc.message, exc.kind)
        if isinstance(exc, HarnessFailure)
        else ("episode", f"{type(exc).__name__}: {exc}", "crash")
    )
    _record_usage(result, agent, user)
    result.evaluator.append(HarnessError(where=where, message=message, kind=kind))
    result.end = RunEnd(
        status="missing",
        termination="harness_error",
        agent_turns=conversation.turns,
        reward=None,
        state_matches=None,
        triggered=conversation.triggered,
    )


def _end_completed(
    conversation: _Conversation, world: World, task: Task, env: Env, agent: Agent, user: User
) -> None:
    """End the run as completed: usage, calibration labels, the replay record and the
    task's reward on the final state."""
    result = conversation.result
    _record_usage(result, agent, user)
    calibration = agent.calibration() if hasattr(agent, "calibration") else None
    if calibration is not None:
        result.evaluator.append(CalibrationLabels(labels=calibration))
    replay = agent.replay_record() if hasattr(agent, "replay_record") else None
    if replay is not None:  # the text was a recording's: say so, beside the ledger
        result.evaluator.append(replay)
    reward = compute_reward(world, task, env.state, conversation.agent_texts)
    result.end = RunEnd(
        status="completed",
        termination=conversation.termination,
        agent_turns=conversation.turns,
        reward=reward.reward,
        state_matches=reward.state_matches,
        outputs=reward.outputs,
        final_hash=None,
        triggered=conversation.triggered,
    )


def _record_usage(result: EpisodeResult, agent: Agent, user: User) -> None:
    agent_usage = getattr(agent, "usage", None)
    user_usage = getattr(user, "usage", None)
    if agent_usage or user_usage:
        result.evaluator.append(Usage(agent=dict(agent_usage or {}), user=dict(user_usage or {})))


def interventions(result: EpisodeResult) -> list[InterventionRecord]:
    """The intervention records of a run's evaluator-only log."""
    return [e for e in result.evaluator if isinstance(e, InterventionRecord)]
