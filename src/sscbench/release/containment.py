"""A typed containment plan for a fault-injection campaign, checked before any run starts.

Failure injection can itself cause harm, so the experiment is contained before it is
asked to test containment (the typed-fault essay): its plan names the most requests it
may affect, the effects it may inject, its time window, the metric that stops it, how
the world is restored, and who answers for it. The plan lives in the release policy
TOML as a ``[containment]`` table::

    [containment]
    max_affected = 200                 # faulted runs the campaign may schedule, at most
    allowed_effects = ["omission", "delay", "replay"]   # the families' typed semantics
    abort_metric = "escape"            # stop when escape rises above / a rate falls below
    abort_threshold = 0.25
    restoration = "each run's copy-on-write overlay is dropped; the base is never written"
    owner = "release-engineering@example.org"
    [containment.window]
    start = 2025-01-01T00:00:00Z       # with an offset: a window without one is refused
    end = 2035-01-01T00:00:00Z

``sscbench run CONFIG --containment POLICY`` builds the campaign's plan exactly as the
run will, and refuses it before the study folder is touched when the plan schedules
more faulted runs than ``max_affected`` (every planned faulted run counts: a run that
does not qualify later still was planned to be affected), when a family's typed
semantics is not an allowed effect (an operator with no typed description cannot be
checked, so it is refused too), or when now is outside the window. Fail closed: a
policy without a ``[containment]`` table is refused. The abort metric is enforced as the
runs finish (:mod:`sscbench.release.abort`): once it crosses its threshold the campaign
schedules no new run and ``containment.json`` records the abort.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from sscbench.errors import DataError
from sscbench.json_types import JsonObject
from sscbench.release.containment_plan import CampaignContainment
from sscbench.release.gate import load_policy

RECORD = "containment.json"
"""The record of the check, written in the study folder once its runs were made."""


def load_containment(policy: str | Path) -> CampaignContainment:
    """The policy's containment plan; a policy without one is refused (fail closed), and
    a bad plan is refused naming the file and the field."""
    plan = load_policy(policy).containment
    if plan is None:
        raise DataError(
            policy,
            "containment",
            "no containment plan: a campaign checked against this policy needs a "
            "[containment] table (max_affected, allowed_effects, window, abort_metric, "
            "abort_threshold, restoration, owner)",
        )
    return plan


def effects_of(operators: list[str]) -> dict[str, str | None]:
    """Each operator's typed semantics (None: no typed description, cannot be checked)."""
    from sscbench.faults.catalogue import known_spec

    specs = {op: known_spec(op) for op in operators}
    return {op: spec.semantics.value if spec else None for op, spec in specs.items()}


def problems(
    plan: CampaignContainment, faults: Counter[str], now: datetime
) -> list[tuple[str, str]]:
    """Every way the campaign would break its plan, as (field, reason); empty: it fits."""
    found: list[tuple[str, str]] = []
    total = sum(faults.values())
    if total > plan.max_affected:
        per = ", ".join(f"{op} {n}" for op, n in sorted(faults.items()))
        found.append(
            (
                "containment.max_affected",
                f"the campaign plans {total} faulted runs ({per}); the plan allows at most "
                f"{plan.max_affected}",
            )
        )
    allowed = {e.value for e in plan.allowed_effects}
    for op, effect in sorted(effects_of(sorted(faults)).items()):
        if effect is None:
            reason = f"{op} has no typed description, so its effect cannot be checked"
            found.append(("containment.allowed_effects", reason))
        elif effect not in allowed:
            reason = f"{op} injects {effect}, which is not allowed ({', '.join(sorted(allowed))})"
            found.append(("containment.allowed_effects", reason))
    if not plan.window.start <= now < plan.window.end:
        found.append(
            ("containment.window", f"now ({now.isoformat()}) is outside {plan.window.describe()}")
        )
    return found


def check_campaign(faults: Counter[str], policy: Path, now: datetime | None = None) -> JsonObject:
    """Refuse (DataError naming the policy file and the field) a campaign its policy's
    containment plan does not allow; otherwise the record of the check. ``faults`` are
    the campaign's planned faulted runs per operator (``sscbench.run.planning.
    planned_faults``: the run stage builds them, the policy is this layer's)."""
    plan = load_containment(policy)
    now = now or datetime.now(UTC)
    found = problems(plan, faults, now)
    if found:
        reasons = "; ".join(reason for _, reason in found)
        raise DataError(policy, found[0][0], f"campaign refused before any run: {reasons}")
    return {
        "policy": str(policy),
        "checked_at": now.isoformat(),
        "plan": plan.model_dump(mode="json"),
        "abort_rule": plan.abort_rule(),
        "faulted_runs": sum(faults.values()),
        "by_family": dict(sorted(faults.items())),
        "effects": dict(effects_of(sorted(faults))),
    }


__all__ = [
    "RECORD",
    "check_campaign",
    "effects_of",
    "load_containment",
    "problems",
]
