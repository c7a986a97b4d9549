"""``sscbench release diff A B``: what changed between two releases' evidence.

A release is what ``sscbench release STUDY`` wrote: ``STUDY/release/evidence.json``.
``A`` and ``B`` may each name that ``release/`` folder or the study holding it. Nothing
is run, measured or assessed anew: the comparison reads the two files only.

Three comparisons, per agent configuration and family (rows either release lacks are kept,
with that side empty):

* **metrics** — the six reliability measures of the essay: activation, detection,
  containment, escape and recovery as ``k/n estimate [low, high]`` on each side, B − A
  and whether the two intervals overlap; detection latency (ledger steps) as each side's
  median and min–max with B − A of the medians (a range, not an interval: no overlap);
* **transfer** — per checkpoint, P(checkpoint invalid | activated) on each side, B − A
  and overlap, with each side's first invalid checkpoint;
* **controls** — the negative controls' escape and intervention rates (runs with no
  fault injected: both should be 0) and the unsolvable trials' completion rate (a
  completion is a failure), each side's interval, B − A and overlap. A release written
  before these were kept has no rows on its side (shown empty, not as zero).

A folder that holds no ``evidence.json`` is refused, naming the folder; an
``evidence.json`` that is not release evidence is refused, naming the file and field;
one whose seal (:mod:`sscbench.core.seals`) is missing or no longer matches its content
(an edited escape count) is refused, naming the file: a diff compares only releases as
``sscbench release`` wrote them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sscbench.analysis.overlap import number, overlap
from sscbench.core.seals import check_seal
from sscbench.errors import DataError
from sscbench.reading import read_json
from sscbench.release.evidence import METRICS
from sscbench.release.evidence_file import check_evidence

EVIDENCE = "evidence.json"
LATENCY = "latency"
SIX_METRICS = (*METRICS, LATENCY)
"""The essay's six measures, in the order the diff lists them."""
_KEY = ("config_id", "family")
CONTROL_TABLES = {
    "negative_controls": ("escape", "intervention"),
    "unsolvable": ("completion",),
}
"""The control tables the diff compares and the rates (``rates`` in evidence.json) of each."""


def evidence_file(folder: str | Path) -> Path:
    """The ``evidence.json`` of a release folder, or of a study's ``release/`` folder;
    a DataError naming ``folder`` when it holds neither."""
    root = Path(folder)
    if not root.is_dir():
        raise DataError(root, None, "no such folder: expected a release (or study) folder")
    for path in (root / EVIDENCE, root / "release" / EVIDENCE):
        if path.is_file():
            return path
    raise DataError(
        root,
        None,
        f"not a release: neither {EVIDENCE} nor release/{EVIDENCE} is here "
        "(run `sscbench release STUDY` first)",
    )


def _rows(data: Any, path: Path, name: str) -> list[dict[str, Any]]:
    """The list ``data[name]`` whose rows each name a configuration and a family."""
    rows = data.get(name) if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise DataError(path, name, "expected a list: this is not release evidence")
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in _KEY):
            raise DataError(path, f"{name}[{index}]", "expected config_id and family")
    return rows


def read_release(folder: str | Path) -> dict[str, Any]:
    """The families, transfer, negative-control and unsolvable rows of one release
    (``path``: the file read). A release written before the controls were kept has no
    control rows: its side of those comparisons is shown empty, never as zero."""
    path = evidence_file(folder)
    data = read_json(path)
    families, transfer = _rows(data, path, "families"), _rows(data, path, "transfer")
    controls = {name: _rows(data, path, name) if name in data else None for name in CONTROL_TABLES}
    check_evidence(path, data)
    check_seal(path, data, f"run `sscbench release STUDY` to write {path.name} anew")
    return {"path": str(path), "families": families, "transfer": transfer, **controls}


