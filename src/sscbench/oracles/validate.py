"""Scoring an oracle — an automated judge of adoption and of the T_U step — against
reference labels.

The oracle is any JSONL file with one row per run (``run_id``, ``A``, ``T_U``): the
rule-based ``measurements.jsonl``, an LLM classifier's measurements, or another
judge's output. The reference is either the scripted profiles' own calibration labels
(``calibration``) or a labels file of the same shape (e.g. human review).

Scores, overall and stratified by operator and by the reference arrival stratum:

* the semantic verdict — adoption precision, recall and F1 (positive = adopted), with
  Wilson intervals for precision and recall, and Cohen's kappa;
* the event location — among reference-adopted runs, T_U exactly right and within
  ±1 step.

An oracle that abstains (no row, ``A`` missing or undecidable, ``T_U`` undecidable)
is counted as wrong: an abstention on an adopted run is a false negative and a T_U
miss; on a non-adopted run it is a disagreement (it lowers kappa and accuracy but is
not a false positive). Abstentions are also counted on their own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from statsmodels.stats.inter_rater import cohens_kappa

from sscbench.analysis.populations import interval_label
from sscbench.analysis.stats import Interval, wilson
from sscbench.errors import DataError
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.jsonl import read_objects


def interval_cell(interval: Interval) -> JsonObject:
    """A proportion as numbers — ``k``, ``n``, estimate, bounds, method — with its label
    beside them for printing (the label is formatted here once, never parsed back)."""
    return {
        "k": int(interval.numerator),
        "n": interval.denominator,
        "estimate": interval.estimate,
        "low": interval.low,
        "high": interval.high,
        "method": interval.method,
        "label": interval_label(interval),
    }


def read_rows(path: str | Path) -> dict[str, JsonObject]:
    """Rows of a JSONL file by ``run_id`` (errors name the file and line)."""
    rows: dict[str, JsonObject] = {}
    for number, row in enumerate(read_objects(path), start=1):
        run_id = row.get("run_id")
        if not isinstance(run_id, str):
            raise DataError(path, f"row {number}", "each row needs a string 'run_id'")
        rows[run_id] = row
    return rows


def _adoption(value: object) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and value in (0, 1):
        return value
    return None  # undecidable or absent: an abstention


def _step(value: object) -> int | str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if value == "inf":
        return "inf"
    return None  # undecidable or absent: an abstention


@dataclass
class Tally:
    """Counts of one stratum."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    disagree_abstain: int = 0  # abstentions on reference-negative runs
    abstentions: int = 0
    located: int = 0  # reference-adopted runs (T_U finite in the reference)
    exact: int = 0
    within_one: int = 0
    pairs: list[tuple[int, int]] = field(default_factory=list)  # (reference, oracle or -1)

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn + self.disagree_abstain

    def scores(self) -> JsonObject:
        """Precision, recall, F1, kappa and location accuracy with their counts."""
        precision: Interval = wilson(self.tp, self.tp + self.fp)
        recall: Interval = wilson(self.tp, self.tp + self.fn)
        p, r = precision.estimate, recall.estimate
        f1 = None if p is None or r is None or p + r == 0 else 2 * p * r / (p + r)
        return {
            "runs": self.n,
            "abstentions": self.abstentions,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
            "precision": interval_cell(precision),
            "recall": interval_cell(recall),
            "f1": None if f1 is None else round(f1, 4),
            "kappa": _kappa(self.pairs),
            "t_u_exact": interval_cell(wilson(self.exact, self.located)),
            "t_u_within_1": interval_cell(wilson(self.within_one, self.located)),
        }


def _kappa(pairs: list[tuple[int, int]]) -> float | None:
    """Cohen's kappa over (reference, oracle), abstention being a category of its own;
    None when chance agreement is total (a single category)."""
    if not pairs:
        return None
    table = np.zeros((3, 3))  # index 0: abstained, 1: not adopted, 2: adopted
    for ref, got in pairs:
        table[ref + 1, got + 1] += 1
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(cohens_kappa(table, return_results=False))
    return round(value, 4) if np.isfinite(value) else None


def validate(
    oracle: Mapping[str, JsonMapping], reference: Mapping[str, JsonMapping]
) -> dict[str, JsonObject]:
    """Scores overall, ``operator:<name>`` and ``arrival:<stratum>`` for reference runs."""
    tallies: dict[str, Tally] = defaultdict(Tally)
    for run_id, ref in reference.items():
        ref_a = _adoption(ref.get("A"))
        if ref_a is None:
            continue  # an undecidable reference label scores nothing
        got = oracle.get(run_id, {})
        got_a = _adoption(got.get("A"))
        keys = ["all", f"operator:{ref.get('operator')}", f"arrival:{ref.get('Z_S')}"]
        for key in keys:
            t = tallies[key]
            t.pairs.append((ref_a, -1 if got_a is None else got_a))
            if got_a is None:
                t.abstentions += 1
                if ref_a == 1:
                    t.fn += 1
                else:
                    t.disagree_abstain += 1
            elif ref_a == 1 and got_a == 1:
                t.tp += 1
            elif ref_a == 1:
                t.fn += 1
            elif got_a == 1:
                t.fp += 1
            else:
                t.tn += 1
            ref_tu = _step(ref.get("T_U"))
            if ref_a == 1 and isinstance(ref_tu, int):
                t.located += 1
                got_tu = _step(got.get("T_U"))
                if isinstance(got_tu, int):
                    t.exact += got_tu == ref_tu
                    t.within_one += abs(got_tu - ref_tu) <= 1
    order = sorted(tallies, key=lambda k: (k != "all", k))
    return {key: tallies[key].scores() for key in order}


def with_strata(
    reference: Mapping[str, JsonMapping], measurements: Mapping[str, JsonMapping]
) -> dict[str, JsonObject]:
    """Fill a labels file's missing operator and arrival stratum from the measurements."""
    out: dict[str, JsonObject] = {}
    for run_id, row in reference.items():
        measured = measurements.get(run_id, {})
        out[run_id] = {
            "operator": measured.get("operator"),
            "Z_S": measured.get("Z_S"),
            **row,
        }
    return out


def calibration_reference(study: str | Path) -> dict[str, JsonObject]:
    """Reference labels from the scripted profiles' calibration labels (triggered runs)."""
    from sscbench.measure.calibrate import labelled_runs

    return {c.run_id: {"run_id": c.run_id, **c.labelled} for c in labelled_runs(study)}
