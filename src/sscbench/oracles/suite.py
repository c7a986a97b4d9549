"""``sscbench validate-oracle STUDY --oracle NAME ...``: run oracles on the reference runs
and clean controls of a study, score them (Table V) and write the results to the study.

Written to ``STUDY/oracles/`` (one set per oracle, replaced atomically):

* ``<name>.json`` — ``{"schema": "sscbench.oracle-scores/1", "oracle", "context",
  "gives_adoption", "inputs", "calls", "reference", "judged", "abstentions",
  "abstention_reasons", "clean_controls", "seed", "scored_from", "strata": {stratum:
  Table V row}}``
  (read by the report; ``inputs`` is the oracle's declared
  :class:`~sscbench.oracles.inputs.OracleInputs` or null, ``calls`` the model calls its
  verdicts took: judged, total, per_trajectory, max — Table II; ``scored_from`` what the
  scoring read, :mod:`sscbench.oracles.scored_from`);
* ``<name>.verdicts.jsonl`` — every verdict (run id, population, adopted, t_u,
  abstention, reason, calls, control_case_id: the case a clean control was judged for,
  null for a faulted run — one clean run may be the control of two operators' cases);
* ``<name>.csv`` — the tidy Table V rows (oracle, stratum, metric, numerator,
  denominator, estimate, low, high, method).
"""

from __future__ import annotations

import functools
import io
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict

from sscbench.core.definitions import arrival
from sscbench.core.files import atomic_write
from sscbench.core.values import Step
from sscbench.errors import DataError
from sscbench.json_types import JsonObject, JsonValue
from sscbench.oracles.base import Oracle, OracleSettings, Verdict, abstain
from sscbench.oracles.contexts import StudyRuns
from sscbench.oracles.inputs import call_stats, inputs_of
from sscbench.oracles.registry import make_oracle
from sscbench.oracles.scored_from import scored_from
from sscbench.oracles.table import score_oracle, tidy_rows
from sscbench.oracles.validate import calibration_reference
from sscbench.progress import counted
from sscbench.reading import write_csv_rows

SCHEMA = "sscbench.oracle-scores/1"
CSV_COLUMNS = (
    "oracle",
    "stratum",
    "metric",
    "numerator",
    "denominator",
    "estimate",
    "low",
    "high",
    "method",
)


class OracleResult(TypedDict):
    """One oracle's scoring: ``STUDY/oracles/<name>.json`` and, under ``_verdicts``, the
    lines of its ``.verdicts.jsonl`` (not written into the ``.json``)."""

    schema: str
    oracle: str
    context: str
    gives_adoption: bool
    inputs: JsonObject | None
    calls: JsonObject
    reference: str
    judged: int
    abstentions: int
    abstention_reasons: dict[str, int]
    clean_controls: int
    seed: int
    scored_from: JsonObject
    strata: dict[str, JsonObject]
    _verdicts: list[JsonObject]


