"""The release section's gate tables (``report --policy FILE``): the verdict per
configuration, the failed checks one per row, and the exposure-weighted escapes; the
verdict is computed by ``release.gate``, never re-implemented here."""

from __future__ import annotations

from pathlib import Path

from sscbench.release.evidence import ReleaseEvidence
from sscbench.release.exposure import ExposureCheck
from sscbench.report.entries import CsvRow
from sscbench.report.model import Cell, Section, Table, caveat_piece


def add_gate(section: Section, policy: Path, evidence: ReleaseEvidence) -> list[CsvRow]:
    """Put the gate's tables first in the section; returns the rows of ``gate.csv``."""
    from sscbench.release.gate import gate, load_policy, verdicts_json

    verdicts = gate(load_policy(policy), evidence)
    verdict_table = Table(
        "gate-table",
        f"Gate verdict against {Path(policy).name}",
        "typed-family rows per configuration",
        ["configuration", "verdict", "checks passed", "failed checks"],
    )
    failed_table = Table(
        "gate-failed-table",
        "Failed checks, one per row",
        "typed-family rows per configuration; the bound the gate read",
        ["configuration", "family", "needs", "observed"],
    )
    for v in verdicts:
        families = sorted({c.family for c in v.reasons})
        verdict_table.add(
            v.config_id,
            [{"t": "BLOCK" if v.blocked else "PASS", "cls": "block" if v.blocked else "pass"}],
            f"{len(v.checks) - len(v.reasons)}/{len(v.checks)}",
            f"{len(v.reasons)}: {', '.join(families)}" if families else "–",
        )
        for c in v.reasons:
            if c.weighed is None:  # exposure checks have their own table below
                failed_table.add(v.config_id, c.family, c.requirement, c.observed)
    section.tables.insert(0, verdict_table)
    if failed_table.rows:
        section.tables.insert(1, failed_table)
    weighed = [(v.config_id, c.weighed) for v in verdicts for c in v.checks if c.weighed]
    if weighed:
        section.tables.insert(2 if failed_table.rows else 1, _exposure_table(weighed))
    return [
        {
            "config_id": v["config_id"],
            "verdict": v["verdict"],
            "checks": len(v["checks"]),
            "failed": sum(not c["passed"] for c in v["checks"]),
        }
        for v in verdicts_json(verdicts)
    ]


def _exposure_table(weighed: list[tuple[str, ExposureCheck]]) -> Table:
    """Exposure-weighted escapes: frequency and consequence, per weighed check."""
    exposure = Table(
        "exposure-table",
        "Exposure-weighted escapes: frequency and consequence",
        "typed-family rows per configuration, with the policy's exposure",
        [
            "configuration",
            "family",
            "exposure per request",
            "escape upper bound",
            "expected escapes",
            "limit",
            "consequence",
            "verdict",
        ],
    )
    for config_id, w in weighed:
        upper: Cell | str = "–"
        if w.escape_upper is not None:
            caveats = caveat_piece(w.caveat.split(", ") if w.caveat else [])
            upper = [{"t": f"{w.escape_upper:.3g}"}, *caveats]
        exposure.add(
            config_id,
            w.family,
            "–" if w.exposure is None else f"{w.exposure:g}",
            upper,
            "–" if w.expected_escapes is None else f"{w.expected_escapes:.3g} per {w.per:,}",
            "–" if w.limit is None else f"{w.limit:g} ({w.limit_class})",
            w.consequence,
            _verdict_cell(w.passed, w.clusters_needed),
        )
    return exposure


def _verdict_cell(passed: bool, clusters_needed: int | None) -> Cell:
    """pass / BLOCK, and how many more clean clusters would clear a blocked boundary."""
    cell = [{"t": "pass" if passed else "BLOCK", "cls": "pass" if passed else "block"}]
    if clusters_needed:
        cell.append({"t": f" (at least {clusters_needed:,} clusters without an escape would pass)"})
    return cell
