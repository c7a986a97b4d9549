"""The forest figure: every claim per configuration, a point and its interval per row.

One panel per claim (columns share the rows); the rows are blocks per operator, one row
per configuration in the study's order. Only configurations are drawn, never a pool: a
reader compares configurations side by side, as a paper's figure does. An empty
population is written ``unobserved (0/0)`` on its row, never drawn as 0 or 1. Each point
carries the SVG id ``point|claim|operator|configuration`` so its presence can be checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.axes import Axes

from sscbench.report.entries import Entry, number_at, text_at
from sscbench.report.figures import BLUE, STYLE, _save

NAME = "claims_forest"
CardKey = tuple[object, object, str]
"""A claim card's key: claim, operator, configuration."""


def forest_rows(cards: Sequence[Entry], order: list[str]) -> list[tuple[str, str | None]]:
    """The figure's rows top to bottom: ``(operator, None)`` heads a block, then
    ``(operator, configuration)`` per configuration with a card, in ``order``."""
    present = {
        (text_at(c, "operator"), str(c["config_id"])) for c in cards if not c.get("pooled_over")
    }
    rows: list[tuple[str, str | None]] = []
    for op in sorted({op for op, _ in present}):
        configs = [c for c in order if (op, c) in present]
        configs += sorted({c for o, c in present if o == op} - set(configs))
        rows += [(op, None), *((op, c) for c in configs)]
    return rows


def _panel(
    ax: Axes, claim: str, rows: list[tuple[str, str | None]], by_key: Mapping[CardKey, Entry]
) -> None:
    """One claim's panel: a point and interval per (operator, configuration) row."""
    for y, (op, config) in enumerate(rows):
        card = by_key.get((claim, op, config)) if config is not None else None
        if card is None:
            continue
        low, high = number_at(card, "low"), number_at(card, "high")
        estimate = number_at(card, "estimate") if "estimate" in card else None
        if card["status"] == "unobserved" or estimate is None or low is None or high is None:
            words = f"unobserved ({card['numerator']}/{card['denominator']})"
            ax.text(0.5, y, words, ha="center", va="center", color="#777777", fontsize=7)
            continue
        ax.plot(
            [low, high],
            [y, y],
            color=BLUE,
            linewidth=1.4,
            clip_on=False,
        )
        ax.plot(
            [estimate],
            [y],
            "o",
            color=BLUE,
            markersize=4,
            clip_on=False,
            gid=f"point|{claim}|{op}|{config}",
        )
        ax.text(1.05, y, f"{card['numerator']}/{card['denominator']}", va="center", fontsize=6.5)
    for y, (_, config) in enumerate(rows):
        if config is None and y:
            ax.axhline(y, color="#dddddd", linewidth=0.6)
    ax.set_xlim(-0.02, 1.02)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1])
    ax.set_xticklabels(["0", "25%", "50%", "75%", "100%"])
    ax.set_title(claim, wrap=True)
    ax.grid(axis="x", color="#eeeeee", linewidth=0.6)


def forest_figure(cards: Sequence[Entry], claims: list[str], order: list[str], folder: Path) -> str:
    """Every claim per configuration (point + 95% interval, k/n at right), one panel per
    claim, a row block per operator; writes ``figures/claims_forest.png|svg`` and returns
    the PNG as base64."""
    rows = forest_rows(cards, order)
    by_key = {(c["claim"], c["operator"], str(c["config_id"])): c for c in cards}
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(
            1,
            max(len(claims), 1),
            figsize=(2.9 * max(len(claims), 1) + 1.4, 0.24 * max(len(rows), 1) + 1.1),
            sharey=True,
            squeeze=False,
            layout="constrained",
        )
        for ax, claim in zip(axes[0], claims, strict=False):
            _panel(ax, claim, rows, by_key)
        first = axes[0][0]
        first.set_yticks(range(len(rows)))
        first.set_yticklabels([config or op for op, config in rows])
        for label, (_, config) in zip(first.get_yticklabels(), rows, strict=True):
            if config is None:
                label.set_fontweight("bold")
        first.set_ylim(len(rows) - 0.5, -0.5)
        fig.supxlabel("share of the claim's population (point: estimate; line: 95% CI)")
        return _save(fig, folder, NAME)


__all__ = ["NAME", "forest_figure", "forest_rows"]
