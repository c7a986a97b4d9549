"""The pure episode function: agent, environment and user, with τ-bench's semantics.

A tool call goes through the one execution point (with the run's fault hooks); a
text reply goes to the user; the user's ``###STOP###`` or a call to
``transfer_to_human_agents`` ends the episode; so does the step limit, counted in
agent turns. Nothing here touches the disk: the result is returned whole.
"""

from __future__ import annotations

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
    ledger = result.ledger
    agent_texts: list[str] = []
    triggered = any(c.effective for c in context_interventions)
    turns = 0
    termination = "max_steps"

    def add(event_type: type, **fields: Any) -> Any:
        event = event_type(step=len(ledger), **fields)
        ledger.append(event)
        return event

    try:
        add(SystemEvent, content=system_prompt)
        add(UserEvent, content=await user.first_message())
        while turns < max_steps:
            turns += 1
            turn = await agent.act(ledger)
            calls = turn.tool_calls[:1] if first_tool_call_only else turn.tool_calls
            add(AssistantEvent, content=turn.content, tool_calls=tuple(calls))
            if calls:
                ended = False
                for call in calls:
                    step = len(ledger)
                    execution = executor.execute(step, call.id, call.name, call.arguments)
                    add(
                        ToolEvent,
                        tool_call_id=call.id,
                        name=call.name,
                        content=execution.observation,
                    )
                    if execution.write is not None:
                        result.evaluator.append(execution.write)
                    if execution.intervention is not None:
                        result.evaluator.append(execution.intervention)
                        triggered = triggered or execution.intervention.effective
                    if execution.outcome is not None and execution.outcome.ends_episode:
                        ended = True
                if ended:
                    termination = "transfer"
                    break
                continue
            agent_texts.append(turn.content or "")
            reply = await user.reply(ledger)
            add(UserEvent, content=reply)
            if STOP in reply:
                termination = "user_stop"
                break
    except EndpointUnreachable:
        raise
    except Exception as exc:  # a crash in agent or user code is the harness's, not the agent's
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
            agent_turns=turns,
            reward=None,
            state_matches=None,
            triggered=triggered,
        )
        return result

    _record_usage(result, agent, user)
    calibration = agent.calibration() if hasattr(agent, "calibration") else None
    if calibration is not None:
        result.evaluator.append(CalibrationLabels(labels=calibration))
    replay = agent.replay_record() if hasattr(agent, "replay_record") else None
    if replay is not None:  # the text was a recording's: say so, beside the ledger
        result.evaluator.append(replay)
    reward = compute_reward(world, task, env.state, agent_texts)
    result.end = RunEnd(
        status="completed",
        termination=termination,
        agent_turns=turns,
        reward=reward.reward,
        state_matches=reward.state_matches,
        outputs=reward.outputs,
        final_hash=None,
        triggered=triggered,
    )
    return result


def _record_usage(result: EpisodeResult, agent: Any, user: Any) -> None:
    agent_usage = getattr(agent, "usage", None)
    user_usage = getattr(user, "usage", None)
    if agent_usage or user_usage:
        result.evaluator.append(Usage(agent=dict(agent_usage or {}), user=dict(user_usage or {})))


def interventions(result: EpisodeResult) -> list[InterventionRecord]:
    """The intervention records of a run's evaluator-only log."""
    return [e for e in result.evaluator if isinstance(e, InterventionRecord)]
