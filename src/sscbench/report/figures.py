"""Figures of a study as PNG and SVG (matplotlib, no display), one style readable in print.

Every figure draws the primary population only; panels per operator. Bars carry their
counts (the signed gap's bars are shares labelled k/n); the signed gap uses whole-step bins with ∞ (absent evidence) as a separate,
labelled bar off the numeric axis; empty adoption strata are marked 0/0/0.
"""

from __future__ import annotations

import base64
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.ticker import MaxNLocator
from matplotlib.typing import RcKeyType

from sscbench.analysis.populations import STRATA
from sscbench.analysis.stats import Interval
from sscbench.core.files import save_figure
from sscbench.progress import status
from sscbench.report.entries import Entry, int_at, interval_at, text_at

STYLE: dict[RcKeyType, float | str] = {
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.fonttype": "none",
    "savefig.dpi": 110,
}
COLOURS = {"pre": "#1b7837", "late": "#e08214", "absent": "#b2182b"}
BLUE = "#2c5d8f"


def _save(fig: Figure, folder: Path, name: str) -> str:
    status(f"report: figure {name}")
    folder.mkdir(parents=True, exist_ok=True)
    save_figure(fig, folder / f"{name}.png", bbox_inches="tight")
    save_figure(fig, folder / f"{name}.svg", bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode((folder / f"{name}.png").read_bytes()).decode()


def funnel_figure(funnel: Entry, folder: Path) -> str:
    """Execution funnel of the primary faulted runs; returns the PNG as base64."""
    keys = ["scheduled", "observed", "triggered", "P"][::-1]
    counts = [int_at(funnel, k) for k in keys]
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(6, 2.0))
        ax.barh(keys, counts, color=BLUE)
        for i, n in enumerate(counts):
            ax.text(n, i, f" {n}", va="center")
        ax.set_xlabel("faulted runs (repetition 0)")
        ax.set_xlim(0, max(int_at(funnel, "scheduled"), 1) * 1.15)
        return _save(fig, folder, "funnel")


def arrival_figure(cells: Sequence[Entry], folder: Path) -> str:
    """Arrival counts (pre, late, absent) per operator × configuration, counts on bars,
    legend outside the axes."""
    labels = [f"{c['operator']} · {c['config_id']}" for c in cells]
    counts = [{s: int_at(c, f"n_{s}") for s in STRATA} for c in cells]  # runs by stratum
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(7, 0.28 * max(len(cells), 1) + 1.0))
        left = [0.0] * len(cells)
        for stratum in STRATA:
            totals = [max(sum(c.values()), 1) for c in counts]
            shares = [c[stratum] / t for c, t in zip(counts, totals, strict=True)]
            ax.barh(labels, shares, left=left, color=COLOURS[stratum], label=stratum)
            for i, (c, share) in enumerate(zip(counts, shares, strict=True)):
                if c[stratum]:
                    ax.text(
                        left[i] + share / 2,
                        i,
                        str(c[stratum]),
                        ha="center",
                        va="center",
                        color="white",
                        fontsize=7,
                    )
            left = [a + b for a, b in zip(left, shares, strict=True)]
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of runs in P with decidable arrival (bar labels: runs)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
        return _save(fig, folder, "arrival")


def _interval_row(ax: Axes, y: float, iv: Interval, marker: str, filled: bool, colour: str) -> None:
    if iv.low is None or iv.high is None or iv.estimate is None:
        return  # drawn for observed intervals only: they have all three
    ax.plot([iv.low, iv.high], [y, y], color=colour, linewidth=1.2)
    ax.plot([iv.estimate], [y], marker, color=colour, markerfacecolor=colour if filled else "white")


def no_data(ax: Axes, words: str) -> None:
    """An empty panel says so in words instead of drawing an axis around nothing."""
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.text(0.5, 0.5, words, transform=ax.transAxes, ha="center", va="center", color="#666666")


def _rows_height(n: int) -> float:
    """Inches for a panel of ``n`` labelled rows: readable for one row and for fifty."""
    return 0.32 * max(n, 1) + 0.9


