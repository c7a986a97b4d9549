"""The validation section's second-reader panel: how many runs the rules marked unread,
how many ``sscbench second-read`` sent to the judge model and it answered, and, per
quantity, where its valid proposals agree with the rule reading, disagree, give a value
where the rules are undecided, or are invalid (a quote not at its step). Each count
links to its runs; the run pages list the proposals beside the rule reading. The
measurement and every other table keep the rule reading."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from sscbench.report.entries import CsvRow
from sscbench.report.model import RunSets, Table
from sscbench.study.rows import MeasurementRow
from sscbench.study.second_reading import (
    QUANTITIES,
    STANDING_WORDS,
    SecondReading,
    compare,
    is_marked,
    unread_of,
)


def second_reading_panel(
    rows: Sequence[MeasurementRow],
    readings: dict[str, SecondReading],
    sets: RunSets,
    measured: str | None = None,
) -> tuple[list[Table], list[CsvRow], str] | None:
    """The panel's tables, its CSV rows (``second_reading``) and a one-line summary;
    None when no row carries an unread count and nothing was read a second time.
    ``measured`` (today's measurements' sha256) names readings sent from other marks."""
    faulted = [r for r in rows if r.kind == "faulted" and r.status == "completed"]
    checked = [r for r in faulted if unread_of(r) is not None]
    if not checked and not readings:
        return None
    marked = [r.run_id for r in faulted if is_marked(r)]
    read = [readings[i] for i in marked if i in readings]
    answered = [r.run_id for r in read if r.answered]
    abstained = [r.run_id for r in read if not r.answered]
    counts = Table(
        "second-reading-runs",
        "Runs the rules could not fully read, and their second reading",
        "completed faulted runs; a run without an unread count was not checked",
        ["faulted runs", "checked", "marked unread", "sent", "answered", "abstained"],
    )
    counts.add(
        len(faulted),
        len(checked),
        sets.count(marked),
        sets.count([r.run_id for r in read]),
        sets.count(answered),
        sets.count(abstained),
        key="all",
    )
    csv: list[CsvRow] = [
        {"quantity": "runs", "standing": what, "runs": n}
        for what, n in (
            ("faulted", len(faulted)),
            ("checked", len(checked)),
            ("marked", len(marked)),
            ("sent", len(read)),
            ("answered", len(answered)),
            ("abstained", len(abstained)),
        )
    ]
    standing = _standings(read, {r.run_id: r for r in faulted})
    table = Table(
        "second-reading-standing",
        "The second reader beside the rule reading",
        "answered second readings, per proposed quantity (each run's page lists them)",
        ["quantity", *STANDING_WORDS.values()],
    )
    for quantity in QUANTITIES:
        cells = [sets.count(standing[quantity].get(s, [])) for s in STANDING_WORDS]
        table.add(quantity, *cells, key=quantity)
        csv += [
            {"quantity": quantity, "standing": s, "runs": len(standing[quantity].get(s, []))}
            for s in STANDING_WORDS
        ]
    reasons = Counter(str(r.abstention).split(":")[0] for r in read if not r.answered)
    why = "; ".join(f"{k}: {v}" for k, v in sorted(reasons.items()))
    summary = (
        f"Second reader: {len(marked)} of {len(checked)} checked faulted runs marked unread, "
        f"{len(read)} sent to the judge model, {len(answered)} answered, "
        f"{len(abstained)} abstained{f' ({why})' if why else ''}; an abstention is no "
        "reading, never a negative. The proposals never replace the rule reading."
    )
    stale = [r for r in readings.values() if r.measured_from not in (None, measured)]
    if measured is not None and stale:
        summary += (
            f" {len(stale)} readings were sent from an earlier measurement: run "
            "sscbench second-read again."
        )
    return [counts, table], csv, summary


def _standings(
    readings: list[SecondReading], rows: dict[str, MeasurementRow]
) -> dict[str, dict[str, list[str]]]:
    """Run ids by quantity and standing."""
    out: dict[str, dict[str, list[str]]] = {q: {} for q in QUANTITIES}
    for reading in readings:
        for quantity, standing in compare(reading, rows[reading.run_id]).items():
            out[quantity].setdefault(standing, []).append(reading.run_id)
    return out
