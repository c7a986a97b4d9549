"""The scripted agent: the script of a task, and its factory.

:class:`ScriptedAgent` combines the parts of a script — transcript bookkeeping, turn
primitives, stated facts, the domain handlers and the writes — and runs it: identify
the user, carry out each ground-truth step (reads, write blocks, a transfer), close.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from sscbench.agents.scripted.airline import AirlineHandlers
from sscbench.agents.scripted.checks import Checks
from sscbench.agents.scripted.identity import SubjectBinding
from sscbench.agents.scripted.labels import final_stance, finish_use
from sscbench.agents.scripted.phrases import CLOSING, EMAIL, USER_ID, canonical_text
from sscbench.agents.scripted.retail import RetailHandlers
from sscbench.agents.scripted.tool_checks import RecordChecks
from sscbench.agents.scripted.transcript import Block, Prepared, Script
from sscbench.agents.scripted.writes import Writes
from sscbench.agents.scripted_facts import money, scalar_texts
from sscbench.agents.scripted_plan import PlanStep
from sscbench.core.agent import AgentTurn, RunContext
from sscbench.core.ledger import LedgerEvent
from sscbench.json_types import JsonObject
from sscbench.study.profiles import Profile, make_profile
from sscbench.world.records import ORDER_WRITES, RESERVATION_WRITES, record_key
from sscbench.world.reward import output_found


class ScriptedAgent(AirlineHandlers, RetailHandlers, Writes, SubjectBinding, Checks, RecordChecks):
    """One run of a behaviour profile (see :mod:`sscbench.agents.scripted`)."""

    def __init__(self, context: RunContext, profile: str | Profile):
        super().__init__(context, profile)
        self._script_gen = self._script()

    async def act(self, ledger: Sequence[LedgerEvent]) -> AgentTurn:
        """The next turn of the script."""
        self._ingest(ledger)
        self._step = len(ledger)
        if self._finished:
            return AgentTurn(content=CLOSING)
        try:
            if not self._started:
                self._started = True
                self._mark_prefix()
                turn = next(self._script_gen)
            else:
                turn = self._script_gen.send(self._result)
        except StopIteration:
            self._finished = True
            return AgentTurn(content=CLOSING)
        self._result = None
        return turn

    def calibration(self) -> JsonObject:
        """Evaluator-only labels of this run's uses, reads, writes and final stances."""
        uses = [finish_use(u, self._writes) for u in self._uses]
        return {
            "profile": self.profile.name,
            "params": self.profile.params(),
            "task_id": self.task.task_id,
            "seed": self.context.seed,
            "repetition": self.context.repetition,
            "uses": [u.label() for u in uses],
            "reads": [dict(r) for r in self._reads],
            "writes": [dict(w) for w in self._writes],
            "final_stance": final_stance(uses),
        }

    def _script(self) -> Script[None]:
        principal = self._trusted_principal()  # a handoff's, trusted without the barrier
        self.user_id = principal if principal is not None else (yield from self._identify())
        yield from self._ensure(("user", self.user_id))
        for step in self.plan.steps:
            if step.index in self._done_steps:
                continue
            if step.kind == "read":
                yield from self._ground_truth_read(step)
            elif step.kind == "transfer":
                outputs = self._outputs_text()
                if outputs:
                    yield from self._say(outputs)
                yield from self._call(step.name, step.kwargs, "transfer")
                return
            else:
                ok = yield from self._write_block(step)
                if not ok:
                    return
        closing = self._total_text()
        outputs = self._outputs_text(closing)
        closing = " ".join(part for part in (closing, outputs, CLOSING) if part)
        yield from self._say(closing)

    def _identify(self) -> Script[str]:
        uid = self.task.user_id
        if uid and any(uid in text for text in self._user_texts):
            return uid
        if uid and ("get_user_details", canonical_text({"user_id": uid})) in self._done_calls:
            return uid
        if self.domain == "retail":
            reply = yield from self._say(
                "I can help with that. To locate your account, could you please provide "
                "your email address?"
            )
            match = EMAIL.search(reply)
            if match:
                obs = yield from self._call(
                    "find_user_id_by_email", {"email": match.group(0)}, "identify"
                )
                found = obs.text.strip()
                if not obs.error and found:
                    return found
            reply = yield from self._say("Could you please provide your user id?")
        else:
            reply = yield from self._say(
                "I can help with that. Could you please provide your user id?"
            )
        if uid and uid in reply:
            return uid
        match = USER_ID.search(reply)
        return match.group(0) if match else uid

    def _ground_truth_read(self, step: PlanStep) -> Script[None]:
        key = record_key(step.name, step.kwargs)
        if key is not None:
            if key in self._last_read and key not in self._dirty:
                return
        elif (step.name, canonical_text(step.kwargs)) in self._done_calls:
            return
        yield from self._call(step.name, step.kwargs, "ground_truth")

    def _total_text(self) -> str:
        """The net amount across several acknowledged changes, if there were several."""
        if len(self._amounts) < 2:
            return ""
        total = round(sum(self._amounts), 2)
        if total > 0:
            return f"Across these changes you pay {money(total)} in total."
        if total < 0:
            return f"Across these changes you get {money(-total)} back in total."
        return "Across these changes the amounts cancel out."

    def _outputs_text(self, also_said: str = "") -> str:
        """Required outputs not yet said that appear as values in received observations."""
        said = [*self._texts, also_said]
        missing = [o for o in self.task.outputs if not output_found(o, said)]
        if not missing:
            return ""
        values: set[str] = set()
        for obs in self._observations:
            data = obs.data
            if data is not None:
                scalar_texts(data, values)
            else:
                values.add(obs.text.strip().lower().replace(",", ""))
        found = [o for o in missing if o.lower().replace(",", "") in values]
        return ("For your reference: " + ", ".join(found) + ".") if found else ""

    def _write_block(self, step: PlanStep) -> Script[bool]:
        """Read, state, confirm, write, report. False when the run should end."""
        if not (yield from self._entitled(step)):
            return False
        decisions = self._decisions[step.index]
        step = self._bind_principal(step)  # a session acting for a handoff's principal
        block = Block(step, decisions)
        self._current_step = step
        kw = step.kwargs
        key = record_key(step.name, kw)
        if step.name in RESERVATION_WRITES and key is not None:
            block.record = yield from self._ensure(key)
            if decisions.consistency_check:
                block.record = yield from self._consistency_check(block.record)
                if block.record is None:
                    return False
        elif step.name in ORDER_WRITES and key is not None:
            block.record = yield from self._ensure(key)
        if key is not None and key[0] in ("order", "reservation") and block.record is not None:
            bound = yield from self._bind_subject(step, key[0], block)
            if bound is None:
                return False
            block.step = step = bound
        owner = step.owner or self.user_id
        if owner:
            block.user = yield from self._ensure(("user", owner))
            if decisions.payment_check and self._payment_ids(block):
                block.earlier_user = block.user
                block.user = yield from self._call("get_user_details", {"user_id": owner}, "check")
        if key is not None and not (yield from self._checked_record(step, key[0], block)):
            return False
        handler = _HANDLERS.get(step.name, ScriptedAgent._h_generic)
        prepared = yield from handler(self, block)
        if prepared is None:
            return True
        arguments, write_uses = prepared
        if not (yield from self._version_holds(block)):
            return False
        if key is not None and not (yield from self._record_is_fresh(step, key[0], block)):
            return False
        yield from self._do_write(block, arguments, write_uses, attempt=1)
        return True

    def _checked_record(self, step: PlanStep, kind: str, block: Block) -> Script[bool]:
        """The profile's schema check of the record the write rests on
        (:mod:`sscbench.agents.scripted.tool_checks`); False when the write is not made."""
        return (yield from self._record_passes_schema(step, kind, block))

    def _h_generic(self, block: Block) -> Script[Prepared]:
        kw = block.step.kwargs
        text = f"I will now run {block.step.name} with {json.dumps(kw)}."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []


