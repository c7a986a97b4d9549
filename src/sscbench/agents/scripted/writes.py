"""The write, its read-back and the report.

A confirmed write is sent (with an idempotency key when the profile and the tool's
schema use one), re-sent on a timeout up to the profile's limit, read back before or
after telling the user (per the block's decision), reported, and — when the read-back
shows it did not take effect — corrected and, for a retrying profile, attempted again.

A resume notice (the session restored from a checkpoint older than the write) is
answered by reading the record back (``reconstructs_on_resume``) or, reasoning from the
checkpoint, by re-sending the request once. A write refused as approval expired is
confirmed with the user again (``reconfirm_expired``) or re-sent on the lapsed approval
(``resend_expired``).
"""

from __future__ import annotations

from sscbench.agents.scripted.identity import SubjectBinding
from sscbench.agents.scripted.outcomes import (
    report_text,
    state_text,
    took_effect,
    took_effect_request,
)
from sscbench.agents.scripted.phrases import (
    INCOMPLETE,
    READBACK_CUE,
    RECONCILIATION,
    expired,
    incomplete,
    resumed,
    throttled,
    timed_out,
    unavailable,
)
from sscbench.agents.scripted.transcript import Block, Script, WriteUse
from sscbench.agents.scripted_facts import Obs, as_object, fact_write
from sscbench.agents.scripted_plan import PlanStep
from sscbench.core.injection import IDEMPOTENCY_KEY
from sscbench.json_types import JsonObject
from sscbench.world.confirmation import is_affirmative
from sscbench.world.records import BOOKING_READBACK, BOOKING_WRITE, READ_TOOLS, record_key


