"""The ``claims`` section: claim cards per operator × configuration and pooled, each with
its own population, and adoption re-expressed as counts on one population
(:mod:`~sscbench.report.sections.claims_reexpression`). Its CSV ``claims`` (and
``claims.json``) also carries the typed families' metrics as claims
(:func:`typed_claims`), so a typed study's results are there too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from sscbench.analysis.claims import Claim
from sscbench.analysis.effective import CLUSTERED_TEXT
from sscbench.analysis.populations import caveat_text, interval_label
from sscbench.analysis.reexpression import reexpression
from sscbench.core.definitions import CLAIM_WORDING, Z_S_WORDING
from sscbench.jsonl import write_utf8
from sscbench.release.evidence import ReleaseEvidence
from sscbench.report.context import ReportContext
from sscbench.report.entries import CsvRow, Entry, ids_at
from sscbench.report.figures_forest import NAME, forest_figure
from sscbench.report.model import Figure, RunSets, Section
from sscbench.report.sections.claims_reexpression import reexpression_rows, reexpression_table
from sscbench.report.sections.unread import card_note, unread_by_run

ID = "claims"
TITLE = "Claims"
TYPED_METRICS = {  # the words of docs/release-evidence.md
    "activation": ("the fault really fired", "injected runs that completed"),
    "detection": ("the expected barrier fired after activation", "activated injected runs"),
    "containment": (
        "the world acceptable, nothing escaped, terminal class not unacceptable",
        "activated injected runs",
    ),
    "escape": (
        "the fault reached the user as a determinate claim the world contradicts, or "
        "as VERIFIED while a checkpoint is not valid",
        "activated injected runs",
    ),
    "recovery": (
        "ends verified, clean and solved",
        "activated runs of families with a valid recovery path",
    ),
}


def typed_claims(evidence: ReleaseEvidence | None) -> list[CsvRow]:
    """The typed families' metrics as claims (one per configuration, family, level and
    metric), in the claim cards' fields, for ``claims.json``."""
    out: list[CsvRow] = []
    for row in evidence.families if evidence is not None else []:
        for metric, iv in row.metrics.items():
            condition, population = TYPED_METRICS.get(metric, (metric, "injected runs"))
            out.append(
                {
                    "claim": metric,
                    "operator": row.family,
                    "family": row.family,
                    "config_id": row.config_id,
                    "severity": row.severity,
                    "level": ", ".join(f"{k}={v}" for k, v in sorted(row.level.items())),
                    "required_condition": condition,
                    "population": population,
                    **iv.to_dict(),
                    "caveat": caveat_text(iv),
                    "label": interval_label(iv),
                    "status": "observed" if iv.observed else "unobserved",
                }
            )
    return out


def definition_lines(claims: Sequence[Claim]) -> list[str]:
    """One plain line per word of the claims (:data:`CLAIM_WORDING`; a user's claim by its
    required condition), then what Z_S and the intervals are."""
    lines = [CLAIM_WORDING["adopted"]]
    lines += [CLAIM_WORDING.get(c.name, f"{c.name}: {c.required_condition}") for c in claims]
    interval = "95% interval: Wilson where each cluster gives one run; otherwise " + CLUSTERED_TEXT
    return [*lines, Z_S_WORDING, interval + "."]


def forest(
    cards: Sequence[Entry], claims: Sequence[Claim], pools: list[list[str]], folder: Path
) -> Figure:
    """The forest figure of every claim per configuration, its definitions under it."""
    names = [c.name for c in claims]
    png = forest_figure(cards, names, [c for pool in pools for c in pool], folder)
    configs = len({c["config_id"] for c in cards if not c.get("pooled_over")})
    return Figure(
        NAME,
        f"Every claim per configuration ({configs} configurations): point = estimate, line = "
        "95% interval, k/n at right; one panel per claim, a block of rows per operator; an "
        "empty population reads unobserved.",
        "forest plot: one point and interval per configuration, claim and operator",
        png,
        definition_lines(claims),
    )


def build(ctx: ReportContext) -> Section:
    """The claim cards, with ``claims.csv`` and ``claims.json`` (written here: the cards'
    fields without their run ids, then the typed families' claims)."""
    if ctx.primary:
        reexpressed = reexpression(ctx.rows)
        section = claims_section(ctx.cards, ctx.sets, reexpressed, unread_by_run(ctx.rows))
        section.csvs["reexpression"] = reexpression_rows(reexpressed)
        section.figures.append(forest(ctx.cards, ctx.claims, ctx.pools, ctx.figures))
    else:
        section = ctx.not_sscbench(ID, TITLE)
    hidden = ("runs", "counted")
    claims = [{k: v for k, v in c.items() if k not in hidden} for c in ctx.cards]
    claims += typed_claims(ctx.evidence)
    section.csvs["claims"] = claims
    write_utf8(ctx.out / "claims.json", json.dumps(claims, indent=2))
    return section


def claims_section(
    cards: Sequence[Entry],
    sets: RunSets,
    reexpressed: Sequence[Entry] | None = None,
    unread: dict[str, int | None] | None = None,
) -> Section:
    """Claim cards per operator × configuration and pooled, each with its own population,
    and adoption re-expressed as counts on one population (``reexpressed``, from
    :func:`sscbench.analysis.reexpression.reexpression`). With ``unread`` (marks per run)
    each card says how many runs of its population carry unread marks."""
    section = Section(
        ID,
        TITLE,
        intro="Cards per operator × configuration, per pool of configurations that are "
        "repetitions of one model, and pooled over configurations; each names "
        "its required condition, its own population (rule, runs and clusters), k/n runs, "
        "clusters and interval method.",
    )
    for c in cards:
        counted, runs = ids_at(c, "counted"), ids_at(c, "runs")
        k_href = sets.href(counted) if counted else ""
        n_href = sets.href(runs) if runs else ""
        note = card_note(runs, unread, sets) if unread is not None else {}
        section.cards.append({**c, "k_href": k_href, "n_href": n_href, **note})
    if reexpressed:
        section.tables.append(reexpression_table(reexpressed, sets))
    if not cards:
        section.reason = "no faulted run with a fault contract"
    return section
