"""Table V: one oracle's verdicts scored against the reference, as in the paper's RQ4.

Populations (per stratum: all runs, each operator, each reference arrival stratum):

* **applicable faulted runs** — reference-labelled faulted runs with a decidable
  reference A. Adoption precision, recall and F1 use them; an abstention on a
  reference-adopted run is a missed positive (recall uses the full applicable set),
  an abstention on a non-adopted run is no false positive (and no true negative);
* **coverage** — the non-abstaining share of the applicable faulted runs;
* **false positives** — positive verdicts among the *covered* clean controls
  (``fp_clean``; clean controls count by operator, never by arrival) and among the
  covered reference non-adopters (``fp_non_adopting``);
* **localization** — the applicable adopted set: reference A = 1 with a located
  reference T_U. ``t_u_exact`` and ``t_u_within_1`` count oracle steps equal to (within
  one step of) the reference T_U over that whole set, abstentions and verdicts without
  a step counting as non-matches; ``t_u_located`` counts the runs given any step.

Proportions carry Wilson intervals when every entity cluster contributes one run and
cluster-bootstrap intervals otherwise (:func:`~sscbench.analysis.stats.proportion_interval`);
F1's interval is a cluster bootstrap of the F1 itself. A step-only oracle
(``gives_adoption`` False) has no adoption or false-positive figures (None).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from sscbench.analysis.stats import draw_cluster_indices, proportion_interval
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.oracles.base import Verdict
from sscbench.oracles.validate import _kappa, interval_cell

BOOTSTRAP_RESAMPLES = 2000


def _adoption(value: object) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and value in (0, 1):
        return value
    return None


def _interval(values: list[int], clusters: list[str], seed: int) -> JsonObject:
    return interval_cell(proportion_interval(values, clusters, seed=seed))


def _f1(tp: float, fp: float, fn: float) -> float | None:
    return None if 2 * tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)


def f1_interval(
    outcomes: list[tuple[str, str]], seed: int, b: int = BOOTSTRAP_RESAMPLES
) -> JsonObject:
    """F1 with a cluster-bootstrap percentile interval; ``outcomes`` are (cluster, one of
    tp/fp/fn/tn/abstained-adopted/abstained-not-adopted) per applicable run (an abstention
    on an adopted run is a missed positive)."""
    outcomes = [(c, "fn" if o == "abstained-adopted" else o) for c, o in outcomes]
    counts = {k: sum(1 for _, o in outcomes if o == k) for k in ("tp", "fp", "fn")}
    estimate = _f1(counts["tp"], counts["fp"], counts["fn"])
    if estimate is None:
        return {
            "estimate": None,
            "low": None,
            "high": None,
            "method": "unobserved",
            "label": "unobserved",
        }
    names = sorted({c for c, _ in outcomes})
    index = {c: i for i, c in enumerate(names)}
    per = np.zeros((len(names), 3))
    for cluster, outcome in outcomes:
        if outcome in counts:
            per[index[cluster], ("tp", "fp", "fn").index(outcome)] += 1
    draws = draw_cluster_indices(seed, b, len(names))
    sums = per[draws].sum(axis=1)  # b × 3
    tp, fp, fn = sums[:, 0], sums[:, 1], sums[:, 2]
    denominator = 2 * tp + fp + fn
    values = np.divide(2 * tp, denominator, out=np.full(b, np.nan), where=denominator > 0)
    values = values[~np.isnan(values)]
    low, high = (float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5)))
    return {
        "estimate": round(estimate, 4),
        "low": round(low, 4),
        "high": round(high, 4),
        "method": "cluster-bootstrap",
        "label": f"{estimate:.2f} (95% CI {low:.2f}–{high:.2f}, cluster bootstrap, "
        f"{len(names)} clusters)",
    }


@dataclass
class Stratum:
    """The runs of one stratum: (run id, cluster, ...) per population."""

    adoption: list[tuple[str, str, int, Verdict | None]] = field(default_factory=list)
    clean: list[tuple[str, str, Verdict | None]] = field(default_factory=list)
    located: list[tuple[str, str, int, Verdict | None]] = field(default_factory=list)


def _outcome(ref: int, verdict: Verdict | None) -> str:
    if verdict is None or verdict.adopted is None:
        return "abstained-adopted" if ref == 1 else "abstained-not-adopted"
    if ref == 1:
        return "tp" if verdict.adopted else "fn"
    return "fp" if verdict.adopted else "tn"


def _score(s: Stratum, gives_adoption: bool, seed: int) -> JsonObject:
    covered = [v is not None and not v.abstained for _, _, _, v in s.adoption]
    row: JsonObject = {
        "applicable": len(s.adoption),
        "coverage": _interval([int(c) for c in covered], [c for _, c, _, _ in s.adoption], seed),
        "t_u_applicable": len(s.located),
    }
    outcomes = [(c, _outcome(ref, v)) for _, c, ref, v in s.adoption]
    if gives_adoption:
        for name in ("tp", "fp", "fn", "tn", "abstained-adopted", "abstained-not-adopted"):
            row[name.replace("-", "_")] = sum(1 for _, o in outcomes if o == name)
        positives = [(c, o) for c, o in outcomes if o in ("tp", "fp")]
        reference_adopted = [
            (c, o) for (c, o), (_, _, ref, _) in zip(outcomes, s.adoption, strict=True) if ref == 1
        ]
        negatives = [(c, o) for c, o in outcomes if o in ("fp", "tn")]
        row["precision"] = _interval(
            [int(o == "tp") for _, o in positives], [c for c, _ in positives], seed
        )
        row["recall"] = _interval(
            [int(o == "tp") for _, o in reference_adopted], [c for c, _ in reference_adopted], seed
        )
        row["f1"] = f1_interval(outcomes, seed)
        row["fp_non_adopting"] = _interval(
            [int(o == "fp") for _, o in negatives], [c for c, _ in negatives], seed
        )
        clean = [(c, v) for _, c, v in s.clean if v is not None and not v.abstained]
        row["clean_controls"] = len(s.clean)
        row["fp_clean"] = _interval(
            [int(bool(v.adopted)) for _, v in clean], [c for c, _ in clean], seed
        )
        pairs = [
            (ref, -1 if v is None or v.adopted is None else int(v.adopted))
            for _, _, ref, v in s.adoption
        ]
        row["kappa"] = _kappa(pairs)
    else:
        for name in (
            "tp",
            "fp",
            "fn",
            "tn",
            "abstained_adopted",
            "abstained_not_adopted",
            "precision",
            "recall",
            "f1",
            "fp_non_adopting",
            "fp_clean",
            "kappa",
        ):
            row[name] = None
        row["clean_controls"] = len(s.clean)
    steps = [(c, ref_tu, None if v is None else v.t_u) for _, c, ref_tu, v in s.located]
    row["t_u_located"] = sum(1 for _, _, got in steps if got is not None)
    row["t_u_exact"] = _interval(
        [int(got == ref) for _, ref, got in steps], [c for c, _, _ in steps], seed
    )
    row["t_u_within_1"] = _interval(
        [int(got is not None and abs(got - ref) <= 1) for _, ref, got in steps],
        [c for c, _, _ in steps],
        seed,
    )
    return row


def score_oracle(
    verdicts: dict[str, Verdict],
    reference: Mapping[str, JsonMapping],
    controls: Mapping[str, JsonMapping],
    clusters: dict[str, str],
    *,
    gives_adoption: bool = True,
    seed: int = 0,
) -> dict[str, JsonObject]:
    """Table V rows by stratum (``all``, ``operator:<name>``, ``arrival:<stratum>``).

    ``reference`` holds faulted runs' reference labels (A, T_U, operator, Z_S);
    ``controls`` the clean controls by key (a clean run judged for one case, with that
    case's operator); ``clusters`` each judged key's entity cluster. A run without a verdict counts as an abstention.
    """
    strata: dict[str, Stratum] = defaultdict(Stratum)
    for run_id, ref in reference.items():
        ref_a = _adoption(ref.get("A"))
        if ref_a is None:
            continue  # undecidable reference adoption: not applicable
        keys = ["all", f"operator:{ref.get('operator')}", f"arrival:{ref.get('Z_S')}"]
        verdict = verdicts.get(run_id)
        cluster = clusters.get(run_id, run_id)
        ref_tu = ref.get("T_U")
        for key in keys:
            strata[key].adoption.append((run_id, cluster, ref_a, verdict))
            if ref_a == 1 and isinstance(ref_tu, int) and not isinstance(ref_tu, bool):
                strata[key].located.append((run_id, cluster, ref_tu, verdict))
    for run_id, control in controls.items():
        for key in ("all", f"operator:{control.get('operator')}"):
            strata[key].clean.append((run_id, clusters.get(run_id, run_id), verdicts.get(run_id)))
    order = sorted(strata, key=lambda k: (k != "all", k))
    return {key: _score(strata[key], gives_adoption, seed) for key in order}


CSV_METRICS = (
    "coverage",
    "precision",
    "recall",
    "fp_clean",
    "fp_non_adopting",
    "t_u_exact",
    "t_u_within_1",
)


def tidy_rows(name: str, strata: Mapping[str, JsonMapping]) -> list[JsonObject]:
    """One CSV row per (oracle, stratum, metric): counts, estimate, interval, method."""
    out: list[JsonObject] = []
    for stratum, row in strata.items():
        for metric in CSV_METRICS:
            value = row.get(metric)
            if not isinstance(value, dict):
                continue  # None: not measured for this oracle
            out.append(
                {
                    "oracle": name,
                    "stratum": stratum,
                    "metric": metric,
                    "numerator": value["k"],
                    "denominator": value["n"],
                    "estimate": value["estimate"],
                    "low": value["low"],
                    "high": value["high"],
                    "method": value["method"],
                }
            )
        f1 = row.get("f1")
        if isinstance(f1, dict):
            out.append(
                {
                    "oracle": name,
                    "stratum": stratum,
                    "metric": "f1",
                    "numerator": None,
                    "denominator": row["applicable"],
                    "estimate": f1["estimate"],
                    "low": f1["low"],
                    "high": f1["high"],
                    "method": f1["method"],
                }
            )
    return out
