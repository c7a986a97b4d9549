"""What a scripted agent says and recognises: fixed texts, patterns, observation tests."""

from __future__ import annotations

import enum
import json
import re
from typing import TypeGuard

from sscbench.agents.scripted_facts import Obs

CLOSING = "Is there anything else I can help you with?"
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
USER_ID = re.compile(r"\b[a-z]+_[a-z]+_\d+\b")
CERTIFICATE = re.compile(r"certificate_\d+")
TIMEOUT = "error: timeout"  # a write's outcome is unknown (it may have committed)
UNAVAILABLE = "error: service unavailable"  # a record cannot be read right now
THROTTLED = "error: throttled"  # a write refused before commit: nothing was applied
STALE_POLICY = "confirmation is no longer required"
RESUMED = "notice: session resumed from checkpoint"  # a checkpoint older than the write
EXPIRED = "error: approval expired"  # the user's yes lapsed before the write: ask again
RECONCILIATION = (
    "I submitted the change, but I could not confirm it: the record is not available "
    "right now. I have flagged it for review."
)
INCOMPLETE = (
    "I submitted the change, but I could not confirm it: the record came back incomplete. "
    "I have flagged it for review."
)
READBACK_CUE = re.compile(
    r"\bread (?:the |this |that )?(?:record|reservation|order)s? back\b", re.IGNORECASE
)
"""A tool description asking the agent to read the record back after the call."""


class Unset(enum.Enum):
    """The type of :data:`NO_EXPECTED`."""

    NO_EXPECTED = 0


NO_EXPECTED = Unset.NO_EXPECTED
"""A use with no authoritative value to compare against (``value_is_injected`` None)."""


def canonical_text(arguments: object) -> str:
    """Tool-call arguments as one comparable text (sorted keys)."""
    return json.dumps(arguments, sort_keys=True)


def timed_out(obs: Obs) -> bool:
    """A write's observation saying the request timed out (it may have committed)."""
    return obs.text.lstrip().lower().startswith(TIMEOUT)


def unavailable(obs: Obs | None) -> TypeGuard[Obs]:
    """A read's observation saying the record cannot be read right now."""
    return obs is not None and obs.text.lstrip().lower().startswith(UNAVAILABLE)


def throttled(obs: Obs) -> bool:
    """A write's observation saying it was throttled before commit (safe to re-send)."""
    return obs.text.lstrip().lower().startswith(THROTTLED)


def incomplete(ack: Obs, back: Obs | None, before: Obs | None) -> bool:
    """A read-back record lacking a field the same record showed before the write (or,
    for a record read first now, a field the acknowledgement shows): it cannot show the
    effect either way."""
    if back is None or back.error or not back.record:
        return False
    same = before is not None and before.name == back.name and not before.error
    reference = before.record if same and before is not None else ack.record
    return bool(reference) and bool(set(reference) - set(back.record))


def resumed(obs: Obs) -> bool:
    """A write's observation saying the session was restored from a checkpoint."""
    return obs.text.lstrip().lower().startswith(RESUMED)


def expired(obs: Obs) -> bool:
    """A write's observation saying the user's approval expired (nothing was applied)."""
    return obs.text.lstrip().lower().startswith(EXPIRED)
