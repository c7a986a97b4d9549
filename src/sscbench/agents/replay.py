"""Replay a recorded τ-bench trajectory prefix, then stop or hand over.

A recording is τ-bench's trajectory format (e.g. ``historical_trajectories/
gpt-4o-airline.json``): a list of runs, each with ``task_id``, ``traj`` (chat messages
with roles system / user / assistant / tool; assistant tool calls in OpenAI format),
``reward``, ``trial`` and ``info``. :class:`ReplayAgent` re-emits the recorded
assistant turns — text and tool calls, with their recorded ids and arguments — for
the first ``turns`` assistant turns, so the prefix's tool calls re-execute against the
env (and any injection). After the prefix it hands over to a continuation agent, or
ends the episode (an ``end`` turn: nothing is added to the ledger, so a replay holds
only text the recording held — never a closing line the model did not write).
:class:`ReplayUser` replays the recorded user messages of the same prefix, then hands
over to a continuation user or stops.

:func:`observation_matches` pairs the prefix's delivered observations with the
recorded ones. Recordings made before τ-bench renamed ``province`` to ``state`` in
user addresses differ there only; :func:`legacy_normalized` applies that rename.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sscbench.core.agent import Agent, AgentFactory, AgentTurn, RunContext
from sscbench.core.ledger import LedgerEvent, ReplayRecord, ToolCall, ToolEvent
from sscbench.core.user import STOP, User, UserFactory
from sscbench.json_types import JsonObject, JsonValue
from sscbench.reading import loads_json
from sscbench.recordings.formats import own_recording_id
from sscbench.recordings.recorded import RecordedRun


def _prefix_user_replies(run: RecordedRun, turns: int) -> tuple[str | None, list[str]]:
    """The opening user message and the user replies within the first ``turns`` turns."""
    first: str | None = None
    replies: list[str] = []
    seen = 0
    messages = run.traj
    for index, message in enumerate(messages):
        if message.role == "user" and first is None and seen == 0:
            first = message.content
            continue
        if message.role != "assistant":
            continue
        seen += 1
        if seen > turns:
            break
        if message.tool_calls:
            continue
        following = messages[index + 1] if index + 1 < len(messages) else None
        if following is not None and following.role == "user":
            replies.append(following.content or "")
    return first, replies


class ReplayAgent:
    """Re-emits a recording's first ``turns`` assistant turns, then hands over.

    ``turns=None`` replays every recorded turn. After the prefix, ``continuation``
    (an :class:`Agent`) takes over with the ledger as it stands; without one, the next
    turn is an ``end`` turn and the episode stops with the recording (termination
    ``agent_end``): no text the model never wrote enters its ledger.
    """

    def __init__(
        self,
        run: RecordedRun,
        turns: int | None = None,
        continuation: Agent | None = None,
        source: str = "",
        sha256: str | None = None,
    ):
        recorded = run.assistant_turns()
        if turns is not None and turns < 0:
            raise ValueError(f"turns must be >= 0, got {turns}")
        self.run = run
        self.turns = len(recorded) if turns is None else min(turns, len(recorded))
        self.continuation = continuation
        self.source = source
        self.sha256 = sha256
        self._messages = recorded[: self.turns]
        self._next = 0
        self._ledger: Sequence[LedgerEvent] = ()
        self._diverged = False
        self._after_divergence = 0

    @property
    def replayed(self) -> int:
        """How many recorded turns have been re-emitted so far."""
        return self._next

    async def act(self, ledger: Sequence[LedgerEvent]) -> AgentTurn:
        """The next recorded turn, then the continuation's, or an ``end`` turn."""
        self._ledger = ledger
        if self._next < len(self._messages):
            if not self._diverged:
                self._diverged = any(not m.equal_after_rename for m in self._matches())
            self._after_divergence += self._diverged
            message = self._messages[self._next]
            self._next += 1
            calls = tuple(
                ToolCall(id=c.id, name=c.function.name, arguments=c.function.arguments)
                for c in message.tool_calls or ()
            )
            return AgentTurn(content=message.content, tool_calls=calls)
        if self.continuation is not None:
            return await self.continuation.act(ledger)
        return AgentTurn(end=True)

    def _matches(self) -> list[ObservationMatch]:
        return observation_matches(self.run, self._ledger)

    def calibration(self) -> JsonObject | None:
        """The continuation's labels with what was replayed under ``"replay"``; None
        without labelled continuation (a recording has no calibration labels — what
        was replayed is in :meth:`replay_record`)."""
        inner = None
        if self.continuation is not None and hasattr(self.continuation, "calibration"):
            inner = self.continuation.calibration()
        if inner is None:
            return None
        replay: JsonObject = {
            "task_id": self.run.task_id,
            "trial": self.run.trial,
            "turns": self.turns,
            "replayed": self._next,
        }
        return {**inner, "replay": replay}

    def replay_record(self) -> ReplayRecord:
        """The evaluator-only record that the replayed text is the recording's, and
        where the delivered observations stopped fitting it."""
        matches = self._matches()
        recorded = sum(1 for m in self.run.traj if m.role == "tool")
        return ReplayRecord(
            source=self.source,
            sha256=self.sha256,
            recorded_task_id=str(self.run.task_id),
            recording=own_recording_id(self.run),
            match=self.run.info.get("match"),
            edits=self.run.info.get("edits"),
            trial=self.run.trial,
            recorded_reward=self.run.reward,
            turns=self.turns,
            replayed=self._next,
            divergences=[
                {
                    "step": m.step,
                    "name": m.name,
                    "tool_call_id": m.tool_call_id,
                    "recorded": m.recorded[:300],
                    "delivered": m.delivered[:300],
                }
                for m in matches
                if not m.equal_after_rename
            ],
            turns_after_divergence=self._after_divergence,
            unmatched_recorded_observations=recorded - len(matches),
        )


