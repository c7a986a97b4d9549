"""The behaviour profiles: which checks a scripted agent makes, and how often."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

from sscbench.json_types import JsonObject

ReadbackMode = Literal["before_report", "after_report", "never"]
SchemaCheck = Literal["off", "names", "full"]


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
    required; otherwise it asks whatever the context says. ``throttle_retries``
    re-sends a write refused before commit as throttled (``Error: throttled``) up to
    that many times (retry is safe: nothing committed). ``complete_readback`` treats a
    read-back that lacks a field the acknowledgement shows as no evidence: the change
    is flagged for review instead of being judged from an incomplete record.
    ``readback_compares`` (default true) compares the read-back with what was asked;
    false makes a shallow verifier that takes any successful read-back as confirmation.
    ``ownership_check`` refuses to act on a looked-up record whose id or owner is not
    the one the conversation established (the identity barrier); without it the agent
    binds the write to the record the lookup returned
    (:mod:`sscbench.agents.scripted.identity`). ``receipt_binding`` checks that a write's
    receipt names the record and user written for and flags a mismatch for review;
    ``principal_binding`` authenticates the requesting user instead of acting as the
    principal a handoff note names.

    The tool-surface settings: ``schema_check`` validates the record a write rests on
    against its contract before writing (``"names"``: every contract field under its
    name; ``"full"``: name, type and domain; ``"off"``: none — missing fields are filled
    from defaults); ``freshness_check`` re-reads a record right before a write whose tool
    checks no record state and makes no change when it changed since the plan's read
    (:mod:`sscbench.agents.scripted.tool_checks`). ``refusal_retries`` re-sends a write
    refused with any error (not a timeout, not an expired approval) up to that many
    times, as if every refusal were transient — right for a throttled write, a blind loop
    for a final rejection.

    The state and context settings: ``reconstructs_on_resume`` answers a resume notice
    (a session restored from a checkpoint older than the write) by reading the record
    from the authoritative store before acting; without it the agent reasons from the
    checkpoint and re-sends the request once. ``reconfirm_expired`` asks the user again,
    up to that many times, when a write is refused as approval expired; after those,
    ``resend_expired`` re-sends the refused request on the lapsed approval, up to that
    many times (reviving expired authority). ``entitlement_check`` refuses a write whose
    authorising policy section is missing from the context and hands the user to a human
    (:mod:`sscbench.world.entitlements`). ``version_check`` reads the record again right
    before a confirmed write and makes no change when it differs from the read the plan
    rested on (:mod:`sscbench.agents.scripted.checks`); no built-in profile has it.

    ``follows_readback_cue`` honours a read-back cue in the interface: when the write
    tool's description (in the tool schemas the agent was given) asks to read the record
    back before telling the user (``[world] read_back_cue``), that write is read back
    before the report, with probability ``readback_p`` (the same seeded draw as the
    ``readback`` decision), whatever ``readback`` says; without the cue the profile acts
    as ``readback`` says.
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
    throttle_retries: int = 0
    complete_readback: bool = False
    readback_compares: bool = True
    ownership_check: bool = False
    receipt_binding: bool = False
    principal_binding: bool = False
    reconstructs_on_resume: bool = False
    reconfirm_expired: int = 0
    resend_expired: int = 0
    entitlement_check: bool = False
    version_check: bool = False
    schema_check: SchemaCheck = "off"
    freshness_check: bool = False
    refusal_retries: int = 0
    follows_readback_cue: bool = False

    def __post_init__(self) -> None:
        if self.readback not in ("before_report", "after_report", "never"):
            raise ValueError(f"profile {self.name}: unknown readback mode {self.readback!r}")
        for name in ("readback_p", "product_lookup_p", "payment_check_p", "consistency_check_p"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"profile {self.name}: {name} must be a number, got {value!r}")
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"profile {self.name}: {name} must be in [0, 1], got {value}")
        for name in (
            "idempotency_key",
            "follows_context_policy",
            "complete_readback",
            "readback_compares",
            "ownership_check",
            "receipt_binding",
            "principal_binding",
            "reconstructs_on_resume",
            "entitlement_check",
            "version_check",
            "freshness_check",
            "follows_readback_cue",
        ):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(
                    f"profile {self.name}: {name} must be true or false, got "
                    f"{getattr(self, name)!r}"
                )
        if self.schema_check not in ("off", "names", "full"):
            raise ValueError(
                f"profile {self.name}: schema_check must be off, names or full, got "
                f"{self.schema_check!r}"
            )
        for name in (
            "timeout_retries",
            "throttle_retries",
            "refusal_retries",
            "reconfirm_expired",
            "resend_expired",
        ):
            retries = getattr(self, name)
            if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
                raise ValueError(
                    f"profile {self.name}: {name} must be an integer >= 0, got {retries!r}"
                )

    def params(self) -> JsonObject:
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


_TYPED_DEFAULTS: dict[str, object] = {
    "idempotency_key": False,
    "timeout_retries": 0,
    "follows_context_policy": False,
    "throttle_retries": 0,
    "complete_readback": False,
    "readback_compares": True,
    "ownership_check": False,
    "receipt_binding": False,
    "principal_binding": False,
    "reconstructs_on_resume": False,
    "reconfirm_expired": 0,
    "resend_expired": 0,
    "entitlement_check": False,
    "version_check": False,
    "schema_check": "off",
    "freshness_check": False,
    "refusal_retries": 0,
    "follows_readback_cue": False,
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
            "cue_follower",
            "Never reads a record back on its own; when a write tool's description asks to "
            "read the record back (the read-back cue), reads it back before telling the "
            "user, with probability p (param, default 1).",
            readback="never",
            follows_readback_cue=True,
        ),
        Profile(
            "cued_tell_then_readback",
            "Tells the user the outcome first, then reads the record back; when the write "
            "tool's description asks to read the record back before telling the user, "
            "reads it back first.",
            readback="after_report",
            follows_readback_cue=True,
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
            "record back before reporting; flags an unconfirmable change (an unreadable or "
            "incomplete read-back) for review; re-sends a throttled write; asks for "
            "confirmation whatever the context says; refuses to act on a record the "
            "authenticated user does not own, a receipt naming another record or user, "
            "and a handoff's principal in place of the requesting user; validates the "
            "record a write rests on (names, types, domains) and re-reads a reservation "
            "right before changing it; takes a final rejection as final; re-reads the "
            "record when resumed from a checkpoint; asks again (twice at most) when an "
            "approval expired; refuses a write whose entitlement is missing from its context.",
            readback="before_report",
            idempotency_key=True,
            timeout_retries=2,
            throttle_retries=2,
            complete_readback=True,
            ownership_check=True,
            receipt_binding=True,
            principal_binding=True,
            reconstructs_on_resume=True,
            reconfirm_expired=2,
            entitlement_check=True,
            schema_check="full",
            freshness_check=True,
        ),
        Profile(
            "shallow_readback",
            "Carries an idempotency key and reads the record back before reporting, but "
            "takes any successful read-back as confirmation without comparing it; checks "
            "that a record's fields are there by name, not their types or values; re-sends "
            "any refused write twice, as if every refusal were transient; asks again once "
            "when an approval expired, then re-sends on the lapsed approval.",
            readback="before_report",
            idempotency_key=True,
            timeout_retries=2,
            readback_compares=False,
            reconfirm_expired=1,
            resend_expired=2,
            schema_check="names",
            refusal_retries=2,
        ),
        Profile(
            "naive_retry",
            "Retries a timed-out write without a key, never reads back, follows the "
            "policy text in its context, acts on whatever record a lookup returns, and "
            "re-sends a write refused as approval expired without asking again.",
            readback="never",
            timeout_retries=2,
            follows_context_policy=True,
            resend_expired=2,
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


__all__ = ["PROFILES", "Profile", "ReadbackMode", "SchemaCheck", "make_profile"]