def _keyed(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Rows by (configuration, family); intensity levels are compared by their curves."""
    return {(r["config_id"], r["family"]): r for r in rows if not r.get("level")}


def _side(interval: Any) -> dict[str, Any]:
    """One side's interval as the diff shows it (empty when the side lacks it)."""
    if not isinstance(interval, dict):
        return {"label": None, "estimate": None, "low": None, "high": None, "n": None}
    return {
        "label": interval.get("label"),
        "estimate": number(interval.get("estimate")),
        "low": number(interval.get("low")),
        "high": number(interval.get("high")),
        "n": interval.get("denominator"),
    }


def compare_intervals(a: Any, b: Any) -> dict[str, Any]:
    """A's and B's interval, B − A of the estimates and whether the intervals overlap
    (None where either side is missing or unobserved)."""
    one, two = _side(a), _side(b)
    difference = None
    if one["estimate"] is not None and two["estimate"] is not None:
        difference = two["estimate"] - one["estimate"]
    both = isinstance(a, dict) and isinstance(b, dict)
    return {
        "a": one,
        "b": two,
        "difference": difference,
        "overlap": overlap(a, b) if both else None,
    }


def _latency(row: dict[str, Any] | None) -> dict[str, Any]:
    lat = row.get("latency") if row else None
    lat = lat if isinstance(lat, dict) else {}
    median, low, high = (number(lat.get(k)) for k in ("median", "min", "max"))
    label = None
    if median is not None:
        label = f"{median:g} [{low:g}–{high:g}] n={lat.get('n')}"
    elif row is not None:
        label = "no detection"
    return {"label": label, "estimate": median, "low": low, "high": high, "n": lat.get("n")}


def _latency_row(one: dict[str, Any] | None, two: dict[str, Any] | None) -> dict[str, Any]:
    a, b = _latency(one), _latency(two)
    difference = None
    if a["estimate"] is not None and b["estimate"] is not None:
        difference = b["estimate"] - a["estimate"]
    return {"a": a, "b": b, "difference": difference, "overlap": None}


def metric_rows(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (configuration, family, metric) of either release (six metrics)."""
    left, right = _keyed(a), _keyed(b)
    out = []
    for key in sorted(set(left) | set(right)):
        one, two = left.get(key), right.get(key)
        only = None if one and two else ("a" if one else "b")
        for metric in METRICS:
            pair = compare_intervals(
                (one or {}).get("metrics", {}).get(metric),
                (two or {}).get("metrics", {}).get(metric),
            )
            out.append(
                {"config_id": key[0], "family": key[1], "metric": metric, "only": only, **pair}
            )
        out.append(
            {"config_id": key[0], "family": key[1], "metric": LATENCY, "only": only}
            | _latency_row(one, two)
        )
    return out


def transfer_rows(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (configuration, family, checkpoint) of either release's transfer matrix."""
    from sscbench.faults.typed import CHECKPOINTS

    left, right = _keyed(a), _keyed(b)
    out = []
    for key in sorted(set(left) | set(right)):
        one, two = left.get(key) or {}, right.get(key) or {}
        first = {"a": one.get("first_invalid"), "b": two.get("first_invalid")}
        for cp in CHECKPOINTS:
            pair = compare_intervals(
                one.get("invalid", {}).get(cp.value), two.get("invalid", {}).get(cp.value)
            )
            out.append(
                {"config_id": key[0], "family": key[1], "checkpoint": cp.value}
                | pair
                | {
                    "first_invalid": first,
                    "activated": {"a": one.get("activated"), "b": two.get("activated")},
                }
            )
    return out


_Tables = dict[str, list[dict[str, Any]] | None]


def control_rows(a: _Tables, b: _Tables) -> list[dict[str, Any]]:
    """One row per (table, configuration, family, rate) of either release's negative
    controls (escape, intervention) and unsolvable trials (completion): each side's
    ``rates`` interval, B − A and overlap. ``a``/``b``: ``{table: rows or None}``."""
    out = []
    for table, rates in CONTROL_TABLES.items():
        left, right = _keyed(a.get(table) or []), _keyed(b.get(table) or [])
        for key in sorted(set(left) | set(right)):
            one, two = left.get(key), right.get(key)
            only = None if one and two else ("a" if one else "b")
            for rate in rates:
                pair = compare_intervals(
                    (one or {}).get("rates", {}).get(rate), (two or {}).get("rates", {}).get(rate)
                )
                row = {"table": table, "config_id": key[0], "family": key[1], "rate": rate}
                out.append(row | {"only": only} | pair)
    return out


def release_diff(a: str | Path, b: str | Path) -> dict[str, Any]:
    """The comparison of releases ``a`` and ``b`` (the JSON document ``--out`` writes)."""
    one, two = read_release(a), read_release(b)
    return {
        "a": one["path"],
        "b": two["path"],
        "metrics": metric_rows(one["families"], two["families"]),
        "transfer": transfer_rows(one["transfer"], two["transfer"]),
        "controls": control_rows(
            {t: one[t] for t in CONTROL_TABLES}, {t: two[t] for t in CONTROL_TABLES}
        ),
        "controls_kept": {
            "a": one["negative_controls"] is not None,
            "b": two["negative_controls"] is not None,
        },
    }


def changed(row: dict[str, Any]) -> bool:
    """Whether a diff row differs between A and B (a side missing counts)."""
    return row["a"] != row["b"]


__all__ = [
    "CONTROL_TABLES",
    "EVIDENCE",
    "SIX_METRICS",
    "changed",
    "compare_intervals",
    "control_rows",
    "evidence_file",
    "metric_rows",
    "read_release",
    "release_diff",
    "transfer_rows",
]
