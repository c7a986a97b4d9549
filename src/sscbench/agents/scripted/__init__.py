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

Profiles differ in what they check, and when (see :data:`sscbench.study.profiles.PROFILES`): reading back a
record after a write before or after telling the user, looking up the product of an
order item, re-checking a payment method's category, re-reading a record whose dates
contradict each other; retrying a write whose request timed out (with or without an
idempotency key) and reading it back, or skipping the confirmation question when the
context says it is no longer required, or reading the record back because the write
tool's description asks for it (the read-back cue, ``cue_follower``). Random components (e.g. ``random_readback``) draw from a
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

The package, one job per module (the behaviour profiles themselves are plain data in
:mod:`sscbench.study.profiles`, which a study config checks): ``phrases``
(fixed texts and observation tests), ``transcript`` (what the run has seen and
decided), ``turns`` (generator primitives), ``statements`` (stating facts),
``airline`` / ``retail`` (the write handlers), ``writes`` (write, read-back, report),
``outcomes`` (what a read-back shows), ``labels`` (calibration labels) and ``agent``
(the script and the factory).
"""

from __future__ import annotations

from sscbench.agents.scripted.agent import (
    ScriptedAgent,
    ScriptedAgentFactory,
    scripted_agent_factory,
)
from sscbench.agents.scripted.phrases import CLOSING, RECONCILIATION

__all__ = [
    "CLOSING",
    "RECONCILIATION",
    "ScriptedAgent",
    "ScriptedAgentFactory",
    "scripted_agent_factory",
]