def _adoption_rows(left: Axes, right: Axes, mine: Sequence[Entry]) -> None:
    """One operator's rows: A_T/A_P at left, adoption per stratum at right, values beside."""
    for i, c in enumerate(mine):
        ap = interval_at(c, "A_P")
        for iv, filled, dy in ((interval_at(c, "A_T"), False, -0.15), (ap, True, 0.15)):
            if iv.observed:
                _interval_row(left, i + dy, iv, "D", filled, BLUE)
        words = (
            f"{ap.estimate:.0%} {ap.numerator}/{ap.denominator}/{ap.n_clusters}"
            if ap.observed
            else "0/0/0"
        )
        left.text(
            1.04,
            i,
            words,
            va="center",
            fontsize=7,
            transform=left.get_yaxis_transform(),
        )
        for j, s in enumerate(STRATA):
            iv, y = interval_at(c, f"a_{s}"), i + (j - 1) * 0.25
            if iv.observed:
                _interval_row(right, y, iv, "o", True, COLOURS[s])
                note = f"{iv.estimate:.0%} {iv.denominator}/{c[f'a_{s}_total']}/{iv.n_clusters}"
            else:
                note = "0/0/0 unobserved"
            right.text(
                1.04,
                y,
                f"{s}: {note}",
                va="center",
                fontsize=6,
                color=COLOURS[s],
                transform=right.get_yaxis_transform(),
            )


def adoption_figure(cells: Sequence[Entry], folder: Path) -> str:
    """Fig. 3: per operator, A_T (open) and A_P (filled) per configuration, and adoption
    per arrival stratum; values at right; empty strata marked 0/0/0. Panels grow with
    their rows and the layout is constrained, so titles never meet labels."""
    operators = sorted({text_at(c, "operator") for c in cells})
    heights = [_rows_height(len([c for c in cells if c["operator"] == op])) for op in operators]
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(
            max(len(operators), 1),
            2,
            figsize=(10, sum(heights) + 0.4 or 2),
            squeeze=False,
            gridspec_kw={"height_ratios": heights or [1]},
            layout=ConstrainedLayoutEngine(w_pad=0.15, h_pad=0.12, wspace=0.12),
        )
        if not operators:
            no_data(axes[0][0], "no triggered run")
            no_data(axes[0][1], "no triggered run")
        for row, op in enumerate(operators):
            mine = [c for c in cells if c["operator"] == op]
            left, right = axes[row]
            _adoption_rows(left, right, mine)
            for ax, title in ((left, "A_T (open) and A_P (filled)"), (right, "a_s by arrival")):
                ax.set_yticks(range(len(mine)), [str(c["config_id"]) for c in mine])
                ax.set_ylim(len(mine) - 0.5, -0.5)
                ax.set_xlim(-0.02, 1.02)
                ax.set_title(f"{op}: {title}", loc="left")
            left.set_xlabel("adoption (95% interval); right: A_P evaluable/total/clusters")
            right.set_xlabel("adoption (95% interval); right: rate evaluable/total/clusters")
        return _save(fig, folder, "adoption")


def gap_bars(values: list[int | str], n: int) -> list[tuple[int | str, float, str]]:
    """The signed-gap bars of one operator: (bin, share of its ``n`` adopted runs, label
    ``k/n``), whole-step bins in order, ∞ last. ``n`` counts every adopted run, also those
    whose order is undecidable, so the shares need not sum to 1."""
    counts = Counter(values)
    finite = sorted(k for k in counts if isinstance(k, int))
    bins: list[int | str] = [*finite, *(["inf"] if "inf" in counts else [])]
    return [(k, counts[k] / max(n, 1), f"{counts[k]}/{n}") for k in bins]