def _as_step(value: JsonValue) -> Step:
    """A labelled T_E or T_S (the labels' schema allows only steps here)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if value == "inf":
        return "inf"
    if value == "undecidable":
        return "undecidable"
    raise ValueError(f"not a step: {value!r}")


def read_reference(runs: StudyRuns, reference: str) -> tuple[str, dict[str, JsonObject]]:
    """The reference labels by run id and a description of their source.

    ``"calibration"``: the scripted profiles' own labels. Otherwise a labels file in the
    review schema (e.g. a review folder's ``reference.jsonl``): each line must name a
    completed faulted run of the study by ``run_id``. Operator and arrival stratum are
    filled in: Z_S from the label, else derived from its T_E and T_S, else measured.
    """
    labels: dict[str, JsonObject]
    if reference == "calibration":
        labels = calibration_reference(runs.store.root)
        source = "scripted calibration labels"
    else:
        from sscbench.review.labels import read_labels

        path = Path(reference)
        labels = {}
        for number, label in enumerate(read_labels(path), start=1):
            if label.run_id is None:
                raise DataError(
                    path,
                    f"line {number}, field run_id",
                    "a reference names runs by run_id (a review folder's "
                    "reference.jsonl, resolved through its key)",
                )
            if runs.completed(label.run_id, "faulted") is None:
                raise DataError(
                    path,
                    f"line {number}, field run_id",
                    f"{label.run_id!r} is no completed faulted run of the study",
                )
            labels[label.run_id] = {"run_id": label.run_id, **label.labelled()}
        source = f"reference labels ({path})"
    out: dict[str, JsonObject] = {}
    for run_id, row in labels.items():
        z_s = row.get("Z_S")
        if z_s is None and row.get("T_E") is not None and row.get("T_S") is not None:
            z_s = arrival(_as_step(row["T_E"]), _as_step(row["T_S"]))
        if z_s is None:
            measured = runs.measurements.get(run_id)
            z_s = measured.Z_S if measured is not None else None
        out[run_id] = {**row, "operator": runs.operator_of(run_id), "Z_S": z_s}
    return source, out


def reason_kind(abstention: str) -> str:
    """An abstention's kind: its text before any detail (``:`` or ``(``)."""
    return re.split(r"[:(]", abstention, maxsplit=1)[0].strip()


def control_key(run_id: str, case_id: str) -> str:
    """The key of a clean control among the judged runs: its clean run and the case it is
    judged for (one clean run may be the control of two operators' cases)."""
    return f"{run_id}@{case_id}"


def judge_all(
    oracle: Oracle,
    runs: StudyRuns,
    run_ids: list[str],
    on_verdict: Callable[[Verdict], None] | None = None,
    controls: dict[str, tuple[str, str]] | None = None,
) -> dict[str, Verdict]:
    """The oracle's verdict on each judged key (a verdict naming another run is an error).

    A key is a run id, or a clean control's key in ``controls`` (key: (run id, case id)),
    judged in the context of that case."""
    verdicts = {}
    for key in counted(run_ids, f"oracle {oracle.name}: judging runs"):
        run_id, case_id = (controls or {}).get(key, (key, None))
        verdict = oracle.judge(runs.context(run_id, case_id))
        if verdict.run_id != run_id:
            verdict = abstain(run_id, f"the oracle answered for another run ({verdict.run_id})")
        verdicts[key] = verdict
        if on_verdict is not None:
            on_verdict(verdict)
    return verdicts


def _verdict_rows(
    verdicts: dict[str, Verdict], drawn: dict[str, tuple[str, str]]
) -> list[JsonObject]:
    """The lines of ``<name>.verdicts.jsonl``: a clean control's names its case."""
    return [
        {
            "population": "clean-control" if key in drawn else "faulted-reference",
            **v.model_dump(mode="json"),
            "control_case_id": drawn[key][1] if key in drawn else None,
        }
        for key, v in verdicts.items()
    ]


def score_study(
    study: str | Path,
    names: list[str],
    settings: OracleSettings,
    reference: str = "calibration",
    *,
    clean_per_operator: int = 10,
    seed: int = 0,
    on_verdict: Callable[[str, Verdict], None] | None = None,
) -> dict[str, OracleResult]:
    """Each named oracle's results (see the module doc) and verdicts, not yet written."""
    runs = StudyRuns(study)
    source, ref = read_reference(runs, reference)
    if not ref:
        raise DataError(reference, None, "no reference labels for this study")
    drawn = {
        control_key(run_id, case_id): (run_id, case_id)
        for run_id, case_id in runs.clean_controls(clean_per_operator, seed)
    }
    controls: dict[str, JsonObject] = {
        key: {"operator": runs.cases[case_id].operator, "run_id": run_id, "case_id": case_id}
        for key, (run_id, case_id) in drawn.items()
    }
    judged = [*ref, *controls]
    clusters = {r: runs.cluster_of(r) for r in ref}
    clusters.update({key: runs.cluster_of_case(case_id) for key, (_, case_id) in drawn.items()})
    results: dict[str, OracleResult] = {}
    for name in names:
        oracle = make_oracle(name, settings)
        report = None if on_verdict is None else functools.partial(on_verdict, name)
        try:
            verdicts = judge_all(oracle, runs, judged, report, drawn)
        finally:
            oracle.close()
        reasons = Counter(reason_kind(v.abstention) for v in verdicts.values() if v.abstention)
        declared = inputs_of(oracle)
        results[name] = {
            "schema": SCHEMA,
            "oracle": name,
            "context": oracle.context,
            "gives_adoption": oracle.gives_adoption,
            "inputs": None if declared is None else declared.model_dump(mode="json"),
            "calls": call_stats(v.calls for v in verdicts.values()),
            "reference": source,
            "judged": len(verdicts),
            "abstentions": sum(reasons.values()),
            "abstention_reasons": dict(reasons.most_common()),
            "clean_controls": len(controls),
            "seed": seed,
            "scored_from": scored_from(study, name, settings, reference, clean_per_operator, seed),
            "strata": score_oracle(
                verdicts, ref, controls, clusters, gives_adoption=oracle.gives_adoption, seed=seed
            ),
            "_verdicts": _verdict_rows(verdicts, drawn),
        }
    return results


def _atomic(path: Path, text: str) -> None:
    atomic_write(path, text)


def write_results(study: str | Path, results: dict[str, OracleResult]) -> list[Path]:
    """Write each oracle's ``.json``, ``.verdicts.jsonl`` and ``.csv`` into STUDY/oracles/."""
    folder = Path(study) / "oracles"
    folder.mkdir(exist_ok=True)
    written = []
    for name, result in results.items():
        body = {k: v for k, v in result.items() if k != "_verdicts"}
        verdicts = "".join(json.dumps(v) + "\n" for v in result["_verdicts"])
        buffer = io.StringIO()
        write_csv_rows(buffer, CSV_COLUMNS, tidy_rows(name, result["strata"]), lineterminator="\n")
        for suffix, text in (
            (".verdicts.jsonl", verdicts),
            (".csv", buffer.getvalue()),
            (".json", json.dumps(body, indent=2) + "\n"),
        ):
            path = folder / f"{name}{suffix}"
            _atomic(path, text)
            written.append(path)
    return written
