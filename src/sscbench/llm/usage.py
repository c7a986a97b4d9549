"""What one run spent at its endpoints: requests, retries, 429s, tokens and wall time.

The agent and the user keep counters while a run goes (:func:`new_usage`,
:func:`add_usage`); the executor turns them into a :class:`RunUsage` that is stored on
the run's ``index.jsonl`` row, so costs add up from rows without opening a run file. Prices are applied later (:mod:`sscbench.study.cost`): a price table never
changes what ran.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

COUNTERS = ("requests", "retries", "rate_limited", "prompt_tokens", "completion_tokens")


class RoleUsage(BaseModel):
    """One role's calls in a run (agent or user): answered requests, retries, 429s, tokens.

    ``model`` is the model the role called (None for scripted and replayed roles).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = None
    requests: int = Field(0, ge=0)
    retries: int = Field(0, ge=0)
    rate_limited: int = Field(0, ge=0)
    prompt_tokens: int = Field(0, ge=0)
    completion_tokens: int = Field(0, ge=0)

    @classmethod
    def from_counters(cls, model: str | None, counters: Mapping[str, object] | None) -> RoleUsage:
        """A role's usage from the live counters (missing or bad counts read as 0)."""
        counters = counters or {}
        values = {}
        for name in COUNTERS:
            value = counters.get(name, 0)
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
            values[name] = value if ok else 0
        return cls(model=model, **values)


class RunUsage(BaseModel):
    """A run's endpoint usage by role and its estimated price.

    Wall time is not here: the index row must be the same for the same config (two
    runs of a study give byte-identical index files), so a run's wall time goes to the
    study's ``timings.jsonl`` instead.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: RoleUsage = Field(default_factory=RoleUsage)
    user: RoleUsage = Field(default_factory=RoleUsage)
    price_usd: float | None = Field(
        None,
        description="estimated with the config's price table when the run ran (None: "
        "a model that spent tokens had no price); reports re-price from the table",
    )

    def total(self, name: str) -> int:
        """The sum of one counter (``requests``, ``prompt_tokens``, ...) over both roles."""
        return getattr(self.agent, name) + getattr(self.user, name)


__all__ = ["COUNTERS", "RoleUsage", "RunUsage"]


def new_usage() -> dict[str, int]:
    """Zeroed token and request counters."""
    return {
        "requests": 0,
        "retries": 0,
        "rate_limited": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "total_tokens": 0,
    }


def add_usage(usage: dict[str, int], response: object) -> None:
    """Add one response's token counts (absent counts add nothing).

    A count that is not a whole number >= 0 (negative, fractional, text, true/false)
    is refused: it is not added, and ``invalid_usage`` counts the responses that
    carried one, so the evaluator log records that the endpoint's counts were bad.
    """
    usage["requests"] += 1
    counts = getattr(response, "usage", None)
    invalid = False
    for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = getattr(counts, name, None) if counts is not None else None
        if value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            usage[name] += value
        else:
            invalid = True
    if invalid:
        usage["invalid_usage"] = usage.get("invalid_usage", 0) + 1
