"""The typed containment plan of a fault-injection campaign: the ``[containment]`` table
of a release policy (checked by :mod:`sscbench.release.containment`)."""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator, model_validator

from sscbench.faults.typed import Semantics

AbortMetric = Literal["activation", "detection", "containment", "escape", "recovery"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Window(_Strict):
    """When the campaign may run: from ``start`` until before ``end`` (both with an offset)."""

    start: AwareDatetime
    end: AwareDatetime

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.end <= self.start:
            raise ValueError("end must come after start")
        return self

    def describe(self) -> str:
        """The window in words, ISO 8601 at both ends."""
        return f"{self.start.isoformat()} to {self.end.isoformat()}"


class CampaignContainment(_Strict):
    """The typed containment plan of one campaign (``[containment]`` in a release policy)."""

    max_affected: int = Field(ge=0, description="faulted runs the campaign may schedule")
    allowed_effects: list[Semantics] = Field(
        min_length=1, description="the typed semantics the campaign's families may inject"
    )
    window: Window
    abort_metric: AbortMetric
    abort_threshold: float = Field(ge=0.0, le=1.0)
    restoration: str = Field(description="how the world is put back after the campaign")
    owner: str = Field(description="who answers for the campaign")

    @field_validator("restoration", "owner")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    def abort_rule(self) -> str:
        """When the campaign stops, e.g. ``escape rate above 0.25`` (escape rises; the
        other rates fall)."""
        side = "above" if self.abort_metric == "escape" else "below"
        return f"{self.abort_metric} rate {side} {self.abort_threshold:g}"
