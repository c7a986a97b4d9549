"""Transcript bookkeeping: what a scripted agent has seen, decided and labelled so far.

:class:`Transcript` holds one run's state — the profile's per-write decisions (drawn
once, before the run), the calls and observations ingested from the ledger, the last
read of each record and which records were written since — and the label lists that
:meth:`~sscbench.agents.scripted.ScriptedAgent.calibration` returns.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TypeAlias, TypeVar

from sscbench.agents.scripted.labels import Use
from sscbench.agents.scripted.phrases import STALE_POLICY, canonical_text
from sscbench.agents.scripted_facts import Obs
from sscbench.agents.scripted_plan import PlanStep, task_plan
from sscbench.core.agent import AgentTurn, RunContext
from sscbench.core.injection import IDEMPOTENCY_KEY
from sscbench.core.ledger import AssistantEvent, LedgerEvent, ToolEvent, UserEvent
from sscbench.json_types import JsonObject, JsonValue
from sscbench.study.profiles import Profile, make_profile
from sscbench.world.records import record_key

T = TypeVar("T")
Script: TypeAlias = Generator[AgentTurn, object, T]
"""A script step returning a ``T``: yields turns, receives the user's reply (a string) or
the call's observation (an :class:`Obs`), narrowed where received."""
WriteUse = tuple[str, JsonValue, int | None, JsonValue]
"""A use made at a write: fact, value, source step, expected value."""
Prepared = tuple[JsonObject, list[WriteUse]] | None
"""What a write handler returns: the write's arguments and its uses, or None when the
user declined."""


@dataclass(frozen=True)
class Decisions:
    readback: bool
    product_lookup: bool
    payment_check: bool
    consistency_check: bool
    cue_readback: bool = False  # read back before reporting when the write's tool is cued


@dataclass
class Block:
    """What one write block has read so far."""

    step: PlanStep
    decisions: Decisions
    record: Obs | None = None
    user: Obs | None = None
    products: dict[str, Obs] | None = None  # by the product id an item names
    amount: float | None = None  # what the user pays (+) or gets back (-) for this write
    earlier_user: Obs | None = None  # the user read a payment check went past


class Transcript:
    """One run's state: decisions, what the ledger delivered, and the labels so far."""

    def __init__(self, context: RunContext, profile: str | Profile):
        self.context = context
        self.profile = make_profile(profile)
        self.task = context.task
        self.world = context.world
        self.domain = context.task.domain
        self.plan = task_plan(context.world, context.task)
        self.user_id: str = context.task.user_id
        rng = random.Random(
            f"sscbench/scripted/{self.profile.name}/{context.seed}/{context.repetition}/"
            f"{context.task.task_id}"
        )
        p = self.profile
        self._decisions: dict[int, Decisions] = {}
        for step in self.plan.steps:
            draws = [rng.random() for _ in range(4)]
            if step.kind == "write":
                self._decisions[step.index] = Decisions(
                    readback=p.readback != "never" and draws[0] < p.readback_p,
                    product_lookup=draws[1] < p.product_lookup_p,
                    payment_check=draws[2] < p.payment_check_p,
                    consistency_check=draws[3] < p.consistency_check_p,
                    cue_readback=p.follows_readback_cue and draws[0] < p.readback_p,
                )
        self._skip_confirmation = (
            p.follows_context_policy and STALE_POLICY in (context.system_prompt or "").lower()
        )
        self._announce: str | None = None  # said with the write when confirmation is skipped
        self._confirmation_text = ""  # the last change put to the user for confirmation
        # ledger state, updated incrementally
        self._seen = 0
        self._calls: dict[str, tuple[str, JsonObject]] = {}
        self._observations: list[Obs] = []
        self._last_read: dict[tuple[str, str], Obs] = {}
        self._dirty: set[tuple[str, str]] = set()
        self._done_calls: set[tuple[str, str]] = set()
        self._texts: list[str] = []
        self._user_texts: list[str] = []
        self._prior: list[tuple[str, str, bool]] = []  # calls made before this agent started
        # the script (the generator itself is made by ScriptedAgent)
        self._started = False
        self._finished = False
        self._pending_call: str | None = None
        self._result: object = None  # the reply or observation sent into the script
        self._step = 0
        self._call_count = 0
        self._done_steps: set[int] = set()
        self._current_step: PlanStep | None = None
        self._notes: list[str] = []  # said with the next question (e.g. a failed write)
        self._amounts: list[float] = []  # amounts of acknowledged writes, + paid, - refunded
        # labels
        self._uses: list[Use] = []
        self._pending_uses: list[Use] = []
        self._reads: list[JsonObject] = []
        self._writes: list[JsonObject] = []
        self._read_labels: dict[str, JsonObject] = {}

    def _ingest(self, ledger: Sequence[LedgerEvent]) -> None:
        for event in ledger[self._seen :]:
            if isinstance(event, ToolEvent):
                name, arguments = self._calls.get(event.tool_call_id, (event.name, {}))
                obs = Obs(event.step, event.tool_call_id, name, arguments, event.content)
                self._observations.append(obs)
                label = self._read_labels.pop(event.tool_call_id, None)
                if label is not None:
                    label["observation_step"] = event.step
                canonical = canonical_text(arguments)
                if not self._started:
                    self._prior.append((name, canonical, obs.error))
                self._done_calls.add((name, canonical))
                key = record_key(name, arguments)
                if key is not None:
                    if name.startswith("get_"):
                        self._last_read[key] = obs
                        self._dirty.discard(key)
                    else:
                        self._dirty.add(key)
                if event.tool_call_id == self._pending_call:
                    self._result = obs
            elif isinstance(event, AssistantEvent):
                for call in event.tool_calls:
                    try:
                        parsed = call.parsed_arguments()
                    except ValueError:
                        parsed = {}
                    arguments = parsed if isinstance(parsed, dict) else {}
                    if IDEMPOTENCY_KEY in arguments:  # transport detail, not the request
                        arguments = {k: v for k, v in arguments.items() if k != IDEMPOTENCY_KEY}
                    self._calls[call.id] = (call.name, arguments)
                if not event.tool_calls:
                    self._texts.append(event.content or "")
            elif isinstance(event, UserEvent):
                self._user_texts.append(event.content)
                if self._pending_call is None:
                    self._result = event.content
        self._seen = len(ledger)

    def _mark_prefix(self) -> None:
        """Ground-truth writes a replayed prefix already made are not made again."""
        prior = list(self._prior)
        for step in self.plan.steps:
            if step.kind == "read":
                continue
            wanted = (step.name, canonical_text(step.kwargs))
            for i, (name, args, error) in enumerate(prior):
                if (name, args) == wanted and not error:
                    self._done_steps.add(step.index)
                    del prior[i]
                    break
