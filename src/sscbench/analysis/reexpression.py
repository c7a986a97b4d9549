"""Adoption re-expressed as counts on the same evaluable runs (paper §V, "Analysis").

The paper re-expresses WriteEffect's r0 runs as three nested counts among one
population — adopted, adopted with eventual counterevidence, adopted with counterevidence
before the first dependent use (101 → 44 → 17 of 141) — not as three conditional rates
over three different populations. :func:`reexpression` gives those counts per operator
and configuration and pooled, with the rest of the adopted runs split so every adopted
run is in exactly one part: after first use, none observed (T_E = ∞), undecidable.
"""

from __future__ import annotations

from typing import Any

from sscbench.analysis.claims import EVALUABLE, POOLED, _evaluable
from sscbench.analysis.populations import faulted_rows
from sscbench.core.values import is_step
from sscbench.study.rows import MeasurementRow

Row = dict[str, Any]

#: the counts, in order; the first four nest, the last four split ``adopted``
COUNTS = (
    "evaluable",
    "adopted",
    "eventual_evidence",
    "evidence_before_use",
    "evidence_after_use",
    "evidence_absent",
    "evidence_undecidable",
)
WORDS = {
    "evaluable": "evaluable runs",
    "adopted": "adopted",
    "eventual_evidence": "adopted, with eventual counterevidence (T_E finite)",
    "evidence_before_use": "adopted, counterevidence before first use (T_E < T_S)",
    "evidence_after_use": "adopted, counterevidence at or after first use",
    "evidence_absent": "adopted, no counterevidence observed (T_E = ∞)",
    "evidence_undecidable": "adopted, T_E or its order with T_S undecidable",
}
POPULATION = f"{EVALUABLE} (the propagation claim's population)"


def _part(row: MeasurementRow) -> str:
    """Which part of the adopted runs an adopted run is in."""
    t_e, t_s = row.T_E, row.T_S
    if t_e == "inf":
        return "evidence_absent"
    if not (is_step(t_e) and is_step(t_s)):
        return "evidence_undecidable"
    return "evidence_before_use" if t_e < t_s else "evidence_after_use"


def counts_of(members: list[MeasurementRow]) -> dict[str, list[str]]:
    """The run ids behind each count among ``members`` (already evaluable runs)."""
    ids = lambda rs: [r.run_id for r in rs]  # noqa: E731
    adopted = [r for r in members if r.A == 1]
    parts = {r.run_id: _part(r) for r in adopted}
    out = {"evaluable": ids(members), "adopted": ids(adopted)}
    out["eventual_evidence"] = ids(r for r in adopted if is_step(r.T_E))
    for name in COUNTS[3:]:
        out[name] = [i for i in out["adopted"] if parts[i] == name]
    return out


def reexpression(rows: list[MeasurementRow]) -> list[Row]:
    """Per operator × configuration and per operator pooled over configurations: the
    counts of :data:`COUNTS` on one population (the evaluable runs), each with its run ids
    under ``runs``. ``evidence_before_use`` + ``evidence_after_use`` = ``eventual_evidence``
    whenever no adopted run has T_E located but T_S undecidable."""
    groups: dict[tuple[str, str | None], list[MeasurementRow]] = {}
    for r in faulted_rows(rows):
        if _evaluable(r):
            operator = r.operator or "?"
            groups.setdefault((operator, r.config_id), []).append(r)
            groups.setdefault((operator, POOLED), []).append(r)
    out = []
    for operator, config in sorted(groups, key=lambda k: (k[0], k[1] == POOLED, k[1])):
        runs = counts_of(groups[(operator, config)])
        out.append(
            {
                "population": POPULATION,
                "operator": operator,
                "config_id": config,
                **{name: len(runs[name]) for name in COUNTS},
                "runs": runs,
            }
        )
    return out
