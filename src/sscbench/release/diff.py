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

from sscbench.analysis.overlap import number, overlap
from sscbench.core.seals import check_seal
from sscbench.errors import DataError
from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.reading import read_json
from sscbench.release.diff_rows import (
    Comparison,
    ControlDiff,
    MetricDiff,
    Only,
    Pair,
    Release,
    ReleaseDiff,
    Side,
    TransferDiff,
)
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


def _rows(data: JsonValue, path: Path, name: str) -> list[JsonObject]:
    """The list ``data[name]`` whose rows each name a configuration and a family."""
    rows = data.get(name) if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise DataError(path, name, "expected a list: this is not release evidence")
    out: list[JsonObject] = []
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in _KEY):
            raise DataError(path, f"{name}[{index}]", "expected config_id and family")
        out.append(row)
    return out


def _control(data: JsonValue, path: Path, name: str) -> list[JsonObject] | None:
    """A control table's rows, or None when the release was written without it."""
    return _rows(data, path, name) if isinstance(data, dict) and name in data else None


def read_release(folder: str | Path) -> Release:
    """The families, transfer, negative-control and unsolvable rows of one release
    (``path``: the file read). A release written before the controls were kept has no
    control rows: its side of those comparisons is shown empty, never as zero."""
    path = evidence_file(folder)
    data: JsonValue = read_json(path)
    families, transfer = _rows(data, path, "families"), _rows(data, path, "transfer")
    negative, unsolvable = (_control(data, path, name) for name in CONTROL_TABLES)
    check_evidence(path, data)
    check_seal(path, data, f"run `sscbench release STUDY` to write {path.name} anew")
    return {
        "path": str(path),
        "families": families,
        "transfer": transfer,
        "negative_controls": negative,
        "unsolvable": unsolvable,
    }


_Key = tuple[str, str]


def _keyed(rows: list[JsonObject]) -> dict[_Key, JsonObject]:
    """Rows by (configuration, family); intensity levels are compared by their curves.
    Every row was checked to name both (:func:`_rows`)."""
    return {(str(r["config_id"]), str(r["family"])): r for r in rows if not r.get("level")}


def _inner(row: JsonMapping | None, table: str, key: str) -> JsonValue:
    """``row[table][key]`` (None where the row, the table or the key is missing)."""
    inner = row.get(table) if row else None
    return inner.get(key) if isinstance(inner, dict) else None


def _side(interval: JsonValue) -> Side:
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


def compare_intervals(a: JsonValue, b: JsonValue) -> Comparison:
    """A's and B's interval, B − A of the estimates and whether the intervals overlap
    (None where either side is missing or unobserved)."""
    one, two = _side(a), _side(b)
    difference = None
    if one["estimate"] is not None and two["estimate"] is not None:
        difference = two["estimate"] - one["estimate"]
    return {
        "a": one,
        "b": two,
        "difference": difference,
        "overlap": overlap(a, b) if isinstance(a, dict) and isinstance(b, dict) else None,
    }


def _latency(row: JsonMapping | None) -> Side:
    lat = row.get("latency") if row else None
    lat = lat if isinstance(lat, dict) else {}
    median, low, high = (number(lat.get(k)) for k in ("median", "min", "max"))
    label = None
    if median is not None:
        label = f"{median:g} [{low:g}–{high:g}] n={lat.get('n')}"
    elif row is not None:
        label = "no detection"
    return {"label": label, "estimate": median, "low": low, "high": high, "n": lat.get("n")}


def _latency_row(one: JsonMapping | None, two: JsonMapping | None) -> Comparison:
    a, b = _latency(one), _latency(two)
    difference = None
    if a["estimate"] is not None and b["estimate"] is not None:
        difference = b["estimate"] - a["estimate"]
    return {"a": a, "b": b, "difference": difference, "overlap": None}


def metric_rows(a: list[JsonObject], b: list[JsonObject]) -> list[MetricDiff]:
    """One row per (configuration, family, metric) of either release (six metrics)."""
    left, right = _keyed(a), _keyed(b)
    out: list[MetricDiff] = []
    for key in sorted(set(left) | set(right)):
        one, two = left.get(key), right.get(key)
        only: Only = None if one and two else ("a" if one else "b")
        for metric in METRICS:
            pair = compare_intervals(_inner(one, "metrics", metric), _inner(two, "metrics", metric))
            out.append(
                {"config_id": key[0], "family": key[1], "metric": metric, "only": only, **pair}
            )
        latency = _latency_row(one, two)
        out.append(
            {"config_id": key[0], "family": key[1], "metric": LATENCY, "only": only, **latency}
        )
    return out


def transfer_rows(a: list[JsonObject], b: list[JsonObject]) -> list[TransferDiff]:
    """One row per (configuration, family, checkpoint) of either release's transfer matrix."""
    from sscbench.faults.typed import CHECKPOINTS

    left, right = _keyed(a), _keyed(b)
    out: list[TransferDiff] = []
    for key in sorted(set(left) | set(right)):
        one, two = left.get(key) or {}, right.get(key) or {}
        first: Pair = {"a": one.get("first_invalid"), "b": two.get("first_invalid")}
        for cp in CHECKPOINTS:
            pair = compare_intervals(
                _inner(one, "invalid", cp.value), _inner(two, "invalid", cp.value)
            )
            out.append(
                {
                    "config_id": key[0],
                    "family": key[1],
                    "checkpoint": cp.value,
                    **pair,
                    "first_invalid": first,
                    "activated": {"a": one.get("activated"), "b": two.get("activated")},
                }
            )
    return out


_Tables = dict[str, list[JsonObject] | None]


def control_rows(a: _Tables, b: _Tables) -> list[ControlDiff]:
    """One row per (table, configuration, family, rate) of either release's negative
    controls (escape, intervention) and unsolvable trials (completion): each side's
    ``rates`` interval, B − A and overlap. ``a``/``b``: ``{table: rows or None}``."""
    out: list[ControlDiff] = []
    for table, rates in CONTROL_TABLES.items():
        left, right = _keyed(a.get(table) or []), _keyed(b.get(table) or [])
        for key in sorted(set(left) | set(right)):
            one, two = left.get(key), right.get(key)
            only: Only = None if one and two else ("a" if one else "b")
            for rate in rates:
                pair = compare_intervals(_inner(one, "rates", rate), _inner(two, "rates", rate))
                out.append(
                    {
                        "table": table,
                        "config_id": key[0],
                        "family": key[1],
                        "rate": rate,
                        "only": only,
                        **pair,
                    }
                )
    return out


def _tables(release: Release) -> _Tables:
    return {"negative_controls": release["negative_controls"], "unsolvable": release["unsolvable"]}


def release_diff(a: str | Path, b: str | Path) -> ReleaseDiff:
    """The comparison of releases ``a`` and ``b`` (the JSON document ``--out`` writes)."""
    one, two = read_release(a), read_release(b)
    return {
        "a": one["path"],
        "b": two["path"],
        "metrics": metric_rows(one["families"], two["families"]),
        "transfer": transfer_rows(one["transfer"], two["transfer"]),
        "controls": control_rows(_tables(one), _tables(two)),
        "controls_kept": {
            "a": one["negative_controls"] is not None,
            "b": two["negative_controls"] is not None,
        },
    }


def changed(row: Comparison) -> bool:
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
