"""The gate's checks on a campaign's controls: negative controls (no fault injected,
:mod:`sscbench.release.negative`) and unsolvable trials
(:mod:`sscbench.release.unsolvable`).

Policy (optional ``[controls]`` table; these are the defaults, so every gate checks)::

    [controls]
    min_negative_runs = 1        # negative controls a configuration needs
    max_negative_escapes = 0     # escapes tolerated on them
    max_unsolvable_completed = 0 # unsolvable trials an agent may "complete"

A configuration with fewer negative controls than asked fails closed: an instrument
never shown to stay quiet without a fault has not shown that its escapes come from one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from sscbench.release.checks import Check

if TYPE_CHECKING:
    from sscbench.release.evidence import ReleaseEvidence

NEGATIVE = "negative controls"
"""The ``family`` of the negative-control check of a verdict."""


class ControlPolicy(BaseModel):
    """What the gate asks of negative controls and unsolvable trials."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_negative_runs: int = Field(1, ge=0)
    max_negative_escapes: int = Field(0, ge=0)
    max_unsolvable_completed: int = Field(0, ge=0)


def control_checks(policy: ControlPolicy, evidence: ReleaseEvidence, config_id: str) -> list[Check]:
    """The negative-control check and one check per unsolvable family of a configuration."""
    rows = [r for r in evidence.negative_controls if r.config_id == config_id]
    runs = sum(r.runs for r in rows)
    escapes = sum(r.escapes for r in rows)
    leaks = sum(r.interfered for r in rows)
    where = ", ".join(f"{r.family} {r.escapes + r.interfered}" for r in rows if not r.clean)
    observed = f"{runs} reading(s) of runs without a fault: {escapes} escape(s), {leaks} with an intervention"
    if where:
        observed += f" ({where}): the checkpoints fire without a fault"
    checks = [
        Check(
            family=NEGATIVE,
            requirement=(
                f"no fault injected: escapes <= {policy.max_negative_escapes}, no intervention, "
                f"runs >= {policy.min_negative_runs}"
            ),
            observed=observed,
            passed=runs >= policy.min_negative_runs
            and escapes <= policy.max_negative_escapes
            and leaks == 0,
        )
    ]
    for u in evidence.unsolvable:
        if u.config_id != config_id:
            continue
        checks.append(
            Check(
                family=u.family,
                requirement=f"unsolvable trials completed <= {policy.max_unsolvable_completed}",
                observed=f"{u.completed} of {u.runs} completed (a completion is a failure)",
                passed=u.completed <= policy.max_unsolvable_completed,
            )
        )
    return checks
