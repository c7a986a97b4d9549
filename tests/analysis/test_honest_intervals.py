"""Honest intervals (issue #28): never narrower than Wilson on the effective number of
clusters, never of zero width, the method and caveats named, the same rule everywhere."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.analysis.claims import claim_cards
from sscbench.analysis.effective import (
    CAVEAT_TEXT,
    CLUSTERED_TEXT,
    effective_size,
    wilson_bounds,
)
from sscbench.analysis.mcnemar import NO_DISCORDANT, mcnemar_exact
from sscbench.analysis.populations import caveat_text, interval_label
from sscbench.analysis.sensitivity import paired_comparison
from sscbench.analysis.stats import cluster_bootstrap, proportion_interval, wilson
from sscbench.study.rows import MeasurementRow

Z = 1.959963984540054


def _reference_n_eff(values: list[int], clusters: list[int]) -> float:
    """n / deff written out from the textbook ratio-estimator variance (no numpy)."""
    ids = sorted(set(clusters))
    m, n = len(ids), len(values)
    p = sum(values) / n
    if m < 2 or p in (0.0, 1.0):
        return float(m)
    resid = [
        sum(v for v, c in zip(values, clusters, strict=True) if c == i)
        - p * sum(1 for c in clusters if c == i)
        for i in ids
    ]
    var = m / (m - 1) * sum(r * r for r in resid) / n**2
    return n / max(1.0, var / (p * (1 - p) / n))


@st.composite
def repeated_runs(draw):
    """Clustered 0/1 data where some cluster has more than one run."""
    m = draw(st.integers(min_value=1, max_value=15))
    sizes = draw(st.lists(st.integers(1, 5), min_size=m, max_size=m))
    if max(sizes) == 1:
        sizes[0] = 2
    clusters = [c for c, size in enumerate(sizes) for _ in range(size)]
    values = draw(st.lists(st.integers(0, 1), min_size=len(clusters), max_size=len(clusters)))
    return values, clusters


@settings(max_examples=200, deadline=None)
@given(repeated_runs(), st.integers(0, 2**16))
def test_never_narrower_than_wilson_on_effective_clusters(data, seed):
    values, clusters = data
    iv = proportion_interval(values, clusters, b=200, seed=seed)
    n_eff = _reference_n_eff(values, clusters)
    assert iv.method == "clustered"
    assert iv.n_effective == pytest.approx(n_eff)
    low, high = wilson_bounds(sum(values) / len(values), n_eff, 0.95)
    assert iv.low <= low + 1e-12 and iv.high >= high - 1e-12
    # and never narrower than the bootstrap it envelops, never of zero width
    assert iv.low <= iv.bootstrap_low and iv.high >= iv.bootstrap_high
    assert iv.low < iv.high
    assert iv.low <= iv.estimate <= iv.high
    assert 1 <= iv.n_effective <= len(values)


def test_effective_size_of_fully_correlated_clusters_is_about_the_cluster_count():
    import numpy as np

    # 10 clusters of 5 runs, each all 0 or all 1: worth about m − 1 independent runs
    sums = np.array([5.0] * 4 + [0.0] * 6)
    counts = np.full(10, 5.0)
    deff, n_eff = effective_size(sums, counts)
    assert n_eff == pytest.approx(9.0) and deff == pytest.approx(50 / 9)


def test_identical_clusters_are_not_zero_width():
    # 40/48: eight tasks with 5 of 6 runs each; the bootstrap has zero width
    values = [1 if i % 6 else 0 for i in range(48)]
    clusters = [i // 6 for i in range(48)]
    assert cluster_bootstrap(values, clusters).width == 0.0
    iv = proportion_interval(values, clusters)
    assert iv.width > 0.2
    plain = wilson(40, 48)
    assert iv.low == pytest.approx(plain.low) and iv.high == pytest.approx(plain.high)
    assert iv.caveats == ("few clusters", "zero width")
    assert "83.3–83.3" not in iv.label()
    assert interval_label(iv).endswith("⚠ few clusters, zero width")
    assert "every bootstrap resample gave the same rate" in caveat_text(iv)


def test_boundary_over_repeated_runs_counts_each_cluster_once():
    # 0/28 over 14 tasks: not [0, 0] but Wilson 0/14
    iv = proportion_interval([0] * 28, [i // 2 for i in range(28)])
    assert iv.low == 0.0 and iv.high == pytest.approx(Z**2 / (14 + Z**2))
    assert iv.n_effective == 14 and iv.caveats == ("boundary",)


def _row(i: int, adopted: int, cluster: str, config: str = "x") -> MeasurementRow:
    return MeasurementRow.of({"kind": "faulted", "status": "completed", "triggered": True, "case_id": f"c{i}",
            "config_id": config, "repetition": 0, "operator": "PaySource", "cluster": cluster,
            "A": adopted, "run_id": f"r{i}"})  # fmt: skip


def test_claim_cards_never_store_low_equal_high_for_pooled_data():
    # 72/83 over 12 tasks, every task at its own rate: the pooled card's interval is
    # at least Wilson on the effective runs, and claims.json keeps low < high
    rows, i = [], 0
    adopted = [7, 7, 6, 6, 6, 6, 6, 5, 5, 6, 6, 6]
    for task, k in enumerate(adopted):
        for j in range(7 if task < 11 else 6):
            rows.append(_row(i, int(j < k), f"t{task}"))
            i += 1
    k = sum(r.A for r in rows)
    assert (k, len(rows)) == (72, 83)
    cards = [c for c in claim_cards(rows) if c["claim"] == "propagation"]
    for card in cards:
        assert card["low"] < card["high"] and card["method"] == "clustered"
        assert card["n_effective"] <= 83 and card["n_clusters"] == 12
        assert "clustered, n_eff" in card["label"]
        low, high = wilson_bounds(72 / 83, card["n_effective"], 0.95)
        assert card["low"] <= low + 1e-12 and card["high"] >= high - 1e-12


def test_mcnemar_with_no_discordant_pairs_is_one_with_a_note():
    assert mcnemar_exact(0, 0) == (1.0, NO_DISCORDANT)
    p, note = mcnemar_exact(8, 0)
    assert p == pytest.approx(2 * 0.5**8) and note == ""
    a = [_row(i, 1, f"c{i}") for i in range(5)]
    (result,) = paired_comparison(a, [r.model_copy() for r in a])
    assert result["mcnemar_exact_p"] == 1.0 and result["mcnemar_note"] == NO_DISCORDANT


def test_release_cells_name_the_method_and_explain_it_once():
    from sscbench.release.cli import _legend, _short
    from sscbench.release.evidence import PairedRow

    zero = proportion_interval([0] * 28, [i // 2 for i in range(28)])
    text = _short(zero)
    assert text.startswith("0/28 0.00 [0.00, 0.22] clustered, n_eff 14")
    assert text.endswith("⚠ boundary") and "[0.00, 0.00]" not in text
    assert _short(wilson(3, 10)).endswith("Wilson")
    family = SimpleNamespace(metrics={"escape": zero, "activation": wilson(3, 10)})
    paired = [PairedRow("x", "F", 3, 3, 3, 0, 0, *mcnemar_exact(0, 0))]
    lines = _legend(
        SimpleNamespace(
            families=[family], curves=[], paired=paired, negative_controls=[], unsolvable=[]
        )
    )
    assert any(line.startswith("clustered: ") for line in lines)
    assert f"⚠ boundary: {CAVEAT_TEXT['boundary']}." in lines
    assert any(NO_DISCORDANT in line for line in lines)


def test_report_tables_print_each_caveat_once():
    from sscbench.report.model import RunSets, Table, label_cell, rate

    iv = proportion_interval([1 if i % 6 else 0 for i in range(48)], [i // 6 for i in range(48)])
    table = Table("t", "caption", "population", ["a", "b"])
    sets = RunSets()
    for _ in range(5):
        table.add(rate(iv, sets, ["r1"], ["r1", "r2"]), label_cell(interval_label(iv)))
    notes = table.all_notes()
    assert notes == [f"{CLUSTERED_TEXT}.",
                     f"⚠ few clusters: {CAVEAT_TEXT['few clusters']}.",
                     f"⚠ zero width: {CAVEAT_TEXT['zero width']}."]  # fmt: skip
    for row in table.rows:
        for cell in row:
            text = "".join(p["t"] for p in cell)
            assert text.endswith("clustered, n_eff 48, 8 clusters) ⚠ few clusters, zero width")
            assert "every bootstrap resample" not in text
    assert math.isfinite(iv.n_effective)
