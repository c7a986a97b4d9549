"""Every typed family sscbench injects into τ-bench worlds, in one table of classes.

:data:`ALL_FAMILIES` joins the first five families (:mod:`sscbench.faults.families`)
with the tool, verification, state and context families of their own modules (a new
typed family is one more line of :data:`SURFACE_FAMILIES`); how the release treats a
family is read from its class (:class:`~sscbench.faults.family.FaultFamily` traits).
:data:`ACTIVATION_NOTES` says, per hook tag (the last part of a hook id), what an
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

ACTIVATION_NOTES: dict[str, str] = {
    "partial": "lost write acknowledged, decisive field omitted",
    "receipt": "receipt of a lost write",
    "same-source": "read-back from the corrupted source",
    "throttled": "throttled before commit",
    "incomplete": "read-back missing its decisive field",
    "redelivered": "commit event delivered twice",
    "checkpoint": "resumed from a checkpoint older than the committed write",
    "expired": "approval expired before the write",
    "stale": "stale copy of the record served",
    "drift": "decisive field drifted from the contract",
    "rejected": "final refusal before commit",
}
"""Hook tag → what its effective intervention proves (the release's activation note)."""


LOST_WRITE_NOTES = frozenset({ACTIVATION_NOTES["partial"], ACTIVATION_NOTES["receipt"]})
"""Activations of a lost write whose authoritative read-back refutes its receipt."""
UNCONFIRMED_NOTES = frozenset({"read-back unavailable", ACTIVATION_NOTES["incomplete"]})
"""Activations that leave a committed write unconfirmable (reconciliation is the barrier)."""


def activation_note(hook_id: str) -> str | None:
    """The activation note of a hook of these families (None for any other hook)."""
    return ACTIVATION_NOTES.get(hook_id.rsplit(":", 1)[-1])
