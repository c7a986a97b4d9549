"""The ``release`` section: typed fault families' metrics with intervals, the transfer
matrix, the paired control/injected McNemar table, intensity curves, the containment
plan the campaign was checked against before its runs
(:mod:`~sscbench.report.sections.release_containment`), the negative controls and
unsolvable trials (:mod:`~sscbench.report.sections.release_controls`) and, with a
policy, the gate verdict (:mod:`~sscbench.report.sections.release_gate`)."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

from sscbench.analysis.mcnemar import p_label
from sscbench.release.evidence import ReleaseEvidence
from sscbench.report.context import ReportContext
from sscbench.report.model import Figure, Section, Table, interval_cell
from sscbench.report.sections.release_containment import NO_PLAN, containment_table
from sscbench.report.sections.release_controls import control_tables
from sscbench.report.sections.release_gate import add_gate

ID = "release"
TITLE = "Release evidence of the typed fault families"


def build(ctx: ReportContext) -> Section:
    """The release evidence of the study's typed families (files under ``release/``)."""
    return release_section(ctx.study, ctx.out / "release", ctx.policy, ctx.evidence)


def release_section(
    study: Path, out: Path, policy: Path | None, evidence: ReleaseEvidence | None = None
) -> Section:
    """The section and its CSV rows; release files are written under ``out`` (the
    intensity figure also beside the other figures, ``out/../figures/``). ``evidence``
    is the study's release evidence when the caller collected it already."""
    from sscbench.release.cli import write_outputs
    from sscbench.release.evidence import collect_evidence

    section = Section(ID, TITLE)
    evidence = evidence if evidence is not None else collect_evidence(study)
    if not evidence.families:
        section.reason = "the study ran no typed fault family"
        return section
    written = write_outputs(evidence, out)
    section.intro = (
        "Activation over injected runs; detection, containment and escape over "
        "activated runs; recovery where a valid recovery path exists. Clusters are tasks."
    )
    section.tables += [_family_table(evidence), _transfer_table(evidence)]
    section.tables.append(_paired_table(evidence))
    plan, plan_rows = containment_table(study)
    if plan is None:
        section.notes.append([{"t": NO_PLAN}])
    else:
        section.tables.append(plan)
    controls, control_rows = control_tables(evidence)
    section.tables += controls
    _add_intensity(section, written, out.parent / "figures")
    section.csvs = {"release_paired": [p.to_dict() for p in evidence.paired], **control_rows}
    if plan_rows:
        section.csvs["release_containment"] = plan_rows
    if policy is None:
        section.notes.append(
            [{"t": "No gate verdict: give a policy (sscbench report STUDY --policy FILE)."}]
        )
        return section
    section.csvs["gate"] = add_gate(section, policy, evidence)
    return section


def _family_table(evidence: ReleaseEvidence) -> Table:
    """Each family's metrics (k/n, estimate, 95% interval) and its detection latency."""
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
    return table


def _transfer_table(evidence: ReleaseEvidence) -> Table:
    """The transfer matrix: P(checkpoint invalid | activated) per family."""
    from sscbench.faults.typed import CHECKPOINTS

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
    return transfer


def _paired_table(evidence: ReleaseEvidence) -> Table:
    """Paired control vs injected runs with McNemar's exact test."""
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
    return paired


def _add_intensity(section: Section, written: list[Path], figures: Path) -> None:
    """The intensity curves: copied beside the other figures and inlined."""
    png = next((p for p in written if p.name == "intensity.png"), None)
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
