"""Hook tags: what kind of intervention a family's hook makes, as a typed value.

A hook's id is ``"<case id>:<tag>"`` (:func:`hook_id`); the evaluator-only log keeps
only that id, so :func:`hook_tag` — the one place an id is taken apart — gives the
release back the :class:`HookTag` its hook was made with. Stages compare tags, never
the text of an id.
"""

from __future__ import annotations

from enum import StrEnum


class HookTag(StrEnum):
    """The kind of a family hook (the last part of its id)."""

    SUPPRESS = "suppress"
    TIMEOUT = "timeout"
    UNAVAILABLE = "unavailable"
    UPDATE = "update"
    ACTOR_UPDATE = "actor-update"
    REBIND = "rebind"
    SUBJECT_REBIND = "subject-rebind"
    PARTIAL = "partial"
    RECEIPT = "receipt"
    SAME_SOURCE = "same-source"
    THROTTLED = "throttled"
    INCOMPLETE = "incomplete"
    REDELIVERED = "redelivered"
    CHECKPOINT = "checkpoint"
    EXPIRED = "expired"
    STALE = "stale"
    DRIFT = "drift"
    REJECTED = "rejected"


def hook_id(case_id: str, tag: HookTag) -> str:
    """The id of a case's hook of kind ``tag`` (what the evaluator-only log records)."""
    return f"{case_id}:{tag.value}"


def hook_tag(hook_id: str) -> HookTag | None:
    """The tag a hook id was made with (:func:`hook_id`); None for a hook of no tag."""
    try:
        return HookTag(hook_id.rsplit(":", 1)[-1])
    except ValueError:
        return None


__all__ = ["HookTag", "hook_id", "hook_tag"]
