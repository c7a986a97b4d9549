"""Figures of a study as PNG and SVG (matplotlib, no display)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from sscbench.analysis.populations import STRATA


def _save(fig: Any, folder: Path, name: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    fig.savefig(folder / f"{name}.png", dpi=110, bbox_inches="tight")
    fig.savefig(folder / f"{name}.svg", bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode((folder / f"{name}.png").read_bytes()).decode()


def funnel_figure(funnel: dict[str, int], folder: Path) -> str:
    """Execution funnel of faulted runs; returns the PNG as base64."""
    keys = ["scheduled", "observed", "triggered", "P"]
    fig, ax = plt.subplots(figsize=(6, 2.6))
    ax.barh(keys[::-1], [funnel[k] for k in keys[::-1]], color="#4c72b0")
    for i, k in enumerate(keys[::-1]):
        ax.text(funnel[k], i, f" {funnel[k]}", va="center")
    ax.set_xlabel("faulted runs")
    ax.set_title("Execution funnel")
    return _save(fig, folder, "funnel")


def arrival_figure(cells: list[dict[str, Any]], folder: Path) -> str:
    """Arrival shares (pre, late, absent) per operator × configuration."""
    labels = [f"{c['operator']} · {c['config_id']}" for c in cells]
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(cells) + 1.2))
    left = [0.0] * len(cells)
    colours = {"pre": "#55a868", "late": "#dd8452", "absent": "#c44e52"}
    for stratum in STRATA:
        shares = [c[f"arrival_{stratum}"].estimate or 0.0 for c in cells]
        ax.barh(labels, shares, left=left, color=colours[stratum], label=stratum)
        left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of runs with decidable arrival")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("Counterevidence arrival relative to first use")
    return _save(fig, folder, "arrival")


def forest_figure(cells: list[dict[str, Any]], folder: Path) -> str:
    """Adoption by arrival stratum with intervals; empty strata are left out (unobserved)."""
    points = []
    for c in cells:
        for stratum in STRATA:
            interval = c[f"a_{stratum}"]
            if interval.observed:
                points.append((f"{c['operator']} · {c['config_id']} · {stratum}", interval))
    fig, ax = plt.subplots(figsize=(7, 0.3 * max(len(points), 1) + 1.2))
    for i, (_, iv) in enumerate(points):
        ax.plot([iv.low, iv.high], [i, i], color="#4c72b0")
        ax.plot([iv.estimate], [i], "o", color="#4c72b0")
    ax.set_yticks(range(len(points)), [p[0] for p in points], fontsize=7)
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("adoption (95% interval)")
    ax.set_title("Adoption by arrival stratum")
    return _save(fig, folder, "adoption_forest")


def gap_figure(rows: list[dict[str, Any]], folder: Path) -> str:
    """Signed gap T_U − T_E among adopted runs, with a bar for absent evidence (∞)."""
    gaps: list[int] = []
    absent = 0
    for r in rows:
        if r.get("kind") != "faulted" or r.get("A") != 1 or not isinstance(r.get("T_U"), int):
            continue
        if isinstance(r.get("T_E"), int):
            gaps.append(r["T_U"] - r["T_E"])
        elif r.get("T_E") == "inf":
            absent += 1
    fig, ax = plt.subplots(figsize=(6, 2.8))
    if gaps:
        ax.hist(gaps, bins=min(30, max(5, len(set(gaps)))), color="#4c72b0")
    top = max(gaps) + 3 if gaps else 1
    ax.bar([top], [absent], width=1.5, color="#c44e52", label=f"∞ (absent): {absent}")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("T_U − T_E (steps; > 0: evidence before reliance)")
    ax.legend(fontsize=8)
    ax.set_title("Signed gap among adopted runs")
    return _save(fig, folder, "gap")


def q_u_figure(cells: list[dict[str, Any]], folder: Path) -> str:
    """q_U (evidence before first faulty reliance) by operator × configuration."""
    points = [(f"{c['operator']} · {c['config_id']}", c["q_U"]) for c in cells if c["q_U"].observed]
    fig, ax = plt.subplots(figsize=(7, 0.3 * max(len(points), 1) + 1.2))
    for i, (_, iv) in enumerate(points):
        ax.plot([iv.low, iv.high], [i, i], color="#8172b2")
        ax.plot([iv.estimate], [i], "D", color="#8172b2")
    ax.set_yticks(range(len(points)), [p[0] for p in points], fontsize=7)
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("q_U = P(T_E < T_U | adopted), 95% interval")
    ax.set_title("Counterevidence before first faulty reliance")
    return _save(fig, folder, "q_u")
