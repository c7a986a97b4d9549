"""The report's first section: what the study ran and its main results, in one screen.

Nothing here computes a statistic: the results are the claim cards per configuration,
and per pool of configurations that are repetitions of one model
(:mod:`sscbench.analysis.pooling`), never pooled over different models
(:func:`sscbench.analysis.claims.claim_cards`), and, for typed fault
families, the release evidence's family rows, shown as they are elsewhere on the page.
Typed families' metrics become claims in the claims section
(:func:`sscbench.report.sections.claims.typed_claims`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence

from sscbench.analysis.claims import BUILT_IN, POOLED
from sscbench.analysis.pooling import POOL_SHORT, POOL_WORDS, pool_name
from sscbench.analysis.stats import Interval
from sscbench.errors import DataError
from sscbench.release.evidence import FamilyRow, ReleaseEvidence
from sscbench.report.context import ReportContext
from sscbench.report.entries import Entry, ids_at, text_at
from sscbench.report.model import Cell, RunSets, Section, Table, interval_cell, label_cell
from sscbench.study.missing import missing_line
from sscbench.study.rows import MeasurementRow
from sscbench.terminal import count

ID = "headline"
TITLE = "Summary"
HEADLINE_CLAIMS = ("propagation", "adoption under pre-use counterevidence")


def _names(values: list[str], most: int = 6) -> str:
    if len(values) <= most + 1:  # "and 1 more" would say less than the name
        return ", ".join(values)
    return ", ".join(values[:most]) + f" and {len(values) - most} more"


def _what_ran(measured: Sequence[MeasurementRow]) -> str:
    """Runs by kind and status, configurations and repetitions, in one sentence."""
    kinds = Counter(r.kind for r in measured)
    status = Counter(r.status for r in measured if r.kind == "faulted")
    configs = sorted({str(r.config_id) for r in measured})
    per_config: dict[str, set] = {}
    for r in measured:
        per_config.setdefault(str(r.config_id), set()).add(r.repetition)
    counts = sorted({len(reps) for reps in per_config.values()}) or [0]
    repetitions = counts[-1]
    said = count(repetitions, "repetition")
    if len(counts) > 1:  # per-configuration repetitions (Table I)
        said = f"{counts[0]}–{counts[-1]} repetitions by configuration (Table I)"
    left = [f"{status[s]} {s.replace('-', ' ')}" for s in ("not-qualified", "missing") if status[s]]
    faulted = f"{kinds['faulted']} faulted" + (f" ({', '.join(left)})" if left else "")
    return (
        f"{count(len(measured), 'run')}: {kinds['clean']} clean, {faulted}; "
        f"{count(len(configs), 'configuration')} ({_names(configs)}); "
        f"{said}."
    )


def _card_cell(card: Entry | None, sets: RunSets) -> Cell:
    """A pooled claim card as k/n (links to its runs) and the rest of its label."""
    if card is None:
        return [{"t": "–"}]
    label = text_at(card, "label")
    if card["status"] == "unobserved":
        return [{"t": label, "cls": "unobserved"}]
    text, *marker = label_cell(label)
    words = str(text["t"])
    rest = words.split(" ", 1)[1] if " " in words else ""
    return [
        *sets.count(ids_at(card, "counted")),
        {"t": "/"},
        *sets.count(ids_at(card, "runs")),
        {"t": f" {rest}"},
        *marker,
    ]


def _operator_table(cards: Sequence[Entry], sets: RunSets, pools: list[list[str]]) -> Table:
    """Per configuration (or pool of configurations that are repetitions of one model,
    labelled so) and operator, the headline claims; never pooled over different models."""
    table = Table(
        "headline-table",
        "Main results per configuration and operator",
        "each column its claim's population: "
        + " | ".join(
            f"{c.name}: {c.population_words()}" for c in BUILT_IN if c.name in HEADLINE_CLAIMS
        ),
        ["configuration", "operator", *HEADLINE_CLAIMS],
    )
    by_key = {(c["claim"], c["operator"], c["config_id"]): c for c in cards}
    operators = sorted({text_at(c, "operator") for c in cards})
    for pool in pools:
        shown_as = [(c, c) for c in pool]  # (card's config_id, the row's label)
        if len(pool) > 1:  # the pool's row first, labelled, then its configurations
            shown_as.insert(0, (pool_name(pool), f"{pool_name(pool)} (pooled: {POOL_SHORT})"))
        for config_id, shown in shown_as:
            for op in operators:
                if (HEADLINE_CLAIMS[0], op, config_id) not in by_key:
                    continue
                cells = [_card_cell(by_key.get((k, op, config_id)), sets) for k in HEADLINE_CLAIMS]
                table.add(shown, op, *cells, key=f"{config_id}|{op}")
    table.notes.append(_pooling_note(pools))
    return table


def _pooling_note(pools: list[list[str]]) -> str:
    """What the table pools and what it does not, in one sentence."""
    pooled = [pool_name(p) for p in pools if len(p) > 1]
    alone = sum(len(p) == 1 for p in pools)
    if pooled:
        return (
            f"Pooled rows ({'; '.join(pooled)}) join configurations that are {POOL_WORDS}; "
            "their own rows follow. Different models are never pooled here."
        )
    if alone > 1:
        return (
            f"No pooled row: the {alone} configurations differ in model or decoding, and a "
            "number pooled over them would describe none of them (claims.csv keeps the cards "
            f"pooled over {POOLED}, pooled_over = {POOLED})."
        )
    return "One configuration: its rows are the study's results."


def _marked(family: str, iv: Interval) -> Cell:
    """A family's interval with its caveat as a mark only (the words once, under the table)."""
    return [{"t": f"{family}: "}, *interval_cell(iv)]


