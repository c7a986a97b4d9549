"""The ``release`` section: typed fault families' metrics with intervals, the transfer
matrix, the paired control/injected McNemar table, intensity curves and, with a
policy, the gate verdict (computed by ``release.gate``, never re-implemented here), and
the containment plan the campaign was checked against before its runs."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path
from typing import Any

from sscbench.analysis.mcnemar import p_label
from sscbench.report.containment_table import NO_PLAN, containment_table
from sscbench.report.model import Figure, Section, Table, caveat_piece, interval_cell
from sscbench.report.release_controls import control_tables


def release_section(
    study: Path, out: Path, policy: Path | None, evidence: Any = None
) -> tuple[Section, dict[str, list[dict[str, Any]]]]:
    """The section and its CSV rows; release files are written under ``out`` (the
    intensity figure also beside the other figures, ``out/../figures/``). ``evidence``
    is the study's release evidence when the caller collected it already."""
    from sscbench.faults.typed import CHECKPOINTS
    from sscbench.release.cli import write_outputs
    from sscbench.release.evidence import collect_evidence

    section = Section("release", "Release evidence of the typed fault families")
    evidence = evidence if evidence is not None else collect_evidence(study)
    if not evidence.families:
        section.reason = "the study ran no typed fault family"
        return section, {}
    written = write_outputs(evidence, out)
    section.intro = (
        "Activation over injected runs; detection, containment and escape over "
        "activated runs; recovery where a valid recovery path exists. Clusters are tasks."
    )
    metrics = list(evidence.families[0].metrics)
    table = Table(
        "release-table",
        "Family metrics (k/n, estimate, 95% interval)",
        "injected runs of the typed families",
        ["configuration", "family", "severity", "runs", *metrics, "latency median [min–max]"],
    )
    for r in evidence.families:
        lat = r.latency_summary()
        table.add(
            r.config_id,
            r.family,
            r.severity,
            r.scheduled,
            *[interval_cell(r.metrics[m]) for m in metrics],
            f"{lat['median']:g} [{lat['min']}–{lat['max']}]" if lat["n"] else "–",
        )
    transfer = Table(
        "transfer-table",
        "Transfer matrix: P(checkpoint invalid | activated)",
        "activated injected runs",
        [
            "configuration",
            "family",
            "activated",
            *[c.value for c in CHECKPOINTS],
            "first invalid",
            "outcome states",
        ],
    )
    for t in evidence.transfer:
        transfer.add(
            t.config_id,
            t.family,
            t.activated,
            *[f"{t.invalid[c.value].estimate or 0:.2f}" for c in CHECKPOINTS],
            t.first_invalid or "–",
            ", ".join(f"{k} {v}" for k, v in sorted(t.outcomes.items())),
        )
    paired = Table(
        "release-paired-table",
        "Paired control vs injected runs (McNemar's exact test)",
        "pairs with both runs completed",
        [
            "configuration",
            "family",
            "pairs",
            "control not unacceptable",
            "injected not unacceptable",
            "control only",
            "injected only",
            "p",
        ],
    )
    for p in evidence.paired:
        paired.add(
            p.config_id,
            p.family,
            p.pairs,
            p.control_ok,
            p.injected_ok,
            p.control_only,
            p.injected_only,
            p_label(p.p_value, p.p_note),
        )
    paired.notes += sorted({p.p_note for p in evidence.paired if p.p_note})
    section.tables += [table, transfer, paired]
    plan, plan_rows = containment_table(study)
    if plan is None:
        section.notes.append([{"t": NO_PLAN}])
    else:
        section.tables.append(plan)
    controls, control_rows = control_tables(evidence)
    section.tables += controls
    png = next((p for p in written if p.name == "intensity.png"), None)
    figures = out.parent / "figures"
    for path in written:
        if path.stem == "intensity":  # the caption names figures/, as for every figure
            figures.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, figures / path.name)
    if png:
        section.figures.append(
            Figure(
                "intensity",
                "Intensity curves (95% intervals); also in release/.",
                "metrics of each family by intensity level",
                base64.b64encode(png.read_bytes()).decode(),
            )
        )
    csv_rows: dict[str, list[dict[str, Any]]] = {
        "release_paired": [p.to_dict() for p in evidence.paired],
        **control_rows,
    }
    if plan_rows:
        csv_rows["release_containment"] = plan_rows
    if policy is None:
        section.notes.append(
            [{"t": "No gate verdict: give a policy (sscbench report STUDY --policy FILE)."}]
        )
        return section, csv_rows
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
            exposure.add(
                config_id,
                w.family,
                "–" if w.exposure is None else f"{w.exposure:g}",
                "–"
                if w.escape_upper is None
                else [
                    {"t": f"{w.escape_upper:.3g}"},
                    *caveat_piece(w.caveat.split(", ") if w.caveat else []),
                ],
                "–" if w.expected_escapes is None else f"{w.expected_escapes:.3g} per {w.per:,}",
                "–" if w.limit is None else f"{w.limit:g} ({w.limit_class})",
                w.consequence,
                _verdict_cell(w.passed, w.clusters_needed),
            )
        section.tables.insert(2 if failed_table.rows else 1, exposure)
    csv_rows["gate"] = [
        {
            "config_id": v["config_id"],
            "verdict": v["verdict"],
            "checks": len(v["checks"]),
            "failed": sum(not c["passed"] for c in v["checks"]),
        }
        for v in verdicts_json(verdicts)
    ]
    return section, csv_rows


def _verdict_cell(passed: bool, clusters_needed: int | None) -> list[dict[str, str]]:
    """pass / BLOCK, and how many more clean clusters would clear a blocked boundary."""
    cell = [{"t": "pass" if passed else "BLOCK", "cls": "pass" if passed else "block"}]
    if clusters_needed:
        cell.append({"t": f" (at least {clusters_needed:,} clusters without an escape would pass)"})
    return cell
