"""Figures of the release evidence: intensity curves with their intervals.

Integer levels get integer ticks; configurations whose points coincide are drawn side by
side (a small horizontal offset, a marker of their own) and named in the panel, so no
line hides behind another.
"""

from __future__ import annotations

import itertools
import textwrap
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from sscbench.core.files import save_figure
from sscbench.release.evidence import CurvePoint

_METRICS = ("activation", "detection", "containment", "escape")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
Series = tuple[list[float], list[float], list[float], list[float]]


def _series(points: list[CurvePoint], metric: str) -> Series:
    """Levels, estimates and the two error-bar lengths of one configuration's points;
    unobserved levels are left out, not drawn as 0."""
    xs: list[float] = []
    ys: list[float] = []
    lo: list[float] = []
    hi: list[float] = []
    for p in sorted(points, key=lambda p: float(p.level)):
        iv = p.row.metrics[metric]
        if iv.estimate is None or iv.low is None or iv.high is None:
            continue
        xs.append(float(p.level))
        ys.append(iv.estimate)
        lo.append(iv.estimate - iv.low)
        hi.append(iv.high - iv.estimate)
    return xs, ys, lo, hi


def identical_groups(drawn: dict[str, Series]) -> list[list[str]]:
    """Configurations whose drawn series are equal, in groups of two or more."""
    groups: list[list[str]] = []
    for config_id, series in drawn.items():
        group = next((g for g in groups if drawn[g[0]] == series), None)
        if group is None:
            groups.append([config_id])
        else:
            group.append(config_id)
    return [g for g in groups if len(g) > 1]


def _panel(ax: Axes, by_config: dict[str, list[CurvePoint]], metric: str, step: float) -> str:
    """One metric of one (family, parameter): a line per configuration, offset apart;
    returns the note naming identical lines ("" when none)."""
    drawn = {c: _series(s, metric) for c, s in sorted(by_config.items())}
    drawn = {c: s for c, s in drawn.items() if s[0]}
    shift = step * 0.12 / max(len(by_config) - 1, 1)
    order = sorted(by_config)
    for config_id, (xs, ys, lo, hi) in drawn.items():
        i = order.index(config_id)
        dx = (i - (len(order) - 1) / 2) * shift
        ax.errorbar(
            [x + dx for x in xs],
            ys,
            yerr=[lo, hi],
            capsize=2,
            linewidth=1,
            marker=_MARKERS[i % len(_MARKERS)],
            markersize=4,
            label=config_id,
            color=f"C{i % 10}",
        )
    if not drawn:
        ax.text(
            0.5,
            0.5,
            "no observed level",
            transform=ax.transAxes,
            ha="center",
            fontsize=7,
            color="#666666",
        )
    same = identical_groups(drawn)
    words = "; ".join(" = ".join(g) for g in same)
    return "\n".join(textwrap.wrap(f"identical lines: {words}", 52)) if same else ""


def intensity_figure(points: list[CurvePoint], stem: Path) -> list[Path]:
    """Draw :func:`intensity_plot` and write it as ``stem``.png and .svg."""
    fig = intensity_plot(points)
    written = []
    for suffix in (".png", ".svg"):
        path = stem.with_suffix(suffix)
        save_figure(fig, path, dpi=110)
        written.append(path)
    plt.close(fig)
    return written


def intensity_plot(points: list[CurvePoint]) -> Figure:
    """One panel per (family, parameter) and metric: each metric's estimate and interval
    per level, one line per configuration (offset apart, identical lines named in the
    panel's title); ticks at exactly the levels run (integer levels, integer ticks); the
    legend sits below the panels. Returns the matplotlib figure."""
    panels: dict[tuple[str, str], list[CurvePoint]] = defaultdict(list)
    for p in points:
        panels[(p.family, p.parameter)].append(p)
    keys = sorted(panels)
    configs = sorted({p.config_id for p in points})
    fig, axes = plt.subplots(
        len(keys),
        len(_METRICS),
        squeeze=False,
        layout="constrained",
        figsize=(3.2 * len(_METRICS), 2.6 * len(keys) + 0.25 * len(configs) / 4 + 0.6),
    )
    for r, key in enumerate(keys):
        by_config: dict[str, list[CurvePoint]] = defaultdict(list)
        for p in panels[key]:
            by_config[p.config_id].append(p)
        levels = sorted({float(p.level) for p in panels[key]})
        gaps = [b - a for a, b in itertools.pairwise(levels)]
        step = min(gaps) if gaps else 1.0
        for c, metric in enumerate(_METRICS):
            ax = axes[r][c]
            note = _panel(ax, by_config, metric, step)
            ax.set_xticks(levels, [f"{v:g}" for v in levels])  # the levels run, nothing between
            ax.set_xlim(levels[0] - step / 2, levels[-1] + step / 2)
            ax.set_ylim(-0.05, 1.05)
            ax.set_title(
                f"{key[0]}: {metric}" + (f"\n{note}" if note else ""), fontsize=8, loc="left"
            )
            ax.set_xlabel(key[1], fontsize=8)
            ax.tick_params(labelsize=7)
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    if handles:
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=min(len(labels), 5),
            fontsize=7,
            frameon=False,
        )
    return fig
