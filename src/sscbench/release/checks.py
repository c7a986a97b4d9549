"""One reason of a release-gate verdict: a check a family (or the controls) passed or failed."""

from __future__ import annotations

from pydantic import BaseModel, Field

from sscbench.release.exposure import ExposureCheck


class Check(BaseModel):
    """One reason of a verdict."""

    family: str
    requirement: str
    observed: str
    passed: bool
    weighed: ExposureCheck | None = Field(
        None, description="the exposure-weighted check's numbers (frequency and consequence)"
    )