_HANDLERS: dict[str, Callable[[ScriptedAgent, Block], Script[Prepared]]] = {
    "update_reservation_flights": ScriptedAgent._h_update_flights,
    "update_reservation_baggages": ScriptedAgent._h_update_baggages,
    "update_reservation_passengers": ScriptedAgent._h_update_passengers,
    "cancel_reservation": ScriptedAgent._h_cancel_reservation,
    "book_reservation": ScriptedAgent._h_book,
    "send_certificate": ScriptedAgent._h_send_certificate,
    "exchange_delivered_order_items": ScriptedAgent._h_swap_items,
    "modify_pending_order_items": ScriptedAgent._h_swap_items,
    "return_delivered_order_items": ScriptedAgent._h_return,
    "cancel_pending_order": ScriptedAgent._h_cancel_order,
    "modify_pending_order_address": ScriptedAgent._h_order_address,
    "modify_pending_order_payment": ScriptedAgent._h_order_payment,
    "modify_user_address": ScriptedAgent._h_user_address,
}


class ScriptedAgentFactory:
    """Builds a fresh :class:`ScriptedAgent` of one profile for each run."""

    def __init__(self, profile: Profile):
        self.profile = profile

    def __call__(self, context: RunContext) -> ScriptedAgent:
        return ScriptedAgent(context, self.profile)

    def __repr__(self) -> str:
        return f"ScriptedAgentFactory({self.profile!r})"


def scripted_agent_factory(profile_name: str, **params: object) -> ScriptedAgentFactory:
    """An :class:`~sscbench.core.agent.AgentFactory` for a profile of :data:`PROFILES`.

    ``params`` override the profile's settings (see :class:`Profile`; ``p`` is an
    alias of ``readback_p``), e.g. ``scripted_agent_factory("random_readback", p=0.3)``.
    """
    return ScriptedAgentFactory(make_profile(profile_name, **params))


__all__ = ["ScriptedAgent", "ScriptedAgentFactory", "scripted_agent_factory"]