def _gap_panels(
    left: Axes, absent: Axes, op: str, values: list[int | str], n: int | None = None
) -> None:
    """The signed gap T_U − T_E in whole steps, with ∞ (absent evidence) apart; bar
    heights are shares of the operator's n adopted runs (default: those with a gap),
    labels k/n."""
    n = len(values) if n is None else n
    bars_of = gap_bars(values, n)
    finite = [b for b in bars_of if isinstance(b[0], int)]
    steps = [int(k) for k, _, _ in finite]
    left.set_title(f"{op}: signed gap (shares of n = {n} adopted runs)", loc="left")
    if not values:
        no_data(left, "no adopted run with a measured gap")
        no_data(absent, "")
        return
    colours = ["#1b7837" if k > 0 else "#b2182b" for k in steps]
    bars = left.bar(steps, [h for _, h, _ in finite], color=colours, width=0.8)
    left.bar_label(bars, labels=[w for _, _, w in finite], fontsize=7)
    left.set_xlim(min([0, *steps]) - 1, max([0, *steps]) + 1)  # also when every gap is ∞
    if max([0, *steps]) - min([0, *steps]) <= 12:
        left.set_xticks(sorted({0, *steps}))
    else:  # a tick on every bar would collide: whole steps, a few of them
        left.xaxis.set_major_locator(MaxNLocator(nbins=10, integer=True))
    left.axvline(0, color="black", linewidth=0.6)
    left.set_xlabel("T_U − T_E in whole steps (> 0: evidence before reliance)")
    left.set_ylabel("share of adopted runs (labels: k/n)")
    top = max([h for _, h, _ in bars_of], default=1) * 1.18 or 1
    left.set_ylim(0, top)
    inf = [b for b in bars_of if b[0] == "inf"]
    inf_bar = absent.bar([0], [inf[0][1] if inf else 0], color="#777777", width=0.6)
    absent.bar_label(inf_bar, labels=[inf[0][2] if inf else f"0/{n}"], fontsize=7)
    absent.set_xticks([0], ["∞"])
    absent.set_xlim(-0.8, 0.8)
    absent.set_ylim(0, top)
    absent.set_yticks([])
    absent.spines["left"].set_visible(False)
    absent.set_xlabel("absent")


def _q_panel(right: Axes, op: str, mine: Sequence[Entry], pooled: Entry | None) -> None:
    """q_U per configuration with its interval and, last, the pooled diamond."""
    labels = [str(c["config_id"]) for c in mine] + (["pooled"] if pooled else [])
    for i, c in enumerate([*mine, pooled] if pooled else mine):
        iv = interval_at(c, "q_U")
        last = i == len(mine)
        if iv.observed:
            _interval_row(
                right, i, iv, "D" if last else "o", True, "#000000" if last else "#5e3c99"
            )
        note = (
            f"{iv.estimate:.0%} {iv.numerator}/{iv.denominator}/{iv.n_clusters}/{c['q_U_undecidable']}"
            if iv.observed
            else f"0/0/0/{c['q_U_undecidable']} unobserved"
        )
        right.text(1.04, i, note, va="center", fontsize=7, transform=right.get_yaxis_transform())
    right.set_yticks(range(len(labels)), labels)
    right.set_ylim(len(labels) - 0.5, -0.5)
    right.set_xlim(-0.02, 1.02)
    right.set_xlabel("q_U (95% interval); right: rate before/n_q/k_q/u_q")
    right.set_title(f"{op}: q_U by configuration", loc="left")


def reliance_figure(
    gaps: dict[str, list[int | str]],
    q_cells: Sequence[Entry],
    pooled: Mapping[str, Entry],
    folder: Path,
    adopted: dict[str, int] | None = None,
) -> str:
    """Fig. 4: per operator, the signed gap T_U − T_E among adopted runs (whole-step
    bins, ∞ a separate labelled bar, heights the share of the operator's ``adopted``
    runs — by default those with a measured gap — labelled k/n; an operator without adopted runs
    says so instead of an empty axis) and q_U per configuration with its interval and
    a pooled diamond. Rows grow with the number of configurations."""
    operators = sorted(set(gaps) | {text_at(c, "operator") for c in q_cells})
    heights = [
        max(2.2, _rows_height(len([c for c in q_cells if c["operator"] == op]) + 1))
        for op in operators
    ]
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(
            max(len(operators), 1),
            3,
            figsize=(11, sum(heights) + 0.4 or 2),
            squeeze=False,
            gridspec_kw={"width_ratios": [5, 0.8, 5], "height_ratios": heights or [1]},
            layout=ConstrainedLayoutEngine(w_pad=0.1, h_pad=0.12, wspace=0.08),
        )
        if not operators:
            for ax in axes[0]:
                no_data(ax, "")
            axes[0][0].text(0.5, 0.5, "no adopted run", transform=axes[0][0].transAxes)
        for row, op in enumerate(operators):
            left, absent, right = axes[row]
            mine_gaps = gaps.get(op, [])
            _gap_panels(left, absent, op, mine_gaps, (adopted or {}).get(op, len(mine_gaps)))
            mine = [c for c in q_cells if c["operator"] == op]
            _q_panel(right, op, mine, pooled.get(op))
        return _save(fig, folder, "reliance")
