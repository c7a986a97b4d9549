"""Interval estimators of sscbench.analysis.stats."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from sscbench.analysis.stats import (
    Interval,
    cluster_bootstrap,
    draw_cluster_indices,
    proportion_interval,
    wilson,
)

# ---------------------------------------------------------------- Wilson

WILSON_CASES = [
    (k, n) for n in (1, 2, 3, 5, 10, 17, 30, 100, 1000) for k in {0, 1, n // 2, n - 1, n}
]


@pytest.mark.parametrize(("k", "n"), WILSON_CASES)
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_matches_statsmodels(k: int, n: int, confidence: float) -> None:
    got = wilson(k, n, confidence)
    lo, hi = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    assert got.method == "wilson"
    assert got.low == pytest.approx(lo, abs=1e-12)
    assert got.high == pytest.approx(hi, abs=1e-12)
    assert got.estimate == k / n
    assert (got.numerator, got.denominator, got.n_clusters) == (k, n, n)
    assert 0.0 <= got.low <= got.estimate <= got.high <= 1.0


def test_wilson_boundaries_are_exact() -> None:
    assert wilson(0, 7).low == 0.0
    assert wilson(7, 7).high == 1.0
    one = wilson(1, 1)
    assert one.estimate == 1.0 and one.high == 1.0 and 0.0 < one.low < 1.0


def test_wilson_label_and_dict() -> None:
    iv = wilson(12, 30)
    assert iv.label() == "12/30 (40.0%, 95% CI 24.6–57.7%, Wilson)"
    d = iv.to_dict()
    assert d["method"] == "wilson" and d["numerator"] == 12 and d["denominator"] == 30
    assert d["width"] == pytest.approx(iv.high - iv.low)
    with pytest.raises(AttributeError):
        iv.low = 0.0  # type: ignore[misc]


def test_wilson_empty_is_unobserved() -> None:
    iv = wilson(0, 0)
    assert iv.method == "unobserved"
    assert iv.estimate is None and iv.low is None and iv.high is None and iv.width is None
    assert iv.label() == "unobserved (0/0)"


@pytest.mark.parametrize(("k", "n"), [(-1, 3), (4, 3), (0, -1)])
def test_wilson_rejects_bad_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson(k, n)


# ---------------------------------------------------------------- cluster bootstrap


def reference_cluster_bootstrap(values, clusters, *, b, seed, confidence=0.95):
    """Slow, obviously correct: the same index matrix, then plain Python loops."""
    order: list = []
    members: dict = {}
    for v, c in zip(values, clusters, strict=True):
        if c not in members:
            members[c] = []
            order.append(c)
        members[c].append(float(v))
    n_clusters = len(order)
    # slot j of resample i: floor(U[j][i] * n), U drawn slot by slot from the seed
    uniforms = np.random.default_rng(seed).random((n_clusters, b)).tolist()
    idx = [[math.floor(uniforms[j][i] * n_clusters) for j in range(n_clusters)] for i in range(b)]
    ratios = []
    for row in idx:
        total = 0.0
        runs = 0
        for j in row:
            for v in members[order[j]]:
                total += v
                runs += 1
        ratios.append(total / runs)
    alpha = 1 - confidence
    low, high = np.quantile(np.array(ratios), [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def _clustered(rng: np.random.Generator, n_clusters: int, mean_size: float, p: float):
    sizes = 1 + rng.poisson(mean_size - 1, size=n_clusters)
    clusters = [f"c{i}" for i, s in enumerate(sizes) for _ in range(s)]
    # per-cluster propensity so that clustering matters
    probs = np.clip(rng.normal(p, 0.2, size=n_clusters), 0, 1)
    values = [bool(rng.random() < probs[i]) for i, s in enumerate(sizes) for _ in range(s)]
    order = rng.permutation(len(values))
    return [values[i] for i in order], [clusters[i] for i in order]


@pytest.mark.parametrize(
    ("n_clusters", "mean_size", "p", "b", "seed"),
    [
        (1, 3, 0.5, 50, 0),
        (2, 2, 0.5, 200, 1),
        (7, 3, 0.3, 500, 2),
        (40, 3, 0.6, 1000, 3),
        (25, 1.5, 0.05, 300, 4),
        (3000, 2, 0.5, 7, 5),
    ],
)
def test_cluster_bootstrap_equals_reference(n_clusters, mean_size, p, b, seed) -> None:
    # (3000 clusters, b=7): the index matrix is drawn in several row blocks.
    values, clusters = _clustered(np.random.default_rng(100 + seed), n_clusters, mean_size, p)
    got = cluster_bootstrap(values, clusters, b=b, seed=seed)
    assert (got.low, got.high) == reference_cluster_bootstrap(values, clusters, b=b, seed=seed)
    assert got.method == "cluster-bootstrap"
    assert got.numerator == sum(values)
    assert got.denominator == len(values)
    assert got.n_clusters == len(set(clusters))
    assert got.estimate == pytest.approx(sum(values) / len(values))
    assert (got.resamples, got.seed) == (b, seed)


@pytest.mark.parametrize("scale", [0.25, 1.0, 3.0])
def test_cluster_bootstrap_fractional_and_integer_values_equal_reference(scale) -> None:
    # 0/1 data takes the packed integer gather, fractional data the float gather;
    # both must give the reference bounds bit for bit.
    values, clusters = _clustered(np.random.default_rng(7), 60, 3, 0.5)
    scaled = [float(v) * scale for v in values]
    got = cluster_bootstrap(scaled, clusters, b=400, seed=2)
    assert (got.low, got.high) == reference_cluster_bootstrap(scaled, clusters, b=400, seed=2)


def test_cluster_bootstrap_streamed_uniforms_equal_kept_ones(monkeypatch) -> None:
    import sscbench.analysis.stats as stats

    values, clusters = _clustered(np.random.default_rng(9), 50, 3, 0.4)
    stats._UNIFORMS.clear()
    whole = cluster_bootstrap(values, clusters, b=301, seed=11)
    monkeypatch.setattr(stats, "_UNIFORM_CACHE_BYTES", 8 * 301 * 10)  # too small to keep
    monkeypatch.setattr(stats, "_BLOCK_CELLS", 7 * 301)  # streamed in blocks of 7 slots
    monkeypatch.setattr(stats, "_SLOTS_PER_GATHER", 3)
    stats._UNIFORMS.clear()
    streamed = cluster_bootstrap(values, clusters, b=301, seed=11)
    assert (whole.low, whole.high) == (streamed.low, streamed.high)
    assert not stats._UNIFORMS  # streamed uniforms are not kept


def test_one_draw_serves_populations_of_every_size() -> None:
    import sscbench.analysis.stats as stats

    stats._UNIFORMS.clear()
    populations = [
        _clustered(np.random.default_rng(s), n, 2.5, 0.4) for s, n in ((1, 30), (2, 12), (3, 45))
    ]
    for values, clusters in populations:
        got = cluster_bootstrap(values, clusters, b=500, seed=4)
        assert (got.low, got.high) == reference_cluster_bootstrap(values, clusters, b=500, seed=4)
    ((key, (_, uniforms)),) = stats._UNIFORMS.items()
    # one draw of 30 slots, grown twofold to 60 when 45 were needed
    assert key == (4, 500) and uniforms.shape == (60, 500)
    # a smaller population after a larger one reads the prefix: same answer as fresh
    values, clusters = populations[0]
    kept = cluster_bootstrap(values, clusters, b=500, seed=4)
    stats._UNIFORMS.clear()
    assert cluster_bootstrap(values, clusters, b=500, seed=4) == kept


def test_resampling_indices_are_uniform() -> None:
    from scipy.stats import chisquare

    idx = draw_cluster_indices(seed=3, b=4000, n_clusters=7)
    assert idx.shape == (4000, 7) and idx.min() == 0 and idx.max() == 6
    counts = np.bincount(idx.ravel(), minlength=7)
    assert chisquare(counts).pvalue > 0.001
    # the same seed gives the same matrix; row i is resample i
    assert np.array_equal(idx, draw_cluster_indices(seed=3, b=4000, n_clusters=7))


def test_cluster_bootstrap_is_deterministic_and_seed_dependent() -> None:
    values, clusters = _clustered(np.random.default_rng(0), 30, 3, 0.5)
    a = cluster_bootstrap(values, clusters, seed=1)
    assert a == cluster_bootstrap(values, clusters, seed=1)
    assert any(
        (a.low, a.high) != (o.low, o.high)
        for o in (cluster_bootstrap(values, clusters, seed=s) for s in (2, 3, 4))
    )


def test_cluster_bootstrap_statistical_sanity() -> None:
    rng = np.random.default_rng(42)
    widths = []
    for n_clusters in (10, 40, 160, 640):
        values, clusters = _clustered(rng, n_clusters, 3, 0.4)
        iv = cluster_bootstrap(values, clusters, b=2000, seed=0)
        assert iv.low <= iv.estimate <= iv.high
        widths.append(iv.width)
    assert widths == sorted(widths, reverse=True)
    assert widths[-1] < widths[0] / 4  # roughly 1/sqrt(n): 8x clusters → ~1/8 width


def test_cluster_bootstrap_all_zero_boundary_is_degenerate() -> None:
    iv = cluster_bootstrap([0] * 9, [1, 1, 1, 2, 2, 2, 3, 3, 3], b=100)
    assert (iv.estimate, iv.low, iv.high) == (0.0, 0.0, 0.0)


def test_cluster_bootstrap_empty_is_unobserved() -> None:
    iv = cluster_bootstrap([], [])
    assert iv.method == "unobserved" and iv.estimate is None
    assert iv.label() == "unobserved (0/0)"


def test_cluster_bootstrap_rejects_mismatched_lengths() -> None:
    with pytest.raises(ValueError):
        cluster_bootstrap([1, 0], ["a"])


# ---------------------------------------------------------------- automatic choice


def test_one_run_per_cluster_uses_wilson() -> None:
    values = [True, False, True, True, False]
    iv = proportion_interval(values, ["a", "b", "c", "d", "e"])
    assert iv.method == "wilson"
    assert iv == wilson(3, 5)
    assert iv.label().endswith("Wilson)")


def test_repeated_clusters_envelop_the_cluster_bootstrap() -> None:
    # repeated runs: the cluster bootstrap, widened to Wilson on the effective runs
    values = [1, 0, 1, 1, 0, 1]
    clusters = ["a", "a", "b", "c", "c", "d"]
    iv = proportion_interval(values, clusters, b=500, seed=3)
    boot = cluster_bootstrap(values, clusters, b=500, seed=3)
    assert iv.method == "clustered"
    assert (iv.bootstrap_low, iv.bootstrap_high) == (boot.low, boot.high)
    assert iv.low <= boot.low and iv.high >= boot.high
    assert (iv.numerator, iv.denominator, iv.n_clusters) == (4, 6, 4)
    assert "clustered, n_eff " in iv.label() and "4 clusters" in iv.label()
    assert iv.label().startswith("4/6 (66.7%, 95% CI ")


def test_empty_is_unobserved_never_zero() -> None:
    iv = proportion_interval([], [])
    assert iv.method == "unobserved"
    assert iv.estimate is None and iv.low is None and iv.high is None
    assert "unobserved" in iv.label() and "0%" not in iv.label() and "0.0" not in iv.label()
    d = iv.to_dict()
    assert d["estimate"] is None and d["width"] is None and d["method"] == "unobserved"


def test_proportion_interval_rejects_non_binary() -> None:
    with pytest.raises(ValueError):
        proportion_interval([0.5, 1.0], ["a", "b"])


# ---------------------------------------------------------------- property


@st.composite
def clustered_data(draw):
    n = draw(st.integers(min_value=0, max_value=40))
    values = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    clusters = draw(st.lists(st.integers(min_value=0, max_value=12), min_size=n, max_size=n))
    return values, clusters


@settings(max_examples=150, deadline=None)
@given(clustered_data(), st.integers(min_value=0, max_value=2**32 - 1))
def test_interval_is_ordered_and_in_unit_range(data, seed) -> None:
    values, clusters = data
    iv = proportion_interval(values, clusters, b=200, seed=seed)
    assert isinstance(iv, Interval)
    if not values:
        assert iv.method == "unobserved"
        return
    assert 0.0 <= iv.low <= iv.high <= 1.0
    assert 0.0 <= iv.estimate <= 1.0
    if iv.method == "wilson":  # a percentile bootstrap need not contain its estimate
        assert iv.low <= iv.estimate <= iv.high
    assert iv.numerator == sum(values) and iv.denominator == len(values)
