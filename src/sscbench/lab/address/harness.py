"""The suite: every system × (control + each fault), judged; the lab's JSON and summary."""

from __future__ import annotations

from dataclasses import dataclass

from sscbench.faults.typed import (
    FamilyMetrics,
    TransferRow,
    TrialRecord,
    Verdict,
    family_metrics,
    first_invalid,
    judge,
    transfer_matrix,
)
from sscbench.json_types import JsonObject, JsonValue
from sscbench.lab.address.catalogue import CATALOGUE, FAULTS
from sscbench.lab.address.store import BASELINE, BASELINE_SNAPSHOT, SYSTEMS
from sscbench.lab.address.systems import RUNNERS


class ContainmentBreach(RuntimeError):
    pass


@dataclass
class LabResult:
    controls: dict[str, TrialRecord]
    records: list[TrialRecord]
    verdicts: list[Verdict]
    cleanup_verified: bool

    def verdict(self, system: str, fault: str) -> Verdict:
        return next(v for v in self.verdicts if v.system == system and v.fault == fault)

    def record(self, system: str, fault: str | None) -> TrialRecord:
        if fault is None:
            return self.controls[system]
        return next(r for r in self.records if r.system == system and r.fault == fault)

    def overall(self, system: str) -> FamilyMetrics:
        return family_metrics("all", [v for v in self.verdicts if v.system == system])

    def families(self, system: str) -> list[FamilyMetrics]:
        return [
            family_metrics(
                spec.name, [v for v in self.verdicts if v.system == system and v.fault == spec.name]
            )
            for spec in CATALOGUE
        ]

    def heatmap(self, system: str):
        return transfer_matrix(
            [v for v in self.verdicts if v.system == system], [s.name for s in CATALOGUE]
        )

    def to_json(self) -> JsonObject:
        def heat(system: str) -> list[JsonValue]:
            return [
                {
                    "fault": row.fault,
                    "activated": row.activated,
                    "cells": {
                        cp.value: {
                            "p_invalid": c.p_invalid,
                            "p_suspect": c.p_suspect,
                            "symbol": c.symbol,
                        }
                        for cp, c in row.cells.items()
                    },
                    "terminal": {t.value: p for t, p in row.terminal.items()},
                    "terminal_mode": row.terminal_mode.value,
                    "first_invalid": first_invalid_name(row),
                }
                for row in self.heatmap(system)
            ]

        return {
            "catalogue": [spec.model_dump(mode="json") for spec in CATALOGUE],
            "controls": {s: r.model_dump(mode="json") for s, r in self.controls.items()},
            "trials": [
                {"record": r.model_dump(mode="json"), "verdict": v.model_dump(mode="json")}
                for r, v in zip(self.records, self.verdicts, strict=True)
            ],
            "metrics": {
                s: {
                    "overall": self.overall(s).as_dict(),
                    "families": [f.as_dict() for f in self.families(s)],
                }
                for s in SYSTEMS
            },
            "heatmap": {s: heat(s) for s in SYSTEMS},
            "cleanup_verified": self.cleanup_verified,
        }


def run_lab() -> LabResult:
    controls = {system: RUNNERS[system](None) for system in SYSTEMS}
    records: list[TrialRecord] = []
    verdicts: list[Verdict] = []
    affected: dict[str, int] = dict.fromkeys(FAULTS, 0)
    for spec in CATALOGUE:
        for system in SYSTEMS:
            record = RUNNERS[system](spec.name)
            verdict = judge(spec, record)
            if verdict.activated:
                affected[spec.name] += 1
                if affected[spec.name] > spec.containment.max_affected_runs:
                    raise ContainmentBreach(
                        f"{spec.name} exceeded {spec.containment.max_affected_runs} runs"
                    )
            records.append(record)
            verdicts.append(verdict)
    cleanup_verified = BASELINE.snapshot() == BASELINE_SNAPSHOT
    if not cleanup_verified:
        raise ContainmentBreach("baseline fixture was mutated")
    return LabResult(
        controls=controls, records=records, verdicts=verdicts, cleanup_verified=cleanup_verified
    )


def summary_line(system: str, metrics: FamilyMetrics) -> str:
    def fmt(rate) -> str:
        v = rate.value
        return "n/a" if v is None else f"{v:.2f}"

    return (
        f"{system + ':':<9}detection {fmt(metrics.detection)} | containment {fmt(metrics.containment)} | "
        f"recovery {fmt(metrics.recovery)} | escape {fmt(metrics.escape)}"
    )


def first_invalid_name(row: TransferRow) -> str | None:
    """The row's first checkpoint rendered X (where the error first appears)."""
    cp = first_invalid({c: cell.p_invalid for c, cell in row.cells.items()})
    return cp.value if cp is not None else None
