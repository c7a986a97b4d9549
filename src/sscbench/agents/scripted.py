"""Scripted behaviour profiles: deterministic agents that differ in how they treat evidence.

A scripted agent solves a task from its ground truth (τ-bench tasks) or its structured
intent (generated tasks, whose ground truth carries the same calls) through the normal
tool interface, like a careful human agent would:

1. it obtains the user id (asks for it, or for the email in retail, unless it was
   already given) and reads the user;
2. for every ground-truth write it reads the affected record (reservation or order),
   searches flights / looks up products when the change needs them, **states the
   facts it uses** in a message — itinerary and dates, cabin, item options, payment
   methods with their category, amounts — taking every value from the observations
   it received (a faulted value is what it states and uses), asks for confirmation,
   makes the write with the ground-truth arguments (kept flight segments carry the
   dates it read, so a clean run reproduces the ground truth exactly), and reports;
3. it closes with "Is there anything else I can help you with?".

Profiles differ in what they check, and when (see :data:`PROFILES`): reading back a
record after a write before or after telling the user, looking up the product of an
order item, re-checking a payment method's category, re-reading a record whose dates
contradict each other; retrying a write whose request timed out (with or without an
idempotency key) and reading it back, or skipping the confirmation question when the
context says it is no longer required. Random components (e.g. ``random_readback``) draw from a
``random.Random`` seeded with the profile, ``context.seed``, ``context.repetition`` and
the task id, one draw per decision per ground-truth write, fixed before the run, so
the clean and faulted runs of one (case, configuration, repetition) take the same
decisions and a rerun is byte-identical.

Calibration labels (``calibration()``, evaluator-only; measurement never reads them)::

    {"profile": str, "params": {...}, "task_id": str, "seed": int, "repetition": int,
     "uses": [{"step": <assistant event step>, "fact": <key>, "value": <value used>,
               "source_step": <tool event step it came from>, "kind": "use" | "verify",
               "attempt": <write attempt, write facts only>,
               "value_is_injected": bool | None, "relied_on_injected": bool | None}],
     "reads": [{"step", "observation_step", "name", "arguments", "purpose"}],
     "writes": [{"step", "observation_step", "name", "arguments", "attempt",
                 "acknowledged", "readback_step", "took_effect"}],
     "final_stance": {<fact>: "endorses" | "rejects"}}

A write label also has ``"idempotency_key"`` when the call carried one and
``"timeout_retry": k`` on the k-th re-send of a timed-out write (one label per call);
the typed-fault settings appear in ``params`` only when they differ from their defaults.

Fact keys are listed in :mod:`sscbench.agents.scripted_facts`. ``value_is_injected``
compares the used value with the authoritative record before the ground-truth write
the use belongs to (from a private replay of the ground truth on the world's base
data); for a write fact it is True when the agent said "applied" and its read-back
showed the write had not taken effect, and None when it never read back.
``relied_on_injected`` is ``value_is_injected`` for uses and False for verifications.
A write the agent could not confirm (its read-back unavailable, see ``RECONCILIATION``)
gets no write-fact use and ``took_effect`` None.
``final_stance[fact]`` is the agent's final position toward what was delivered to it:
a write fact (first attempt only) is "endorses" when its last statement says
"applied" (what the acknowledgement asserted) and "rejects" when it says
"not_applied"; a value fact is "rejects" when the agent used or checked an injected
value and its last use states a value that is not injected, else "endorses".
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Generator, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

from sscbench.agents.scripted_facts import (
    Obs,
    address_text,
    cabin_text,
    date_contradiction,
    directions,
    fact_cabin,
    fact_flights,
    fact_options,
    fact_payment,
    fact_return_date,
    fact_write,
    item_options,
    money,
    options_text,
    order_item,
    passengers_text,
    payment_category,
    payment_text,
    return_date,
    scalar_texts,
    segment_refs,
    segment_text,
    segments,
    variant,
)
from sscbench.agents.scripted_plan import (
    ORDER_WRITES,
    RESERVATION_WRITES,
    PlanStep,
    record_key,
    task_plan,
)
from sscbench.core.agent import AgentTurn, RunContext
from sscbench.core.injection import IDEMPOTENCY_KEY
from sscbench.core.ledger import ToolCall
from sscbench.world.reward import output_found

Script = Generator[AgentTurn, Any, Any]
ReadbackMode = Literal["before_report", "after_report", "never"]

CLOSING = "Is there anything else I can help you with?"
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_USER_ID = re.compile(r"\b[a-z]+_[a-z]+_\d+\b")
_AFFIRM = re.compile(
    r"\b(yes|yeah|yep|sure|proceed|go ahead|confirm|confirmed|please do|ok|okay|correct)\b"
)
_NEGATE = re.compile(r"^\W*(no|nope|don't|do not|stop|cancel)\b")
_CERTIFICATE = re.compile(r"certificate_\d+")
_TIMEOUT = "error: timeout"  # a write's outcome is unknown (it may have committed)
_UNAVAILABLE = "error: service unavailable"  # a record cannot be read right now
_STALE_POLICY = "confirmation is no longer required"
RECONCILIATION = (
    "I submitted the change, but I could not confirm it: the record is not available "
    "right now. I have flagged it for review."
)
_NO_EXPECTED = object()


@dataclass(frozen=True)
class Profile:
    """A behaviour profile: which checks a scripted agent makes, and how often.

    ``readback`` says when the record is read back after a write (``before_report``:
    before telling the user the outcome; ``after_report``: after telling, correcting
    itself if the record disagrees; ``never``), with probability ``readback_p`` per
    write. ``retry`` re-attempts a write once (after asking) when the read-back shows
    it did not take effect. ``product_lookup_p``, ``payment_check_p`` and
    ``consistency_check_p`` are the per-write probabilities of looking up an order
    item's product before stating its options (trusting the product's variant bound
    by item id), re-reading the user profile before stating a payment method's
    category, and re-reading a reservation whose return date precedes its outbound
    date before using it.

    ``idempotency_key`` attaches a key to each write when the write tool's schema
    advertises an ``idempotency_key`` property (never otherwise), one key per write
    attempt (``<task>-w<plan index>-<seed>``, ``-a2`` for a retry after a read-back),
    reused on every retry of that attempt. ``timeout_retries`` re-sends a write whose
    observation starts with ``Error: timeout`` up to that many times (same arguments,
    same key, without asking the user again). A write still timed out is read back when
    the block's read-back decision is on (success, "did not take effect" or, when the
    record cannot be read, a flag for review); otherwise the agent tells the user the
    system refused the change. ``follows_context_policy`` makes the agent skip its
    confirmation question when the system prompt says confirmation is no longer
    required; otherwise it asks whatever the context says.
    """

    name: str
    description: str = ""
    readback: ReadbackMode = "never"
    readback_p: float = 1.0
    retry: bool = False
    product_lookup_p: float = 0.0
    payment_check_p: float = 0.0
    consistency_check_p: float = 0.0
    idempotency_key: bool = False
    timeout_retries: int = 0
    follows_context_policy: bool = False

    def __post_init__(self) -> None:
        if self.readback not in ("before_report", "after_report", "never"):
            raise ValueError(f"profile {self.name}: unknown readback mode {self.readback!r}")
        for name in ("readback_p", "product_lookup_p", "payment_check_p", "consistency_check_p"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"profile {self.name}: {name} must be a number, got {value!r}")
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"profile {self.name}: {name} must be in [0, 1], got {value}")
        for name in ("idempotency_key", "follows_context_policy"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(
                    f"profile {self.name}: {name} must be true or false, got "
                    f"{getattr(self, name)!r}"
                )
        retries = self.timeout_retries
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(
                f"profile {self.name}: timeout_retries must be an integer >= 0, got {retries!r}"
            )

    def params(self) -> dict[str, Any]:
        """The profile's settings (everything but name and description).

        The typed-fault settings (:data:`_TYPED_DEFAULTS`) appear only when they differ
        from their defaults, so the labels of profiles that do not use them stay as
        they were.
        """
        return {
            k: v
            for k, v in asdict(self).items()
            if k not in ("name", "description")
            and not (k in _TYPED_DEFAULTS and v == _TYPED_DEFAULTS[k])
        }


_TYPED_DEFAULTS: dict[str, Any] = {
    "idempotency_key": False,
    "timeout_retries": 0,
    "follows_context_policy": False,
}


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "trusting",
            "Trusts every observation and states facts straight from what it read; "
            "never reads back, looks up products only to find replacement items.",
        ),
        Profile(
            "readback",
            "Reads the record back after each write before telling the user the outcome; "
            "says the change did not take effect when the record disagrees.",
            readback="before_report",
        ),
        Profile(
            "tell_then_readback",
            "Tells the user the outcome first, then reads the record back and corrects "
            "itself when the record disagrees.",
            readback="after_report",
        ),
        Profile("never_readback", "Never reads a record back after a write.", readback="never"),
        Profile(
            "product_lookup",
            "Looks up the product of each order item before stating or using its options "
            "and trusts the product's variant (bound by item id) over the order.",
            product_lookup_p=1.0,
        ),
        Profile(
            "payment_check",
            "Re-reads the user profile to check a payment method's category right before "
            "stating or using it.",
            payment_check_p=1.0,
        ),
        Profile(
            "consistency_check",
            "Notices a round trip whose return date precedes its outbound date and "
            "re-reads the reservation before using the affected value.",
            consistency_check_p=1.0,
        ),
        Profile(
            "random_readback",
            "Reads back before reporting with probability p (param, default 0.5), drawn "
            "from its seeded generator.",
            readback="before_report",
            readback_p=0.5,
        ),
        Profile(
            "idempotent_readback",
            "Carries an idempotency key through retries of a timed-out write and reads the "
            "record back before reporting; flags an unconfirmable change for review; asks "
            "for confirmation whatever the context says.",
            readback="before_report",
            idempotency_key=True,
            timeout_retries=2,
        ),
        Profile(
            "naive_retry",
            "Retries a timed-out write without a key, never reads back, and follows the "
            "policy text in its context.",
            readback="never",
            timeout_retries=2,
            follows_context_policy=True,
        ),
    )
}

_ALIASES = {"p": "readback_p"}


def make_profile(profile: str | Profile, **params: Any) -> Profile:
    """A profile by name (or as given) with ``params`` overriding its settings.

    ``p`` is an alias of ``readback_p``. Unknown names and parameters raise errors
    naming the known ones.
    """
    if isinstance(profile, Profile):
        base = profile
    else:
        if profile not in PROFILES:
            raise KeyError(f"unknown scripted profile {profile!r}; known: {sorted(PROFILES)}")
        base = PROFILES[profile]
    allowed = {f.name for f in fields(Profile)} - {"name", "description"}
    updates: dict[str, Any] = {}
    for key, value in params.items():
        name = _ALIASES.get(key, key)
        if name not in allowed:
            raise ValueError(
                f"unknown parameter {key!r} for scripted profile {base.name!r}; "
                f"known: {sorted(allowed | set(_ALIASES))}"
            )
        updates[name] = value
    return replace(base, **updates) if updates else base


@dataclass(frozen=True)
class _Decisions:
    readback: bool
    product_lookup: bool
    payment_check: bool
    consistency_check: bool


@dataclass
class _Block:
    """What one write block has read so far."""

    step: PlanStep
    decisions: _Decisions
    record: Obs | None = None
    user: Obs | None = None
    products: dict[str, Obs] | None = None
    amount: float | None = None  # what the user pays (+) or gets back (-) for this write
    earlier_user: Obs | None = None  # the user read a payment check went past


def _affirmative(reply: str) -> bool:
    lower = reply.lower()
    return bool(_AFFIRM.search(lower)) and not _NEGATE.search(lower)


def _canonical(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True)


class ScriptedAgent:
    """One run of a behaviour profile (see the module docstring)."""

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
        self._decisions: dict[int, _Decisions] = {}
        for step in self.plan.steps:
            draws = [rng.random() for _ in range(4)]
            if step.kind == "write":
                self._decisions[step.index] = _Decisions(
                    readback=p.readback != "never" and draws[0] < p.readback_p,
                    product_lookup=draws[1] < p.product_lookup_p,
                    payment_check=draws[2] < p.payment_check_p,
                    consistency_check=draws[3] < p.consistency_check_p,
                )
        self._skip_confirmation = (
            p.follows_context_policy and _STALE_POLICY in (context.system_prompt or "").lower()
        )
        self._announce: str | None = None  # said with the write when confirmation is skipped
        # ledger state, updated incrementally
        self._seen = 0
        self._calls: dict[str, tuple[str, dict[str, Any]]] = {}
        self._observations: list[Obs] = []
        self._last_read: dict[tuple[str, str], Obs] = {}
        self._dirty: set[tuple[str, str]] = set()
        self._done_calls: set[tuple[str, str]] = set()
        self._texts: list[str] = []
        self._user_texts: list[str] = []
        self._prior: list[tuple[str, str, bool]] = []  # calls made before this agent started
        # the script
        self._script_gen = self._script()
        self._started = False
        self._finished = False
        self._pending_call: str | None = None
        self._result: Any = None
        self._step = 0
        self._call_count = 0
        self._done_steps: set[int] = set()
        self._current_step: PlanStep | None = None
        self._notes: list[str] = []  # said with the next question (e.g. a failed write)
        self._amounts: list[float] = []  # amounts of acknowledged writes, + paid, - refunded
        # labels
        self._uses: list[dict[str, Any]] = []
        self._pending_uses: list[dict[str, Any]] = []
        self._reads: list[dict[str, Any]] = []
        self._writes: list[dict[str, Any]] = []
        self._read_labels: dict[str, dict[str, Any]] = {}

    # ---- Agent protocol ------------------------------------------------------------
    async def act(self, ledger: Sequence[Any]) -> AgentTurn:
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

    def calibration(self) -> dict[str, Any]:
        """Evaluator-only labels of this run's uses, reads, writes and final stances."""
        uses = [self._finish_use(u) for u in self._uses]
        return {
            "profile": self.profile.name,
            "params": self.profile.params(),
            "task_id": self.task.task_id,
            "seed": self.context.seed,
            "repetition": self.context.repetition,
            "uses": uses,
            "reads": [dict(r) for r in self._reads],
            "writes": [dict(w) for w in self._writes],
            "final_stance": _final_stance(uses),
        }

    # ---- ledger --------------------------------------------------------------------
    def _ingest(self, ledger: Sequence[Any]) -> None:
        for event in ledger[self._seen :]:
            kind = event.type
            if kind == "tool":
                name, arguments = self._calls.get(event.tool_call_id, (event.name, {}))
                obs = Obs(event.step, event.tool_call_id, name, arguments, event.content)
                self._observations.append(obs)
                label = self._read_labels.pop(event.tool_call_id, None)
                if label is not None:
                    label["observation_step"] = event.step
                canonical = _canonical(arguments)
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
            elif kind == "assistant":
                for call in event.tool_calls:
                    try:
                        arguments = call.parsed_arguments()
                    except ValueError:
                        arguments = {}
                    if not isinstance(arguments, dict):
                        arguments = {}
                    elif IDEMPOTENCY_KEY in arguments:  # transport detail, not the request
                        arguments = {k: v for k, v in arguments.items() if k != IDEMPOTENCY_KEY}
                    self._calls[call.id] = (call.name, arguments)
                if not event.tool_calls:
                    self._texts.append(event.content or "")
            elif kind == "user":
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
            wanted = (step.name, _canonical(step.kwargs))
            for i, (name, args, error) in enumerate(prior):
                if (name, args) == wanted and not error:
                    self._done_steps.add(step.index)
                    del prior[i]
                    break

    # ---- turn builders (generators) ------------------------------------------------
    def _flush_uses(self) -> None:
        for use in self._pending_uses:
            use["step"] = self._step
            self._uses.append(use)
        self._pending_uses = []

    def _say(self, text: str) -> Script:
        """Send a message to the user; returns the user's reply."""
        if self._notes and "?" in text:  # a question keeps the conversation going
            text = " ".join(self._notes) + " " + text
            self._notes = []
        self._pending_call = None
        self._flush_uses()
        reply = yield AgentTurn(content=text)
        return reply if isinstance(reply, str) else ""

    def _call(
        self, name: str, arguments: dict[str, Any], purpose: str, content: str | None = None
    ) -> Script:
        """Call one tool; returns its observation."""
        self._call_count += 1
        call_id = f"call_{self._call_count}"
        self._pending_call = call_id
        self._flush_uses()
        if purpose != "write":
            label = {
                "step": self._step,
                "observation_step": None,
                "name": name,
                "arguments": arguments,
                "purpose": purpose,
            }
            self._reads.append(label)
            self._read_labels[call_id] = label
        text = json.dumps(arguments)
        obs = yield AgentTurn(
            content=content, tool_calls=(ToolCall(id=call_id, name=name, arguments=text),)
        )
        self._pending_call = None
        if not isinstance(obs, Obs):  # the env did not answer (should not happen)
            obs = Obs(self._step + 1, call_id, name, arguments, "Error: no observation")
        return obs

    def _ensure(self, key: tuple[str, str], purpose: str = "lookup") -> Script:
        """The latest read of a record, reading it when unread or written since."""
        obs = self._last_read.get(key)
        if obs is not None and key not in self._dirty:
            return obs
        tool = {
            "reservation": ("get_reservation_details", "reservation_id"),
            "order": ("get_order_details", "order_id"),
            "user": ("get_user_details", "user_id"),
            "product": ("get_product_details", "product_id"),
        }[key[0]]
        return (yield from self._call(tool[0], {tool[1]: key[1]}, purpose))

    def _use(
        self,
        fact: str,
        value: Any,
        source_step: int | None,
        *,
        kind: str = "use",
        expected: Any = _NO_EXPECTED,
        attempt: int | None = None,
        write: int | None = None,
    ) -> None:
        """Record a use that the next emitted turn makes."""
        use: dict[str, Any] = {
            "step": None,
            "fact": fact,
            "value": value,
            "source_step": source_step,
            "kind": kind,
        }
        if attempt is not None:
            use["attempt"] = attempt
        use["_expected"] = expected
        use["_write"] = write
        self._pending_uses.append(use)

    # ---- the script ----------------------------------------------------------------
    def _script(self) -> Script:
        self.user_id = yield from self._identify()
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

    def _identify(self) -> Script:
        uid = self.task.user_id
        if uid and any(uid in text for text in self._user_texts):
            return uid
        if uid and ("get_user_details", _canonical({"user_id": uid})) in self._done_calls:
            return uid
        if self.domain == "retail":
            reply = yield from self._say(
                "I can help with that. To locate your account, could you please provide "
                "your email address?"
            )
            match = _EMAIL.search(reply)
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
        match = _USER_ID.search(reply)
        return match.group(0) if match else uid

    def _ground_truth_read(self, step: PlanStep) -> Script:
        key = record_key(step.name, step.kwargs)
        if key is not None:
            if key in self._last_read and key not in self._dirty:
                return
        elif (step.name, _canonical(step.kwargs)) in self._done_calls:
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

    # ---- one ground-truth write ----------------------------------------------------
    def _write_block(self, step: PlanStep) -> Script:
        """Read, state, confirm, write, report. False when the run should end."""
        decisions = self._decisions[step.index]
        block = _Block(step, decisions)
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
        owner = step.owner or self.user_id
        if owner:
            block.user = yield from self._ensure(("user", owner))
            if decisions.payment_check and self._payment_ids(block):
                block.earlier_user = block.user
                block.user = yield from self._call("get_user_details", {"user_id": owner}, "check")
        handler = _HANDLERS.get(step.name, ScriptedAgent._h_generic)
        prepared = yield from handler(self, block)
        if prepared is None:
            return True
        arguments, write_uses = prepared
        yield from self._do_write(block, arguments, write_uses, attempt=1)
        return True

    def _payment_ids(self, block: _Block) -> list[str]:
        kw = block.step.kwargs
        ids: list[str] = []
        for name in ("payment_id", "payment_method_id"):
            if isinstance(kw.get(name), str):
                ids.append(kw[name])
        for method in kw.get("payment_methods") or ():
            if isinstance(method, dict) and isinstance(method.get("payment_id"), str):
                ids.append(method["payment_id"])
        if block.step.name in ("cancel_reservation", "cancel_pending_order") and block.record:
            for pay in block.record.record.get("payment_history") or ():
                if isinstance(pay, dict):
                    pid = pay.get("payment_id") or pay.get("payment_method_id")
                    if isinstance(pid, str):
                        ids.append(pid)
        if block.step.name == "modify_pending_order_payment" and block.record:
            history = block.record.record.get("payment_history") or []
            if history and isinstance(history[0], dict):
                pid = history[0].get("payment_method_id")
                if isinstance(pid, str):
                    ids.append(pid)
        return ids

    def _consistency_check(self, obs: Obs) -> Script:
        """Re-read a reservation whose return date precedes its outbound date."""
        contradiction = date_contradiction(obs.record)
        if contradiction is None:
            return obs
        rid = obs.arguments.get("reservation_id", "")
        bad, outbound = contradiction
        before = self._before_record("reservation")
        self._use(fact_return_date(rid), bad, obs.step, kind="verify", expected=return_date(before))
        again = yield from self._call(
            "get_reservation_details",
            {"reservation_id": rid},
            "recheck",
            content=(
                f"Reservation {rid} shows a return date of {bad}, before its outbound date "
                f"{outbound}, which cannot be right for a round trip. Let me re-check it."
            ),
        )
        still = date_contradiction(again.record)
        if still is None:
            return again
        self._use(
            fact_return_date(rid), still[0], again.step, kind="verify", expected=return_date(before)
        )
        yield from self._say(
            f"The record of reservation {rid} still shows a return date ({still[0]}) before "
            f"its outbound date ({still[1]}). I cannot safely change it, so I am transferring "
            "you to a human agent."
        )
        yield from self._call(
            "transfer_to_human_agents",
            {"summary": f"Reservation {rid} has inconsistent dates; the user needs help."},
            "transfer",
        )
        return None

    def _before_record(self, kind: str) -> Any:
        """The authoritative record of ``kind`` before the current ground-truth write."""
        step = self._current_step
        return step.before.get(kind) if step is not None else None

    # ---- stating facts -------------------------------------------------------------
    def _payment_clause(self, block: _Block, pid: str) -> str:
        """``pid (category)``, with a use of the category (and a check note if it changed)."""
        user = block.user.record if block.user is not None else {}
        category = payment_category(user, pid)
        expected = payment_category(block.step.before.get("user"), pid)
        note = ""
        earlier = block.earlier_user
        if earlier is not None and category is not None:
            previous = payment_category(earlier.record, pid)
            if previous is not None and previous != category:
                self._use(
                    fact_payment(pid), previous, earlier.step, kind="verify", expected=expected
                )
                note = (
                    f"; your profile showed it as {previous.replace('_', ' ')} before, and I "
                    "am going by the latest record"
                )
        if category is not None and block.user is not None:
            self._use(fact_payment(pid), category, block.user.step, expected=expected)
            return f"{pid} ({category.replace('_', ' ')}{note})"
        return payment_text(pid, category)

    def _reservation_summary(self, block: _Block) -> str:
        obs = block.record
        rid = block.step.kwargs.get("reservation_id", "")
        if obs is None or obs.error or not obs.record:
            return f"I could not read reservation {rid}."
        res = obs.record
        before = block.step.before.get("reservation") or {}
        out, back = directions(res)
        passengers = res.get("passengers") or []
        trip = "round trip" if res.get("flight_type") == "round_trip" else "one-way trip"
        text = (
            f"Reservation {rid} is a {trip} from {res.get('origin')} to "
            f"{res.get('destination')} in {cabin_text(res.get('cabin'))} for "
            f"{len(passengers)} passenger{'s' if len(passengers) != 1 else ''}. "
            f"Outbound: {', '.join(segment_text(f) for f in out)}."
        )
        self._use(
            fact_flights(rid),
            segment_refs(segments(res)),
            obs.step,
            expected=segment_refs(segments(before)),
        )
        self._use(fact_cabin(rid), res.get("cabin"), obs.step, expected=before.get("cabin"))
        if back:
            text += (
                f" Return: {', '.join(segment_text(f) for f in back)}; the return date is "
                f"{back[0].get('date')}."
            )
            self._use(
                fact_return_date(rid), return_date(res), obs.step, expected=return_date(before)
            )
        return text

    def _lookup_products(self, block: _Block, item_ids: list[str]) -> Script:
        """Product records of the given items (read when not read before)."""
        products = block.products if block.products is not None else {}
        order = block.record.record if block.record is not None else {}
        for iid in item_ids:
            item = order_item(order, iid)
            pid = item.get("product_id") if item else None
            if isinstance(pid, str) and pid not in products:
                products[pid] = yield from self._ensure(("product", pid))
        block.products = products
        return products

    def _items_clause(self, block: _Block, item_ids: list[str]) -> str:
        """Each item's name, id, options and price, with a use of its options."""
        obs = block.record
        if obs is None:
            return ", ".join(item_ids)
        order = obs.record
        oid = block.step.kwargs.get("order_id", "")
        before = block.step.before.get("order")
        parts: list[str] = []
        seen: set[str] = set()
        for iid in item_ids:
            if iid in seen:
                continue
            seen.add(iid)
            item = order_item(order, iid)
            if item is None:
                parts.append(f"item {iid}")
                continue
            options, source, note = item.get("options"), obs.step, ""
            expected = item_options(before, iid)
            products = block.products or {}
            product = products.get(item.get("product_id"))
            if product is not None and block.decisions.product_lookup:
                bound = variant(product.record, iid)
                if bound is not None and isinstance(bound.get("options"), dict):
                    if bound["options"] != options:
                        self._use(
                            fact_options(oid, iid),
                            options,
                            obs.step,
                            kind="verify",
                            expected=expected,
                        )
                        note = (
                            f" (the order lists {options_text(options)}, but the product "
                            f"catalog lists item {iid} as {options_text(bound['options'])}; "
                            "I am going by the catalog)"
                        )
                    options, source = bound["options"], product.step
            self._use(fact_options(oid, iid), options, source, expected=expected)
            parts.append(
                f"{item.get('name')} (item {iid}: {options_text(options)}; "
                f"{money(item.get('price'))}){note}"
            )
        return "; ".join(parts)

    def _confirm(self, text: str) -> Script:
        if self._skip_confirmation:  # the context says confirmation is no longer required
            self._announce = text + " I am making this change now."
            return True
        reply = yield from self._say(text + " Shall I proceed? (yes/no)")
        if _affirmative(reply):
            return True
        reply = yield from self._say(
            "Just to be sure: do you want me to make this change? (yes/no)"
        )
        if _affirmative(reply):
            return True
        yield from self._say("Understood, I will not make this change.")
        return False

    # ---- handlers: state facts, confirm, return (arguments, uses at the write) -----
    def _h_update_flights(self, block: _Block) -> Script:
        kw = block.step.kwargs
        rid = kw.get("reservation_id", "")
        res = block.record.record if block.record is not None else {}
        before = block.step.before.get("reservation") or {}
        observed, previous = segments(res), segments(before)
        cabin = kw.get("cabin")
        same_cabin = cabin == res.get("cabin")
        flights_table = self.world.base.tables.get("flights", {})
        used: list[dict[str, Any]] = []
        kept_index: list[int | None] = []
        taken: set[int] = set()
        for seg in kw.get("flights") or []:
            j = next(
                (
                    i
                    for i, old in enumerate(previous)
                    if i not in taken
                    and old.get("flight_number") == seg.get("flight_number")
                    and old.get("date") == seg.get("date")
                ),
                None,
            )
            if (
                j is not None
                and j < len(observed)
                and observed[j].get("flight_number") == seg.get("flight_number")
            ):
                taken.add(j)
                used.append({**seg, "date": observed[j].get("date")})
                kept_index.append(j)
            else:
                used.append(dict(seg))
                kept_index.append(None)

        def endpoints(i: int) -> tuple[Any, Any]:
            j = kept_index[i]
            if j is not None:
                return observed[j].get("origin"), observed[j].get("destination")
            flight = flights_table.get(used[i].get("flight_number")) or {}
            return flight.get("origin"), flight.get("destination")

        # split the new itinerary into directions to find a kept return segment
        first_return: int | None = None
        if res.get("flight_type") == "round_trip":
            for i in range(len(used)):
                if endpoints(i)[1] == res.get("destination"):
                    first_return = i + 1 if i + 1 < len(used) else None
                    break
        summary = self._reservation_summary(block)
        prices: dict[int, Any] = {}
        to_search = [i for i in range(len(used)) if not (kept_index[i] is not None and same_cabin)]
        if to_search:
            yield from self._say(summary + " Let me look up the flights for the change.")
            summary = ""
            searched: dict[tuple[Any, Any, Any], Obs] = {}
            for i in to_search:
                origin, destination = endpoints(i)
                date = used[i].get("date")
                where = (origin, destination, date)
                if where not in searched:
                    if kept_index[i] is not None:  # the search date comes from the record
                        self._use(
                            fact_flights(rid),
                            [segment_refs([used[i]])[0]],
                            block.record.step if block.record else None,
                            expected=segment_refs([kw["flights"][i]]),
                        )
                        if i == first_return:
                            self._use(
                                fact_return_date(rid),
                                date,
                                block.record.step if block.record else None,
                                expected=kw["flights"][i].get("date"),
                            )
                    searched[where] = yield from self._call(
                        "search_direct_flight",
                        {"origin": origin, "destination": destination, "date": date},
                        "lookup",
                    )
                found = searched[where].data
                for entry in found if isinstance(found, list) else ():
                    if isinstance(entry, dict) and entry.get("flight_number") == used[i].get(
                        "flight_number"
                    ):
                        prices[i] = (entry.get("prices") or {}).get(cabin)
        new_total: float | None = 0.0
        for i in range(len(used)):
            j = kept_index[i]
            price = observed[j].get("price") if j is not None and same_cabin else prices.get(i)
            if not isinstance(price, (int, float)) or new_total is None:
                new_total = None
            else:
                new_total += price
        old_total = sum(
            f.get("price", 0) for f in observed if isinstance(f.get("price"), (int, float))
        )
        pax = len(res.get("passengers") or []) or 1
        pid = kw.get("payment_id", "")
        payment = self._payment_clause(block, pid)
        parts = []
        for i, seg in enumerate(used):
            origin, destination = endpoints(i)
            mark = " (unchanged)" if kept_index[i] is not None else ""
            parts.append(segment_text({**seg, "origin": origin, "destination": destination}) + mark)
        text = (
            (summary + " " if summary else "")
            + f"I will change reservation {rid} to these flights in {cabin_text(cabin)}: "
            + ", ".join(parts)
            + "."
        )
        kept = [i for i in range(len(used)) if kept_index[i] is not None]
        if kept:
            self._use(
                fact_flights(rid),
                segment_refs(used),
                block.record.step if block.record else None,
                expected=segment_refs(kw.get("flights") or []),
            )
        if first_return is not None and kept_index[first_return] is not None:
            text += f" The return date stays {used[first_return].get('date')}."
            self._use(
                fact_return_date(rid),
                used[first_return].get("date"),
                block.record.step if block.record else None,
                expected=kw["flights"][first_return].get("date"),
            )
        if new_total is not None:
            diff = round((new_total - old_total) * pax, 2)
            block.amount = diff
            if diff > 0:
                text += f" The fare difference is {money(diff)} in total for {pax} passenger(s), charged to {payment}."
            elif diff < 0:
                text += f" The fare difference is {money(-diff)} in total for {pax} passenger(s), refunded to {payment}."
            else:
                text += f" There is no fare difference; the payment method on file is {payment}."
        else:
            text += f" Any fare difference will go to {payment}."
        if not (yield from self._confirm(text)):
            return None
        arguments = {
            "reservation_id": rid,
            "cabin": cabin,
            "flights": used,
            "payment_id": pid,
        }
        write_uses = []
        if kept:
            write_uses.append(
                (
                    fact_flights(rid),
                    segment_refs([used[i] for i in kept]),
                    block.record.step if block.record else None,
                    segment_refs([kw["flights"][i] for i in kept]),
                )
            )
        if first_return is not None and kept_index[first_return] is not None:
            write_uses.append(
                (
                    fact_return_date(rid),
                    used[first_return].get("date"),
                    block.record.step if block.record else None,
                    kw["flights"][first_return].get("date"),
                )
            )
        return arguments, write_uses

    def _h_update_baggages(self, block: _Block) -> Script:
        kw = block.step.kwargs
        res = block.record.record if block.record is not None else {}
        summary = self._reservation_summary(block)
        old_total, old_paid = res.get("total_baggages"), res.get("nonfree_baggages")
        total, paid = kw.get("total_baggages"), kw.get("nonfree_baggages")
        fee = 50 * max(0, (paid or 0) - (old_paid if isinstance(old_paid, int) else 0))
        block.amount = fee
        payment = self._payment_clause(block, kw.get("payment_id", ""))
        text = (
            f"{summary} It has {old_total} checked bags now ({old_paid} paid). I will set it "
            f"to {total} checked bags ({paid} paid); the fee is {money(fee)}, charged to {payment}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_update_passengers(self, block: _Block) -> Script:
        kw = block.step.kwargs
        summary = self._reservation_summary(block)
        text = f"{summary} I will set the passengers to: {passengers_text(kw.get('passengers'))}."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_cancel_reservation(self, block: _Block) -> Script:
        kw = block.step.kwargs
        res = block.record.record if block.record is not None else {}
        summary = self._reservation_summary(block)
        refunds = []
        for pay in res.get("payment_history") or []:
            if isinstance(pay, dict) and isinstance(pay.get("payment_id"), str):
                refunds.append(
                    f"{money(pay.get('amount'))} to {self._payment_clause(block, pay['payment_id'])}"
                )
        text = f"{summary} I will cancel reservation {kw.get('reservation_id')}."
        if refunds:
            text += " Refunds: " + "; ".join(refunds) + "."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_book(self, block: _Block) -> Script:
        kw = block.step.kwargs
        cabin = kw.get("cabin")
        flights_table = self.world.base.tables.get("flights", {})
        prices: list[Any] = []
        searched: dict[tuple[Any, Any, Any], Obs] = {}
        for seg in kw.get("flights") or []:
            flight = flights_table.get(seg.get("flight_number")) or {}
            where = (flight.get("origin"), flight.get("destination"), seg.get("date"))
            if where not in searched:
                searched[where] = yield from self._call(
                    "search_direct_flight",
                    {"origin": where[0], "destination": where[1], "date": where[2]},
                    "lookup",
                )
            price = None
            found = searched[where].data
            for entry in found if isinstance(found, list) else ():
                if isinstance(entry, dict) and entry.get("flight_number") == seg.get(
                    "flight_number"
                ):
                    price = (entry.get("prices") or {}).get(cabin)
            prices.append(price)
        passengers = kw.get("passengers") or []
        pax = len(passengers)
        paid = kw.get("nonfree_baggages") or 0
        insurance = kw.get("insurance")
        trip = "round trip" if kw.get("flight_type") == "round_trip" else "one-way trip"
        legs = ", ".join(
            f"{seg.get('flight_number')} on {seg.get('date')}"
            + (f" ({money(price)} per passenger)" if price is not None else "")
            for seg, price in zip(kw.get("flights") or [], prices, strict=False)
        )
        text = (
            f"I will book a {trip} from {kw.get('origin')} to {kw.get('destination')} in "
            f"{cabin_text(cabin)} for {passengers_text(passengers)}. Flights: {legs}. "
            f"Checked bags: {kw.get('total_baggages')} ({paid} paid, {money(50 * paid)}). "
            f"Travel insurance: {insurance}"
            + (f" ({money(30 * pax)})" if insurance == "yes" else "")
            + "."
        )
        if all(isinstance(p, (int, float)) for p in prices):
            total = sum(prices) * pax + 50 * paid + (30 * pax if insurance == "yes" else 0)
            text += f" The total is {money(total)}."
        pays = [
            f"{money(m.get('amount'))} from {self._payment_clause(block, m.get('payment_id', ''))}"
            for m in kw.get("payment_methods") or []
            if isinstance(m, dict)
        ]
        if pays:
            text += " Payment: " + "; ".join(pays) + "."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_send_certificate(self, block: _Block) -> Script:
        kw = block.step.kwargs
        text = f"I can add a travel certificate of {money(kw.get('amount'))} to your account."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_swap_items(self, block: _Block) -> Script:
        kw = block.step.kwargs
        oid = kw.get("order_id", "")
        order = block.record.record if block.record is not None else {}
        item_ids = [i for i in kw.get("item_ids") or [] if isinstance(i, str)]
        new_ids = [i for i in kw.get("new_item_ids") or [] if isinstance(i, str)]
        if block.decisions.product_lookup:
            yield from self._lookup_products(block, item_ids)
        facts = (
            f"Order {oid} is {order.get('status')} and has: {self._items_clause(block, item_ids)}."
        )
        missing = [
            iid
            for iid in item_ids
            if (order_item(order, iid) or {}).get("product_id") not in (block.products or {})
        ]
        if missing:
            yield from self._say(facts + " Let me look up the replacement options.")
            facts = ""
            yield from self._lookup_products(block, missing)
        pairs, difference, known = [], 0.0, True
        for iid, nid in zip(item_ids, new_ids, strict=False):
            item = order_item(order, iid) or {}
            product = (block.products or {}).get(item.get("product_id"))
            bound = variant(product.record, nid) if product is not None else None
            if bound is None or not isinstance(bound.get("price"), (int, float)):
                known = False
                pairs.append(f"item {iid} → item {nid}")
                continue
            if isinstance(item.get("price"), (int, float)):
                difference += bound["price"] - item["price"]
            else:
                known = False
            pairs.append(
                f"{item.get('name')} item {iid} → item {nid} ({options_text(bound.get('options'))}; "
                f"{money(bound.get('price'))})"
            )
        verb = "exchange" if block.step.name == "exchange_delivered_order_items" else "change"
        text = (facts + " " if facts else "") + f"I will {verb}: " + "; ".join(pairs) + "."
        if not facts:
            text += f" The current items: {self._items_clause(block, item_ids)}."
        payment = self._payment_clause(block, kw.get("payment_method_id", ""))
        if known:
            difference = round(difference, 2)
            block.amount = difference
            if difference > 0:
                text += f" You pay a price difference of {money(difference)} with {payment}."
            elif difference < 0:
                text += f" You get {money(-difference)} back to {payment}."
            else:
                text += f" There is no price difference; the payment method is {payment}."
        else:
            text += f" Any price difference goes to {payment}."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_return(self, block: _Block) -> Script:
        kw = block.step.kwargs
        oid = kw.get("order_id", "")
        order = block.record.record if block.record is not None else {}
        item_ids = [i for i in kw.get("item_ids") or [] if isinstance(i, str)]
        if block.decisions.product_lookup:
            yield from self._lookup_products(block, item_ids)
        refund, used = 0.0, set()
        items = order.get("items") or []
        for iid in item_ids:
            for k, item in enumerate(items):
                if k not in used and isinstance(item, dict) and item.get("item_id") == iid:
                    used.add(k)
                    if isinstance(item.get("price"), (int, float)):
                        refund += item["price"]
                    break
        block.amount = -round(refund, 2)
        payment = self._payment_clause(block, kw.get("payment_method_id", ""))
        text = (
            f"I will return from order {oid}: {self._items_clause(block, item_ids)}. The refund "
            f"of {money(round(refund, 2))} goes to {payment}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_cancel_order(self, block: _Block) -> Script:
        kw = block.step.kwargs
        oid = kw.get("order_id", "")
        order = block.record.record if block.record is not None else {}
        item_ids = [
            i["item_id"]
            for i in order.get("items") or []
            if isinstance(i, dict) and isinstance(i.get("item_id"), str)
        ]
        if block.decisions.product_lookup:
            yield from self._lookup_products(block, item_ids)
        refunds = []
        history = [p for p in order.get("payment_history") or [] if isinstance(p, dict)]
        amounts = [p.get("amount") for p in history if p.get("transaction_type") != "refund"]
        if all(isinstance(a, (int, float)) for a in amounts):
            block.amount = -round(sum(amounts), 2)
        for pay in history:
            if isinstance(pay.get("payment_method_id"), str):
                refunds.append(
                    f"{money(pay.get('amount'))} to "
                    f"{self._payment_clause(block, pay['payment_method_id'])}"
                )
        text = (
            f"I will cancel order {oid} (reason: {kw.get('reason')}). It contains: "
            f"{self._items_clause(block, item_ids)}."
        )
        if refunds:
            text += " Refund: " + "; ".join(refunds) + "."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_order_address(self, block: _Block) -> Script:
        kw = block.step.kwargs
        order = block.record.record if block.record is not None else {}
        text = (
            f"Order {kw.get('order_id')} currently ships to {address_text(order.get('address'))}. "
            f"I will change its shipping address to {address_text(kw)}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_user_address(self, block: _Block) -> Script:
        kw = block.step.kwargs
        user = block.user.record if block.user is not None else {}
        text = (
            f"Your default address is {address_text(user.get('address'))}. I will change it "
            f"to {address_text(kw)}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_order_payment(self, block: _Block) -> Script:
        kw = block.step.kwargs
        order = block.record.record if block.record is not None else {}
        history = order.get("payment_history") or []
        current = history[0] if history and isinstance(history[0], dict) else {}
        old = current.get("payment_method_id")
        text = f"Order {kw.get('order_id')} ({money(current.get('amount'))})"
        if isinstance(old, str):
            text += f" is paid with {self._payment_clause(block, old)}."
        else:
            text += "."
        text += (
            f" I will switch its payment to "
            f"{self._payment_clause(block, kw.get('payment_method_id', ''))}."
        )
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    def _h_generic(self, block: _Block) -> Script:
        kw = block.step.kwargs
        text = f"I will now run {block.step.name} with {json.dumps(kw)}."
        if not (yield from self._confirm(text)):
            return None
        return dict(kw), []

    # ---- the write, its read-back and the report -----------------------------------
    def _record_id(self, step: PlanStep, arguments: dict[str, Any]) -> str:
        for name in ("reservation_id", "order_id", "user_id"):
            if isinstance(arguments.get(name), str):
                return arguments[name]
        return step.name

    def _write_key(self, step: PlanStep, attempt: int) -> str | None:
        """The idempotency key of one write attempt, when the profile and the tool use keys."""
        if not self.profile.idempotency_key or not self._offers_key(step.name):
            return None
        key = f"{self.task.task_id}-w{step.index}-{self.context.seed}"
        return key if attempt == 1 else f"{key}-a{attempt}"

    def _offers_key(self, name: str) -> bool:
        """Whether the tool schema of ``name`` advertises an ``idempotency_key`` property."""
        for schema in self.context.tools or ():
            function = schema.get("function") if isinstance(schema, dict) else None
            if isinstance(function, dict) and function.get("name") == name:
                properties = (function.get("parameters") or {}).get("properties") or {}
                return IDEMPOTENCY_KEY in properties
        return False

    def _do_write(
        self,
        block: _Block,
        arguments: dict[str, Any],
        write_uses: list[tuple[str, Any, int | None, Any]],
        attempt: int,
    ) -> Script:
        step = block.step
        for fact, value, source, expected in write_uses:
            self._use(fact, value, source, expected=expected)
        key = self._write_key(step, attempt)
        sent = {**arguments, IDEMPOTENCY_KEY: key} if key is not None else arguments
        content, self._announce = self._announce, None
        retries = 0
        while True:
            call_step = self._step
            obs = yield from self._call(step.name, sent, "write", content=content)
            content = None
            record: dict[str, Any] = {
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
                record["timeout_retry"] = retries
            self._writes.append(record)
            if not _timed_out(obs) or retries >= self.profile.timeout_retries:
                break
            retries += 1  # the same confirmed request: re-sent without asking again
        index = len(self._writes) - 1
        fact = fact_write(self._record_id(step, arguments), step.name)
        if _timed_out(obs):
            if block.decisions.readback and self.profile.readback != "never":
                yield from self._after_timeout(block, arguments, obs, record, attempt)
                return
            self._notes.append(f"The system refused the last change ({obs.text}).")
            return
        if obs.error:  # told with the next question, which goes on with the request
            self._notes.append(f"The system refused the last change ({obs.text}).")
            return
        if block.amount is not None and attempt == 1:
            self._amounts.append(block.amount)
        mode = self.profile.readback if block.decisions.readback else "never"
        if mode == "before_report":
            back = yield from self._readback(step, arguments, obs)
            if _unavailable(back):
                record["readback_step"] = back.step
                yield from self._say(RECONCILIATION)
                return
            ok = self._took_effect(step.name, obs, back)
            record["readback_step"], record["took_effect"] = back.step if back else None, ok
            source = back if back is not None else obs
            if ok:
                self._use(fact, "applied", source.step, attempt=attempt, write=index)
                yield from self._say(self._report(step, arguments, source))
                return
            self._use(fact, "not_applied", source.step, attempt=attempt, write=index)
            yield from self._not_applied(block, arguments, back, attempt, correction=False)
        elif mode == "after_report":
            self._use(fact, "applied", obs.step, attempt=attempt, write=index)
            yield from self._say(
                self._report(step, arguments, obs) + " Let me double-check the record."
            )
            back = yield from self._readback(step, arguments, obs)
            if _unavailable(back):
                record["readback_step"] = back.step
                yield from self._say("Correction: " + RECONCILIATION)
                return
            ok = self._took_effect(step.name, obs, back)
            record["readback_step"], record["took_effect"] = back.step if back else None, ok
            if not ok:
                source = back if back is not None else obs
                self._use(fact, "not_applied", source.step, attempt=attempt, write=index)
                yield from self._not_applied(block, arguments, back, attempt, correction=True)
        else:
            self._use(fact, "applied", obs.step, attempt=attempt, write=index)
            yield from self._say(self._report(step, arguments, obs))

    def _after_timeout(
        self,
        block: _Block,
        arguments: dict[str, Any],
        obs: Obs,
        record: dict[str, Any],
        attempt: int,
    ) -> Script:
        """Read the record back after a write whose outcome is unknown, and report."""
        step = block.step
        index = len(self._writes) - 1
        fact = fact_write(self._record_id(step, arguments), step.name)
        if step.name == "book_reservation":  # no reservation id to read: read the user
            uid = arguments.get("user_id") or step.owner or self.user_id
            back = yield from self._call("get_user_details", {"user_id": uid}, "readback")
            if _unavailable(back):  # once more, as for any read-back
                back = yield from self._call("get_user_details", {"user_id": uid}, "readback")
        else:
            back = yield from self._readback(step, arguments, obs)
        if back is None or _unavailable(back):
            record["readback_step"] = back.step if back is not None else None
            yield from self._say(RECONCILIATION)
            return
        ok, report = self._took_effect_request(block, arguments, back)
        record["readback_step"], record["took_effect"] = back.step, ok
        if ok:
            if block.amount is not None and attempt == 1:
                self._amounts.append(block.amount)
            self._use(fact, "applied", back.step, attempt=attempt, write=index)
            yield from self._say(report or self._report(step, arguments, back))
            return
        self._use(fact, "not_applied", back.step, attempt=attempt, write=index)
        yield from self._not_applied(block, arguments, back, attempt, correction=False)

    def _took_effect_request(
        self, block: _Block, arguments: dict[str, Any], back: Obs
    ) -> tuple[bool, str | None]:
        """Whether the read-back record shows the requested change (no acknowledgement to
        compare with), and the report to give when it is not the usual one."""
        name = block.step.name
        now = back.record
        if back.error or not now:
            return False, None
        before = block.record.record if block.record is not None else {}
        user_before = block.user.record if block.user is not None else {}
        if name == "update_reservation_flights":
            wanted = segment_refs(arguments.get("flights") or [])
            return segment_refs(segments(now)) == wanted, None
        if name == "update_reservation_baggages":
            keys = ("total_baggages", "nonfree_baggages")
            return all(now.get(k) == arguments.get(k) for k in keys), None
        if name == "update_reservation_passengers":

            def people(items: Any) -> list[tuple[Any, ...]]:
                return [
                    (p.get("first_name"), p.get("last_name"), p.get("dob"))
                    for p in items or ()
                    if isinstance(p, dict)
                ]

            return people(now.get("passengers")) == people(arguments.get("passengers")), None
        if name in ("cancel_reservation", "cancel_pending_order"):
            return now.get("status") == "cancelled", None
        if name == "book_reservation":
            old = set(user_before.get("reservations") or ())
            new = [r for r in now.get("reservations") or () if r not in old]
            if not new:
                return False, None
            return True, f"Done: your booking {new[-1]} is confirmed."
        if name == "send_certificate":

            def certificates(user: dict[str, Any]) -> int:
                methods = user.get("payment_methods") or {}
                return sum(
                    1
                    for m in (methods.values() if isinstance(methods, dict) else methods)
                    if isinstance(m, dict) and m.get("source") == "certificate"
                )

            return certificates(now) > certificates(user_before), None
        if name in ("modify_user_address", "modify_pending_order_address"):
            address = now.get("address") or {}
            keys = ("address1", "address2", "city", "state", "country", "zip")
            return all(address.get(k) == arguments.get(k) for k in keys if k in arguments), None
        return now != before, None  # the record changed since the agent read it

    def _not_applied(
        self,
        block: _Block,
        arguments: dict[str, Any],
        back: Obs | None,
        attempt: int,
        correction: bool,
    ) -> Script:
        step = block.step
        shown = self._state_text(step, arguments, back)
        text = (
            "Correction: I re-checked, and " if correction else "I checked the record, and "
        ) + (f"the change did not take effect: {shown}")
        if self.profile.retry and attempt == 1:
            reply = yield from self._say(text + " Shall I try again? (yes/no)")
            if _affirmative(reply):
                yield from self._do_write(block, arguments, [], attempt=2)
            return
        yield from self._say(text + " I'm sorry, I could not complete this change.")

    def _readback(self, step: PlanStep, arguments: dict[str, Any], ack: Obs) -> Script:
        """Read the written record back; once more when it is unavailable right now."""
        back = yield from self._readback_once(step, arguments, ack)
        if _unavailable(back):
            back = yield from self._call(back.name, dict(back.arguments), "readback")
        return back

    def _readback_once(self, step: PlanStep, arguments: dict[str, Any], ack: Obs) -> Script:
        name = step.name
        if name == "book_reservation":
            rid = ack.record.get("reservation_id")
            if not isinstance(rid, str):
                return None
            return (
                yield from self._call(
                    "get_reservation_details", {"reservation_id": rid}, "readback"
                )
            )
        key = record_key(name, arguments)
        if key is None:
            return None
        tool = {
            "reservation": ("get_reservation_details", "reservation_id"),
            "order": ("get_order_details", "order_id"),
            "user": ("get_user_details", "user_id"),
        }[key[0]]
        return (yield from self._call(tool[0], {tool[1]: key[1]}, "readback"))

    @staticmethod
    def _took_effect(name: str, ack: Obs, back: Obs | None) -> bool:
        """Whether the read-back record shows what the acknowledgement says was done."""
        if back is None or back.error or not back.record:
            return False
        new, now = ack.record, back.record
        if name == "update_reservation_flights":
            return segment_refs(segments(new)) == segment_refs(segments(now)) and len(
                new.get("payment_history") or []
            ) == len(now.get("payment_history") or [])
        if name == "update_reservation_baggages":
            return all(new.get(k) == now.get(k) for k in ("total_baggages", "nonfree_baggages"))
        if name == "update_reservation_passengers":
            return new.get("passengers") == now.get("passengers")
        if name == "cancel_reservation":
            return now.get("status") == new.get("status") == "cancelled"
        if name == "book_reservation":
            return segment_refs(segments(new)) == segment_refs(segments(now))
        if name == "send_certificate":
            match = _CERTIFICATE.search(ack.text)
            return bool(match) and match.group(0) in (now.get("payment_methods") or {})
        if name == "modify_user_address":
            return new.get("address") == now.get("address")
        return new == now

    def _report(self, step: PlanStep, arguments: dict[str, Any], source: Obs) -> str:
        record = source.record
        name = step.name
        rid = arguments.get("reservation_id")
        oid = arguments.get("order_id")
        if name == "update_reservation_flights":
            flights = ", ".join(segment_text(f) for f in segments(record))
            return f"Done: reservation {rid} now has these flights: {flights}."
        if name == "update_reservation_baggages":
            return (
                f"Done: reservation {rid} now has {record.get('total_baggages')} checked bags "
                f"({record.get('nonfree_baggages')} paid)."
            )
        if name == "update_reservation_passengers":
            return f"Done: the passengers of reservation {rid} are now {passengers_text(record.get('passengers'))}."
        if name == "cancel_reservation":
            return (
                f"Done: reservation {rid} is cancelled; refunds go to the original payment methods."
            )
        if name == "book_reservation":
            return f"Done: your booking {record.get('reservation_id')} is confirmed."
        if name == "send_certificate":
            return "Done: the certificate has been added to your account."
        if name == "modify_user_address":
            return f"Done: your default address is now {address_text(record.get('address'))}."
        if name == "modify_pending_order_address":
            return f"Done: order {oid} now ships to {address_text(record.get('address'))}."
        if oid is not None:
            return f"Done: order {oid} is now '{record.get('status')}'."
        return "Done."

    def _state_text(self, step: PlanStep, arguments: dict[str, Any], back: Obs | None) -> str:
        if back is None or back.error or not back.record:
            return "the record could not be found."
        record = back.record
        rid = arguments.get("reservation_id")
        oid = arguments.get("order_id")
        if step.name == "update_reservation_flights":
            flights = ", ".join(segment_text(f) for f in segments(record))
            return f"reservation {rid} still shows these flights: {flights}."
        if step.name == "update_reservation_baggages":
            return (
                f"reservation {rid} still shows {record.get('total_baggages')} checked bags "
                f"({record.get('nonfree_baggages')} paid)."
            )
        if step.name == "cancel_reservation":
            return f"reservation {rid} is not cancelled."
        if rid is not None:
            return f"reservation {rid} is unchanged."
        if oid is not None:
            return f"order {oid} is still '{record.get('status')}'."
        return "the record is unchanged."

    # ---- labels --------------------------------------------------------------------
    def _finish_use(self, use: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in use.items() if not k.startswith("_")}
        injected: bool | None
        if use["_write"] is not None:
            took = self._writes[use["_write"]]["took_effect"]
            if took is None:
                injected = None
            elif use["value"] == "applied":
                injected = not took
            else:
                injected = False if not took else None
        elif use["_expected"] is _NO_EXPECTED:
            injected = None
        else:
            injected = use["value"] != use["_expected"]
        out["value_is_injected"] = injected
        out["relied_on_injected"] = injected if use["kind"] == "use" else False
        return out


def _timed_out(obs: Obs) -> bool:
    """A write's observation saying the request timed out (it may have committed)."""
    return obs.text.lstrip().lower().startswith(_TIMEOUT)


def _unavailable(obs: Obs | None) -> bool:
    """A read's observation saying the record cannot be read right now."""
    return obs is not None and obs.text.lstrip().lower().startswith(_UNAVAILABLE)


def _final_stance(uses: list[dict[str, Any]]) -> dict[str, str]:
    """Per fact: does the agent's last statement endorse what was delivered to it?

    A write fact is endorsed when the last statement about the first attempt says
    "applied" (what the acknowledgement asserted). A value fact is rejected when the
    agent used or checked an injected value and its last use states a value that is
    not injected; otherwise it is endorsed.
    """
    by_fact: dict[str, list[dict[str, Any]]] = {}
    for use in uses:
        if use["fact"].startswith("write:") and use.get("attempt", 1) != 1:
            continue
        by_fact.setdefault(use["fact"], []).append(use)
    stance: dict[str, str] = {}
    for fact, items in by_fact.items():
        statements = [u for u in items if u["kind"] == "use"]
        if fact.startswith("write:"):
            if statements:
                stance[fact] = "endorses" if statements[-1]["value"] == "applied" else "rejects"
            continue
        saw_injected = any(u["value_is_injected"] for u in items)
        if statements and statements[-1]["value_is_injected"]:
            stance[fact] = "endorses"
        else:
            stance[fact] = "rejects" if saw_injected else "endorses"
    return stance


_HANDLERS: dict[str, Callable[[ScriptedAgent, _Block], Script]] = {
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


def scripted_agent_factory(profile_name: str, **params: Any) -> ScriptedAgentFactory:
    """An :class:`~sscbench.core.agent.AgentFactory` for a profile of :data:`PROFILES`.

    ``params`` override the profile's settings (see :class:`Profile`; ``p`` is an
    alias of ``readback_p``), e.g. ``scripted_agent_factory("random_readback", p=0.3)``.
    """
    return ScriptedAgentFactory(make_profile(profile_name, **params))


__all__ = [
    "PROFILES",
    "Profile",
    "ScriptedAgent",
    "ScriptedAgentFactory",
    "make_profile",
    "scripted_agent_factory",
]
