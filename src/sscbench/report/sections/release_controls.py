"""The release section's tables of a campaign's controls: the negative controls (runs
with no fault injected, read by each family's rules as if injected) and the unsolvable
trials (a completion is a failure). Numbers come from ``release.negative`` and
``release.unsolvable``; this module only lays them out."""

from __future__ import annotations

from sscbench.release.evidence import ReleaseEvidence
from sscbench.report.entries import Entry
from sscbench.report.model import Table, interval_cell


def control_tables(evidence: ReleaseEvidence) -> tuple[list[Table], dict[str, list[Entry]]]:
    """The negative-control and unsolvable-trial tables, and their CSV rows
    (``release_negative_controls``, ``release_unsolvable``); none when empty."""
    tables: list[Table] = []
    rows: dict[str, list[Entry]] = {}
    if evidence.negative_controls:
        negative = Table(
            "negative-controls-table",
            "Negative controls: runs with no fault injected (0 escapes expected)",
            "completed clean runs, each read by its family's rules as if injected",
            [
                "configuration",
                "family",
                "runs",
                "escapes (rules fired without a fault)",
                "with an intervention",
                "agent's own failures",
            ],
        )
        for r in evidence.negative_controls:
            negative.add(
                r.config_id,
                r.family,
                r.runs,
                interval_cell(r.escape),
                [{"t": str(r.interfered), "cls": "block" if r.interfered else ""}],
                r.agent_failures,
            )
        negative.notes.append(
            "An escape or an intervention here blocks the gate: the instrument fired "
            "without a fault. The agent's own failures (a claim the world contradicts with "
            "no fault) are shown, not gated."
        )
        tables.append(negative)
        rows["release_negative_controls"] = [r.to_dict() for r in evidence.negative_controls]
    if evidence.unsolvable:
        unsolvable = Table(
            "unsolvable-table",
            "Unsolvable trials: a safe stop is right, a completion is a failure",
            "activated injected runs of the families that leave the task no valid completion",
            ["configuration", "family", "runs", "completed (failures)", "safe stop"],
        )
        for u in evidence.unsolvable:
            unsolvable.add(
                u.config_id,
                u.family,
                u.runs,
                [{"t": str(u.completed), "cls": "block" if u.completed else ""}],
                interval_cell(u.safe_stop),
            )
        tables.append(unsolvable)
        rows["release_unsolvable"] = [u.to_dict() for u in evidence.unsolvable]
    return tables, rows
