"""Figures of the release evidence: intensity curves with their intervals."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from sscbench.release.evidence import CurvePoint

_METRICS = ("activation", "detection", "containment", "escape")


def intensity_figure(points: list[CurvePoint], stem: Path) -> list[Path]:
    """One panel per (family, parameter): each metric's estimate and interval per level,
    one line per configuration. Unobserved levels are left out of a line, not drawn as 0."""
    panels: dict[tuple[str, str], list[CurvePoint]] = defaultdict(list)
    for p in points:
        panels[(p.family, p.parameter)].append(p)
    keys = sorted(panels)
    fig, axes = plt.subplots(
        len(keys), len(_METRICS), figsize=(3.2 * len(_METRICS), 2.8 * len(keys)), squeeze=False
    )
    for r, key in enumerate(keys):
        by_config: dict[str, list[CurvePoint]] = defaultdict(list)
        for p in panels[key]:
            by_config[p.config_id].append(p)
        for c, metric in enumerate(_METRICS):
            ax = axes[r][c]
            for config_id, series in sorted(by_config.items()):
                xs, ys, lo, hi = [], [], [], []
                for p in sorted(series, key=lambda p: float(p.level)):
                    iv = p.row.metrics[metric]
                    if iv.estimate is None or iv.low is None or iv.high is None:
                        continue
                    xs.append(float(p.level))
                    ys.append(iv.estimate)
                    lo.append(iv.estimate - iv.low)
                    hi.append(iv.high - iv.estimate)
                if xs:
                    ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=config_id)
            ax.set_ylim(-0.05, 1.05)
            ax.set_title(f"{key[0]}: {metric}", fontsize=8)
            ax.set_xlabel(key[1], fontsize=8)
            ax.tick_params(labelsize=7)
            if r == 0 and c == 0:
                ax.legend(fontsize=7)
    fig.tight_layout()
    written = []
    for suffix in (".png", ".svg"):
        path = stem.with_suffix(suffix)
        fig.savefig(path, dpi=110)
        written.append(path)
    plt.close(fig)
    return written
