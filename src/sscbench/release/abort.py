"""The containment plan's abort metric, enforced while the campaign runs.

``sscbench run CONFIG --containment POLICY`` watches its own runs: each finished faulted
run of a typed family is read exactly as the release evidence reads it
(:func:`sscbench.release.trials.add_record`), and the plan's ``abort_metric`` is
computed over every finished faulted run of the campaign with the same code as a family
row's metrics (:func:`sscbench.release.evidence.trial_metrics`), pooled over families
and configurations. When its estimate crosses ``abort_threshold`` (escape above it; the
other rates below it) the campaign schedules no new run: runs in flight finish and are
kept, and ``STUDY/containment.json`` records the abort. A metric with no run in its
denominator yet (e.g. escape before any fault activated) is unobserved and never aborts.

Resuming an aborted campaign is refused (:func:`sscbench.study.aborted.refuse_aborted`) unless the operator
says so (``--resume-aborted``): the abort was the plan's own stop.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sscbench.json_types import JsonObject
from sscbench.release.containment import load_containment
from sscbench.release.containment_plan import CampaignContainment
from sscbench.study.folder import IndexEntry
from sscbench.study.study import Study

if TYPE_CHECKING:  # types only: trials are imported where they are read, as before
    from sscbench.faults.case import Case
    from sscbench.release.trial import Trial
    from sscbench.world.world import World


def crossed(plan: CampaignContainment, estimate: float | None) -> bool:
    """Whether the metric's estimate crosses the plan's threshold (escape: above it; the
    other rates: below it); an unobserved metric never does."""
    if estimate is None:
        return False
    if plan.abort_metric == "escape":
        return estimate > plan.abort_threshold
    return estimate < plan.abort_threshold


class AbortWatch:
    """Called with each finished run's index entry; True once the campaign must stop.

    The first call reads every faulted run the study already holds (a resumed campaign
    counts its earlier runs), later calls only the new one. ``abort`` is the record of
    the stop (None while the campaign runs on)."""

    def __init__(self, plan: CampaignContainment, out: Path):
        self.plan = plan
        self.study = Study.open(out)
        self.store = self.study.store
        self.abort: JsonObject | None = None
        self._units: dict[tuple[str, str, int], Trial] = {}
        self._seen: set[str] = set()
        self._primed = False
        self._cases: dict[str, Case] | None = None
        self._worlds: dict[str, World] = {}

    def _load(self) -> dict[str, Case]:
        """The study's typed-family cases and worlds, once."""
        if self._cases is None:
            from sscbench.release.trials import typed_cases

            self._cases = typed_cases(self.study)
            self._worlds = self.study.worlds if self._cases else {}
        return self._cases

    def _add(self, entry: IndexEntry) -> None:
        from sscbench.release.trials import add_record

        cases = self._load()
        if entry.kind != "faulted" or entry.run_id in self._seen or entry.case_id not in cases:
            return
        self._seen.add(entry.run_id)
        add_record(self._units, cases[entry.case_id], entry, self.store, self._worlds)

    def __call__(self, entry: IndexEntry) -> bool:
        """Read the finished run; True (and ``abort`` set) when the metric crossed."""
        if self.abort is not None:
            return True
        if not self._primed:
            self._primed = True
            for earlier in self.store.read_index():
                self._add(earlier)
        self._add(entry)
        if entry.kind != "faulted":
            return False
        from sscbench.release.evidence import trial_metrics

        interval = trial_metrics(list(self._units.values()))[self.plan.abort_metric]
        estimate = interval.estimate if interval.observed else None
        if not crossed(self.plan, estimate):
            return False
        self.abort = {
            "metric": self.plan.abort_metric,
            "value": estimate,
            "threshold": self.plan.abort_threshold,
            "rule": self.plan.abort_rule(),
            "interval": interval.label(),
            "faulted_runs_finished": len(self._seen),
            "at": datetime.now(UTC).isoformat(),
        }
        return True


def watch_campaign(policy: Path, out: Path) -> AbortWatch:
    """The abort watch of the policy's containment plan for the study in ``out``."""
    return AbortWatch(load_containment(policy), out)


__all__ = ["AbortWatch", "crossed", "watch_campaign"]