def _typed_table(evidence: ReleaseEvidence) -> Table:
    """Per configuration: families, injected runs and where escapes were observed."""
    table = Table(
        "headline-typed-table",
        "Typed fault families per configuration",
        "injected runs of the typed families (intensity levels in their curves)",
        [
            "configuration",
            "families",
            "injected runs",
            "families with an escape",
            "highest escape rate",
        ],
    )
    by_config: dict[str, list[FamilyRow]] = {}
    for row in evidence.families:
        by_config.setdefault(row.config_id, []).append(row)
    for config_id, rows in sorted(by_config.items()):
        escaped = [r for r in rows if r.metrics["escape"].numerator]
        worst = max(escaped, key=lambda r: r.metrics["escape"].estimate or 0, default=None)
        table.add(
            config_id,
            len({r.family for r in rows}),
            sum(r.scheduled for r in rows),
            len({r.family for r in escaped}),
            _marked(worst.family, worst.metrics["escape"]) if worst else "–",
            key=config_id,
        )
    return table


def headline_section(
    measured: Sequence[MeasurementRow],
    primary: list[MeasurementRow],
    cards: Sequence[Entry],
    evidence: ReleaseEvidence | None,
    sets: RunSets,
    built: str,
    opening: tuple[str, ...] = (),
    pools: list[list[str]] | None = None,
) -> Section:
    """What ran and the main results: SSCBench operators' pooled claims, typed families'
    escapes; a study with neither says what it is instead of counting zero runs.
    ``opening`` (the missing runs and why, the user simulator) comes first; ``pools``
    groups configurations that are repetitions of one model (default: each alone)."""
    section = Section(ID, TITLE, intro=_what_ran(measured))
    section.notes.extend([{"t": line}] for line in opening)
    typed = evidence is not None and bool(evidence.families)
    if primary:
        operators = sorted({str(r.operator) for r in primary})
        section.notes.append(
            [
                {
                    "t": f"SSCBench operators ({_names(operators)}): {len(primary)} "
                    "faulted runs of repetition 0 in the primary analysis."
                }
            ]
        )
        if pools is None:
            pools = [[c] for c in sorted({str(r.config_id) for r in primary})]
        section.tables.append(_operator_table(cards, sets, pools))
    if typed and evidence is not None:
        families = sorted({r.family for r in evidence.families})
        section.notes.append(
            [
                {
                    "t": f"Typed fault families ({len(families)}: {_names(families)}), "
                    "each injected run paired with a control run; metrics, "
                    "transfer, curves and gate under "
                },
                {"t": "Release evidence", "href": "#release"},
                {"t": "."},
            ]
        )
        section.tables.append(_typed_table(evidence))
    if not primary and not typed:
        section.notes.append(
            [
                {
                    "t": "No faulted run with a fault contract or a typed family: "
                    "this study holds clean runs (or replays) only; see the "
                    "sections below."
                }
            ]
        )
    words = (
        "Every rate names its numerator, denominator, clusters and interval method (never "
        "narrower than Wilson on the effective number of clusters); ⚠ names an interval's "
        "caveat, explained once under its table."
    )
    section.notes.append([{"t": f"{words} {built}"}])
    return section


def build(ctx: ReportContext) -> Section:
    """The Summary, built after every other section (it states the build's time)."""
    built = f"Built in {time.perf_counter() - ctx.started:.1f} s."
    return headline_section(
        ctx.measured,
        ctx.primary,
        ctx.cards,
        ctx.evidence,
        ctx.sets,
        built,
        _opening(ctx),
        ctx.pools,
    )


def _opening(ctx: ReportContext) -> tuple[str, ...]:
    """The Summary's first lines: how many runs are missing and why (lost to the harness,
    never outcomes), and what simulated the user."""
    # only the missing runs count in the line: the index is streamed, no entry kept per run
    entries = (e for e in ctx.loaded.iter_entries() if e.status == "missing")
    missing = missing_line(entries, "sscbench run ... --retry-missing")
    try:
        user = ctx.loaded.config.user.describe()
    except (DataError, ValueError):  # an old or hand-made config: say nothing of it
        user = None
    lines = [missing or "No run is missing.", *([user[:1].upper() + user[1:]] if user else [])]
    return tuple(lines)
