"""Every typed family sscbench injects into τ-bench worlds, in one table of classes.

:data:`ALL_FAMILIES` joins the first five families (:mod:`sscbench.faults.families`)
with the tool, verification, state and context families of their own modules (a new
typed family is one more line of :data:`SURFACE_FAMILIES`); how the release treats a
family is read from its class (:class:`~sscbench.faults.family.FaultFamily` traits).
:data:`ACTIVATION_NOTES` says, per :class:`~sscbench.faults.hooks.HookTag`, what an
effective intervention of that hook proves fired — the release assessment's
activation predicate reads it.
"""

from __future__ import annotations

from sscbench.faults.compound import COMPOUND_FAMILIES
from sscbench.faults.context_faults import (
    ContradictorySource,
    MissingEntitlement,
    RevokedProvenance,
)
from sscbench.faults.families import TYPED_FAMILIES
from sscbench.faults.hooks import HookTag
from sscbench.faults.state_faults import ExpiredApproval, ReplayedEvent, StaleCheckpoint
from sscbench.faults.tool_faults import PartialPayload, Rejected, Throttled
from sscbench.faults.tool_reads import SchemaDrift, StaleValue
from sscbench.faults.verification_faults import (
    CorruptedReceipt,
    IncompleteReadback,
    SameSourceReadback,
)

SURFACE_FAMILIES = (
    PartialPayload,
    Throttled,
    CorruptedReceipt,
    SameSourceReadback,
    IncompleteReadback,
    ReplayedEvent,
    ContradictorySource,
    RevokedProvenance,
    StaleCheckpoint,
    ExpiredApproval,
    MissingEntitlement,
    StaleValue,
    SchemaDrift,
    Rejected,
    *COMPOUND_FAMILIES,
)
ALL_FAMILIES = (*TYPED_FAMILIES, *SURFACE_FAMILIES)

ACTIVATION_NOTES: dict[HookTag, str] = {
    HookTag.PARTIAL: "lost write acknowledged, decisive field omitted",
    HookTag.RECEIPT: "receipt of a lost write",
    HookTag.SAME_SOURCE: "read-back from the corrupted source",
    HookTag.THROTTLED: "throttled before commit",
    HookTag.INCOMPLETE: "read-back missing its decisive field",
    HookTag.REDELIVERED: "commit event delivered twice",
    HookTag.CHECKPOINT: "resumed from a checkpoint older than the committed write",
    HookTag.EXPIRED: "approval expired before the write",
    HookTag.STALE: "stale copy of the record served",
    HookTag.DRIFT: "decisive field drifted from the contract",
    HookTag.REJECTED: "final refusal before commit",
}
"""Hook tag → what its effective intervention proves (the release's activation note)."""


LOST_WRITE_NOTES = frozenset({ACTIVATION_NOTES[HookTag.PARTIAL], ACTIVATION_NOTES[HookTag.RECEIPT]})
"""Activations of a lost write whose authoritative read-back refutes its receipt."""
UNCONFIRMED_NOTES = frozenset({"read-back unavailable", ACTIVATION_NOTES[HookTag.INCOMPLETE]})
"""Activations that leave a committed write unconfirmable (reconciliation is the barrier)."""


def activation_note(tag: HookTag | None) -> str | None:
    """The activation note of a hook of these families by its tag (None for any other)."""
    return ACTIVATION_NOTES.get(tag) if tag is not None else None