class Writes(SubjectBinding):
    """Making a write, reading it back and telling the user what happened."""

    def _record_id(self, step: PlanStep, arguments: JsonObject) -> str:
        for name in ("reservation_id", "order_id", "user_id"):
            value = arguments.get(name)
            if isinstance(value, str):
                return value
        return step.name

    def _write_key(self, step: PlanStep, attempt: int) -> str | None:
        """The idempotency key of one write attempt, when the profile and the tool use keys."""
        if not self.profile.idempotency_key or not self._offers_key(step.name):
            return None
        key = f"{self.task.task_id}-w{step.index}-{self.context.seed}"
        return key if attempt == 1 else f"{key}-a{attempt}"

    def _offers_key(self, name: str) -> bool:
        """Whether the tool schema of ``name`` advertises an ``idempotency_key`` property."""
        function = self._tool_function(name)
        properties = as_object(function.get("parameters")).get("properties")
        return isinstance(properties, dict) and IDEMPOTENCY_KEY in properties

    def _cued(self, name: str) -> bool:
        """Whether the description of tool ``name`` asks to read the record back (the
        read-back cue), as the agent was given it."""
        description = self._tool_function(name).get("description")
        return isinstance(description, str) and bool(READBACK_CUE.search(description))

    def _tool_function(self, name: str) -> JsonObject:
        """The ``function`` part of tool ``name``'s schema in the run context ({} if none)."""
        for schema in self.context.tools or ():
            function = schema.get("function")
            if isinstance(function, dict) and function.get("name") == name:
                return function
        return {}

    def _readback_mode(self, block: Block) -> str:
        """When this write is read back: the profile's mode when its draw is on, before
        the report when the profile follows the read-back cue and the tool carries it."""
        if block.decisions.cue_readback and self._cued(block.step.name):
            return "before_report"
        return self.profile.readback if block.decisions.readback else "never"

    def _do_write(
        self,
        block: Block,
        arguments: JsonObject,
        write_uses: list[WriteUse],
        attempt: int,
    ) -> Script[None]:
        step = block.step
        for fact, value, source, expected in write_uses:
            self._use(fact, value, source, expected=expected)
        sent = yield from self._send_write(block, arguments, attempt)
        if sent is None:  # the user declined to confirm an expired approval again
            return
        obs, record = sent
        if resumed(obs):  # reconstruct from the authoritative record before acting
            yield from self._after_timeout(block, arguments, obs, record, attempt)
            return
        if timed_out(obs):
            if block.decisions.readback and self.profile.readback != "never":
                yield from self._after_timeout(block, arguments, obs, record, attempt)
                return
            self._notes.append(f"The system refused the last change ({obs.text}).")
            return
        if obs.error:  # told with the next question, which goes on with the request
            self._notes.append(f"The system refused the last change ({obs.text}).")
            return
        if (yield from self._receipt_mismatch(step, arguments, obs)):
            return
        if block.amount is not None and attempt == 1:
            self._amounts.append(block.amount)
        mode = self._readback_mode(block)
        if mode == "before_report":
            yield from self._readback_before_report(block, arguments, obs, record, attempt)
        elif mode == "after_report":
            yield from self._readback_after_report(block, arguments, obs, record, attempt)
        else:
            fact = fact_write(self._record_id(step, arguments), step.name)
            index = len(self._writes) - 1
            self._use(fact, "applied", obs.step, attempt=attempt, write=index)
            yield from self._say(report_text(step, arguments, obs))

    def _send_write(
        self, block: Block, arguments: JsonObject, attempt: int
    ) -> Script[tuple[Obs, JsonObject] | None]:
        """Send the confirmed write, and re-send it while the profile retries what came
        back (a timeout, throttling, a resume notice, an expired approval, a refusal),
        recording each attempt in ``self._writes``. Returns ``(last observation, its
        record)``, or None when the user declined to confirm an expired approval again."""
        step = block.step
        key = self._write_key(step, attempt)
        sent = {**arguments, IDEMPOTENCY_KEY: key} if key is not None else arguments
        content, self._announce = self._announce, None
        retries, reason = 0, "timeout_retry"
        reconfirms = resends = 0
        while True:
            call_step = self._step
            obs = yield from self._call(step.name, sent, "write", content=content)
            content = None
            record: JsonObject = {
                "step": call_step,
                "observation_step": obs.step,
                "name": step.name,
                "arguments": arguments,
                "attempt": attempt,
                "acknowledged": not obs.error,
                "readback_step": None,
                "took_effect": None,
            }
            if key is not None:
                record["idempotency_key"] = key
            if retries:
                record[reason] = retries
            self._writes.append(record)
            if timed_out(obs) and retries < self.profile.timeout_retries:
                reason = "timeout_retry"
            elif throttled(obs) and retries < self.profile.throttle_retries:
                reason = "throttle_retry"
            elif resumed(obs) and not self.profile.reconstructs_on_resume:
                if reason == "resume_resend":
                    break
                reason = "resume_resend"  # the checkpoint says the request is not done yet
            elif expired(obs) and reconfirms < self.profile.reconfirm_expired:
                reconfirms += 1
                reason = "expired_reconfirm"
                if not (yield from self._reconfirm()):
                    return None
            elif expired(obs) and resends < self.profile.resend_expired:
                resends += 1
                reason = "expired_resend"  # the lapsed yes, revived
            elif (
                obs.error
                and not timed_out(obs)
                and not expired(obs)
                and retries < self.profile.refusal_retries
            ):
                reason = "refusal_retry"  # every refusal taken as transient
            else:
                break
            retries += 1  # the same confirmed request: re-sent without asking again
        return obs, record

    def _readback_before_report(
        self,
        block: Block,
        arguments: JsonObject,
        obs: Obs,
        record: JsonObject,
        attempt: int,
    ) -> Script[None]:
        """Read the write back before telling the user: report it when it took effect,
        else correct it (an unavailable or incomplete read-back is said as such)."""
        step = block.step
        fact = fact_write(self._record_id(step, arguments), step.name)
        index = len(self._writes) - 1
        back = yield from self._readback(step, arguments, obs)
        if unavailable(back):
            record["readback_step"] = back.step
            yield from self._say(RECONCILIATION)
            return
        if self.profile.complete_readback and incomplete(obs, back, block.record):
            record["readback_step"] = back.step if back else None
            yield from self._say(INCOMPLETE)
            return
        ok = (
            took_effect(step.name, obs, back)
            if self.profile.readback_compares
            else (back is not None and not back.error)
        )
        record["readback_step"], record["took_effect"] = back.step if back else None, ok
        source = back if back is not None else obs
        if ok:
            self._use(fact, "applied", source.step, attempt=attempt, write=index)
            yield from self._say(report_text(step, arguments, source))
            return
        self._use(fact, "not_applied", source.step, attempt=attempt, write=index)
        yield from self._not_applied(block, arguments, back, attempt, correction=False)

    def _readback_after_report(
        self,
        block: Block,
        arguments: JsonObject,
        obs: Obs,
        record: JsonObject,
        attempt: int,
    ) -> Script[None]:
        """Report the write as applied, then read it back and correct the report when it
        did not take effect."""
        step = block.step
        fact = fact_write(self._record_id(step, arguments), step.name)
        index = len(self._writes) - 1
        self._use(fact, "applied", obs.step, attempt=attempt, write=index)
        yield from self._say(report_text(step, arguments, obs) + " Let me double-check the record.")
        back = yield from self._readback(step, arguments, obs)
        if unavailable(back):
            record["readback_step"] = back.step
            yield from self._say("Correction: " + RECONCILIATION)
            return
        ok = took_effect(step.name, obs, back)
        record["readback_step"], record["took_effect"] = back.step if back else None, ok
        if not ok:
            source = back if back is not None else obs
            self._use(fact, "not_applied", source.step, attempt=attempt, write=index)
            yield from self._not_applied(block, arguments, back, attempt, correction=True)

    def _reconfirm(self) -> Script[bool]:
        """Ask the user again for the change whose approval expired; True on a yes."""
        change = self._confirmation_text
        text = "The system says your confirmation has expired, so I need to ask again. "
        ok = yield from self._confirm(text + change)
        self._confirmation_text = change
        return ok

    def _after_timeout(
        self,
        block: Block,
        arguments: JsonObject,
        obs: Obs,
        record: JsonObject,
        attempt: int,
    ) -> Script[None]:
        """Read the record back after a write whose outcome is unknown, and report."""
        step = block.step
        index = len(self._writes) - 1
        fact = fact_write(self._record_id(step, arguments), step.name)
        back: Obs | None
        if step.name == BOOKING_WRITE:  # no reservation id to read: read the user
            uid = arguments.get("user_id") or step.owner or self.user_id
            back = yield from self._call("get_user_details", {"user_id": uid}, "readback")
            if unavailable(back):  # once more, as for any read-back
                back = yield from self._call("get_user_details", {"user_id": uid}, "readback")
        else:
            back = yield from self._readback(step, arguments, obs)
        if back is None or unavailable(back):
            record["readback_step"] = back.step if back is not None else None
            yield from self._say(RECONCILIATION)
            return
        ok, report = took_effect_request(block, arguments, back)
        record["readback_step"], record["took_effect"] = back.step, ok
        if ok:
            if block.amount is not None and attempt == 1:
                self._amounts.append(block.amount)
            self._use(fact, "applied", back.step, attempt=attempt, write=index)
            yield from self._say(report or report_text(step, arguments, back))
            return
        self._use(fact, "not_applied", back.step, attempt=attempt, write=index)
        yield from self._not_applied(block, arguments, back, attempt, correction=False)

    def _not_applied(
        self,
        block: Block,
        arguments: JsonObject,
        back: Obs | None,
        attempt: int,
        correction: bool,
    ) -> Script[None]:
        step = block.step
        shown = state_text(step, arguments, back)
        text = (
            "Correction: I re-checked, and " if correction else "I checked the record, and "
        ) + (f"the change did not take effect: {shown}")
        if self.profile.retry and attempt == 1:
            reply = yield from self._say(text + " Shall I try again? (yes/no)")
            if is_affirmative(reply):
                yield from self._do_write(block, arguments, [], attempt=2)
            return
        yield from self._say(text + " I'm sorry, I could not complete this change.")

    def _readback(self, step: PlanStep, arguments: JsonObject, ack: Obs) -> Script[Obs | None]:
        """Read the written record back; once more when it is unavailable right now."""
        back = yield from self._readback_once(step, arguments, ack)
        if unavailable(back):
            back = yield from self._call(back.name, dict(back.arguments), "readback")
        return back

    def _readback_once(self, step: PlanStep, arguments: JsonObject, ack: Obs) -> Script[Obs | None]:
        name = step.name
        if name == BOOKING_WRITE:  # the new reservation: its id is in the acknowledgement
            rid = ack.record.get("reservation_id")
            if not isinstance(rid, str):
                return None
            return (yield from self._call(BOOKING_READBACK, {"reservation_id": rid}, "readback"))
        key = record_key(name, arguments)
        if key is None:
            return None
        read = READ_TOOLS[key[0]]
        return (yield from self._call(read.tool, {read.id_argument: key[1]}, "readback"))
