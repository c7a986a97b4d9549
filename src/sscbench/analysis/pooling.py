"""Which configurations may be pooled: those that are repetitions of one model.

Pooling the runs of different models (a user's model beside scripted baselines) gives a
number that describes none of them, so the report's headline pools only configurations
that are *repetitions of one model*: their recorded agent settings are identical except

* the configuration's ``id`` and its ``repetitions`` count,
* the sampling seed (``endpoint.seed``, ``params.seed``): a repetition's own draw,
* harness settings that never reach the model: retries, back-off, timeouts, response
  caps, the key's variable name, Ray placement (:data:`HARNESS_FIELDS`).

Everything else must match: the kind, the model (``endpoint.model`` at the same
``base_url``, ``params.model``, the scripted ``profile``, the replayed recording), the
decoding (temperature, max_tokens, tool_choice, strategy, constrained decoding, other
params) and the qualification protocol. A configuration without recorded settings is
never pooled.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sscbench.json_types import JsonMapping, JsonObject

IGNORED_FIELDS = frozenset({"id", "repetitions", "ray"})
"""Agent settings that do not make a configuration a different model."""
SEED_FIELDS = frozenset({"seed"})
"""The sampling seed (in ``endpoint`` or ``params``): what differs between repetitions."""
HARNESS_FIELDS = frozenset(
    {
        "api_key_env",
        "max_retries",
        "backoff_initial",
        "backoff_max",
        "timeout",
        "max_response_bytes",
        "max_retry_after_s",
        "unreachable_after",
        "max_wait_s",
        "concurrency",
    }
)
"""Endpoint settings of the harness (how to reach the model), not of the model."""
POOL_SHORT = "repetitions of one model"
"""A pool's row label in the report's headline (the note under it says the rest)."""
POOL_WORDS = f"{POOL_SHORT} (same model, same decoding; seeds may differ)"
"""How the report and ``claims.csv`` (``pooled_over``) describe a pool of configurations."""


def model_key(agent: JsonMapping) -> str | None:
    """The agent's model and decoding as one canonical string (``None`` without recorded
    settings): two configurations with the same key are repetitions of one model."""
    if not agent:
        return None
    kept: JsonObject = {k: v for k, v in agent.items() if k not in IGNORED_FIELDS}
    kept.setdefault("kind", "scripted")
    for part, drop in (("endpoint", SEED_FIELDS | HARNESS_FIELDS), ("params", SEED_FIELDS)):
        value = kept.get(part)
        if isinstance(value, dict):
            kept[part] = {k: v for k, v in value.items() if k not in drop}
    return json.dumps(kept, sort_keys=True, default=str)


def pool_name(config_ids: list[str]) -> str:
    """A pool's name, e.g. ``gpt-a + gpt-b`` (``+`` is never part of a configuration id)."""
    return " + ".join(config_ids)


def repetition_pools(agents: Sequence[JsonMapping], present: list[str]) -> list[list[str]]:
    """The configurations of ``present`` grouped by :func:`model_key`, in the order the
    study lists its agents: a group of one is a configuration alone (never pooled); a
    group of several is a pool of repetitions of one model. A configuration the study's
    agents do not describe stays alone."""
    by_id = {str(a.get("id")): a for a in agents}
    order = [c for c in by_id if c in present] + sorted(set(present) - set(by_id))
    groups: dict[str, list[str]] = {}
    for config_id in order:
        key = model_key(by_id.get(config_id, {}))
        groups.setdefault(key if key is not None else f"alone:{config_id}", []).append(config_id)
    return list(groups.values())


__all__ = [
    "HARNESS_FIELDS",
    "POOL_SHORT",
    "POOL_WORDS",
    "model_key",
    "pool_name",
    "repetition_pools",
]
