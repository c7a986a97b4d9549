"""``sscbench report``: tables (CSV), claims.json, figures (PNG, SVG) and report.html."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from sscbench.analysis.claims import BUILT_IN, claim_cards
from sscbench.analysis.populations import cell_table, crossing_groups, faulted_rows, funnel
from sscbench.analysis.sensitivity import paired_comparison, sensitivity_table
from sscbench.analysis.stats import Interval
from sscbench.analysis.user_claims import load_claims
from sscbench.errors import DataError
from sscbench.jsonl import read_objects
from sscbench.report import figures
from sscbench.report.html import render


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.label() if isinstance(v, Interval) else v) for k, v in row.items()}


def _csv(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        if not rows:
            return
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def read_measurements(study: Path) -> list[dict[str, Any]]:
    """The study's measurement rows (run ``sscbench measure`` first)."""
    path = study / "measurements.jsonl"
    if not path.exists():
        raise DataError(path, None, "not found: run `sscbench measure` on the study first")
    return read_objects(path)


def build_report(
    study: str | Path, *, claims_file: str | Path | None = None, paired: str | Path | None = None
) -> Path:
    """Write the report files into the study directory; returns the HTML path.

    ``claims_file`` adds user-defined claims; ``paired`` names a second study whose runs
    are matched on (case, configuration, repetition) for a paired comparison.
    """
    study = Path(study)
    # runs of typed families carry no contract: they are reported as release evidence
    rows = [r for r in read_measurements(study) if r.get("Z_S") != "no-contract"]
    faulted = faulted_rows(rows)
    counts = funnel(faulted)
    cells = cell_table(rows)
    claims = BUILT_IN + (load_claims(claims_file) if claims_file else ())
    cards = claim_cards(rows, claims)
    sensitivity = sensitivity_table(rows)
    pairs = paired_comparison(rows, read_measurements(Path(paired))) if paired else []
    crossing = crossing_groups(rows)
    tables = study / "tables"
    _csv(tables / "funnel.csv", [counts])
    _csv(tables / "cells.csv", [_flat(c) for c in cells])
    _csv(tables / "claims.csv", cards)
    _csv(tables / "crossing.csv", [{**g, "strata": json.dumps(g["strata"])} for g in crossing])
    _csv(tables / "sensitivity.csv", sensitivity)
    if paired:
        _csv(tables / "paired.csv", pairs)
    (study / "claims.json").write_text(json.dumps(cards, indent=2), encoding="utf-8")
    folder = study / "figures"
    figs = [
        {
            "name": "funnel",
            "title": "Execution funnel",
            "png": figures.funnel_figure(counts, folder),
        },
        {
            "name": "arrival",
            "title": "Arrival by operator × configuration",
            "png": figures.arrival_figure(cells, folder),
        },
        {
            "name": "adoption_forest",
            "title": "Adoption by stratum (95% intervals)",
            "png": figures.forest_figure(cells, folder),
        },
        {
            "name": "gap",
            "title": "Signed gap T_U − T_E among adopted runs",
            "png": figures.gap_figure(faulted, folder),
        },
    ]
    flat_cells = [_flat(c) for c in cells]
    release = _release_section(study)
    html = render(
        {
            "name": study.name,
            "funnel": counts,
            "figures": figs,
            "claims": cards,
            "cells": flat_cells,
            "cell_columns": list(flat_cells[0]) if flat_cells else [],
            "crossing": crossing,
            "release": release,
        }
    )
    out = study / "report.html"
    out.write_text(html, encoding="utf-8")
    return out


def _release_section(study: Path) -> dict[str, Any] | None:
    """The typed families' evidence for the report (None when the study ran none)."""
    import base64

    from sscbench.faults.typed import CHECKPOINTS
    from sscbench.release.cli import write_outputs
    from sscbench.release.evidence import collect_evidence

    evidence = collect_evidence(study)
    if not evidence.families:
        return None
    written = write_outputs(evidence, study / "release")
    rows = []
    for r in evidence.families:
        lat = r.latency_summary()
        rows.append(
            {
                "configuration": r.config_id,
                "family": r.family,
                "severity": r.severity,
                "runs": r.scheduled,
                **{k: v.label() for k, v in r.metrics.items()},
                "latency median [min–max]": (
                    f"{lat['median']:g} [{lat['min']}–{lat['max']}]" if lat["n"] else "-"
                ),
            }
        )
    transfer = [
        {
            "configuration": t.config_id,
            "family": t.family,
            "activated": t.activated,
            **{cp.value: f"{t.invalid[cp.value].estimate or 0:.2f}" for cp in CHECKPOINTS},
            "outcome states": ", ".join(f"{k} {v}" for k, v in sorted(t.outcomes.items())),
        }
        for t in evidence.transfer
    ]
    png = next((p for p in written if p.name == "intensity.png"), None)
    return {
        "rows": rows,
        "columns": list(rows[0]),
        "transfer": transfer,
        "transfer_columns": list(transfer[0]) if transfer else [],
        "intensity_png": base64.b64encode(png.read_bytes()).decode() if png else None,
    }