class ReplayUser:
    """Replays a recording's user messages for the same prefix as a :class:`ReplayAgent`.

    Opens with the recorded first user message and answers each text turn of the
    prefix with the recorded reply; after the prefix, ``continuation`` (a
    :class:`User`) answers, or the user stops with ``###STOP###``.
    """

    def __init__(
        self, run: RecordedRun, turns: int | None = None, continuation: User | None = None
    ):
        total = len(run.assistant_turns())
        self.turns = total if turns is None else min(turns, total)
        self.run = run
        self.continuation = continuation
        self._first, self._replies = _prefix_user_replies(run, self.turns)
        self._next = 0

    async def first_message(self) -> str:
        """The recorded opening message."""
        if self._first is not None:
            return self._first
        if self.continuation is not None:
            return await self.continuation.first_message()
        return STOP

    async def reply(self, ledger: Sequence[LedgerEvent]) -> str:
        """The next recorded reply, then the continuation's answer or ``###STOP###``."""
        if self._next < len(self._replies):
            text = self._replies[self._next]
            self._next += 1
            return text
        if self.continuation is not None:
            return await self.continuation.reply(ledger)
        return STOP


def replay_agent_factory(
    run: RecordedRun,
    turns: int | None = None,
    continuation: AgentFactory | None = None,
) -> AgentFactory:
    """An agent factory replaying ``run``'s prefix, then the continuation's agent."""

    def build(context: RunContext) -> ReplayAgent:
        inner = continuation(context) if continuation is not None else None
        return ReplayAgent(run, turns, inner)

    return build


def replay_user_factory(
    run: RecordedRun, turns: int | None = None, continuation: UserFactory | None = None
) -> UserFactory:
    """A user factory replaying ``run``'s prefix, then the continuation's user."""

    def build(context: RunContext) -> ReplayUser:
        inner = continuation(context) if continuation is not None else None
        return ReplayUser(run, turns, inner)

    return build


# ---- comparing a replayed prefix with its recording --------------------------------------


def _rename(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {("state" if k == "province" else k): _rename(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v) for v in value]
    return value


def legacy_normalized(text: str) -> JsonValue:
    """A recorded observation with τ-bench's later ``province`` → ``state`` rename applied.

    Returns parsed JSON (or the text itself when it is not JSON).
    """
    try:
        return _rename(loads_json(text, max_depth=None))
    except ValueError:
        return text


def _parsed(text: str) -> JsonValue:
    """``text`` as JSON, or the text itself when it is not JSON."""
    try:
        return loads_json(text, max_depth=None)
    except ValueError:
        return text


@dataclass(frozen=True)
class ObservationMatch:
    """A delivered observation paired with the recorded one for the same call id."""

    tool_call_id: str
    name: str
    step: int
    recorded: str
    delivered: str
    equal: bool  # identical text
    equal_after_rename: bool  # same JSON once the recording's province is renamed state


def observation_matches(run: RecordedRun, ledger: Sequence[LedgerEvent]) -> list[ObservationMatch]:
    """The ledger's tool observations paired in order with the recording's tool messages.

    Pairing is by position (the k-th observation with the k-th recorded tool message),
    since recordings may reuse a call id within one run; pairs stop at the first
    observation whose call id differs from the recorded one.
    """
    recorded = [m for m in run.traj if m.role == "tool"]
    delivered = [e for e in ledger if isinstance(e, ToolEvent)]
    out: list[ObservationMatch] = []
    for message, event in zip(recorded, delivered, strict=False):
        if message.tool_call_id != event.tool_call_id:
            break
        text = message.content or ""
        equal = text == event.content
        out.append(
            ObservationMatch(
                tool_call_id=event.tool_call_id,
                name=event.name,
                step=event.step,
                recorded=text,
                delivered=event.content,
                equal=equal,
                equal_after_rename=equal or legacy_normalized(text) == _parsed(event.content),
            )
        )
    return out


__all__ = [
    "ObservationMatch",
    "ReplayAgent",
    "ReplayUser",
    "legacy_normalized",
    "observation_matches",
    "replay_agent_factory",
    "replay_user_factory",
]
