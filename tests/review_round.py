"""A full review round played by scripted reviewers, for tests (ours and the oracle suite's).

``build_review_round(study, out)`` plans a review of a measured study with reviewers
A, B and C, writes each reviewer's labels file as a reviewer's page would export it,
runs ``review agree``, writes the adjudicator D's file for the disputed items and
builds ``reference.jsonl``. It returns the review folder (``out/review``).

Every reviewer starts from the truth: the scripted profiles' own calibration labels
(what each agent logged it used, read and relied on; :mod:`sscbench.measure.calibrate`)
for T_E, T_S, T_U and A, and the measured Y_end (calibration labels carry no stance).
Then the designed disagreements below are applied, each on the first drawn item (in
review order, one item per pattern) that fits it. The adjudicator restores the truth,
so the reference equals the truth on every drawn item. ``out/design.json`` records the
truth and which item got which pattern, so a test can compute the expected κ by hand.

Designed disagreements (reviewer: change):

* ``A-flip``        — C: an adopted run (T_U a step) labelled A=false, T_U not applicable.
* ``T_S-undecidable`` — B: a run with a located T_S labelled T_S undecidable.
* ``T_U-late``      — B: another adopted run's T_U one step later.
* ``T_E-missed``    — A: a run with located T_E and T_S labelled T_E=∞ (Z_S → absent).
* ``A-undecidable`` — A: a non-adopting run labelled A undecidable.
* ``calibration``   — C: the first calibration run's A flipped (kept out of κ and reference).

Case questions: every reviewer answers "yes" to all four, except that C answers
"unsure" to ``sufficiency`` for the first case.

Keep the signature of ``build_review_round`` stable: other test files use it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REVIEWERS = ("A", "B", "C")
ADJUDICATOR = "D"
PATTERNS = ("A-flip", "T_S-undecidable", "T_U-late", "T_E-missed", "A-undecidable")

# A small τ-bench study (every operator, four profiles, one repetition: ~15 s on one core).
SMALL_TAUBENCH_STUDY = """
[study]
name = "review-round"
seed = 11
repetitions = 1
concurrency = 2
[world]
source = "tau-bench"
data = "{data}"
domains = ["airline", "retail"]
[cases]
operators = ["ReturnDate", "PaySource", "ItemOption", "WriteEffect"]
per_operator = 3
[[agents]]
id = "trusting"
profile = "trusting"
[[agents]]
id = "readback"
profile = "readback"
[[agents]]
id = "consistency-check"
profile = "consistency_check"
[[agents]]
id = "tell-then-readback"
profile = "tell_then_readback"
"""


def build_small_taubench_study(root: Path, data: Path) -> Path:
    """Run and measure :data:`SMALL_TAUBENCH_STUDY` on τ-bench's data into ``root``."""
    from sscbench.measure.study import measure_study
    from sscbench.run.executor import execute_study
    from sscbench.study.config import parse_config

    text = SMALL_TAUBENCH_STUDY.format(data=Path(data).resolve())
    execute_study(parse_config(text, "review-round.toml"), text, root, progress=False)
    measure_study(root)
    return root


GENERATED_STUDY = """
[study]
seed = 5
concurrency = 2
[world]
domains = ["airline", "retail"]
[cases]
operators = ["ReturnDate", "PaySource", "ItemOption", "WriteEffect"]
per_operator = 2
[[agents]]
id = "trusting"
profile = "trusting"
[[agents]]
id = "readback"
profile = "readback"
"""


def build_generated_study(root: Path) -> Path:
    """A small measured study on the embedded generated worlds (no τ-bench data needed)."""
    from sscbench.measure.study import measure_study
    from sscbench.run.executor import execute_study
    from sscbench.study.config import parse_config

    execute_study(
        parse_config(GENERATED_STUDY, "generated.toml"), GENERATED_STUDY, root, progress=False
    )
    measure_study(root)
    return root


def truth_by_run(study: Path) -> dict[str, dict[str, Any]]:
    """Each labelled run's true T_E, T_S, T_U, A, Y_end (calibration labels + measured Y_end)."""
    from sscbench.measure.calibrate import labelled_runs

    out = {}
    for c in labelled_runs(study):
        out[c.run_id] = {
            "T_E": c.labelled["T_E"],
            "T_S": c.labelled["T_S"],
            # a run without reliance: "not-applicable", as the page exports it
            "T_U": c.labelled["T_U"],
            "A": bool(c.labelled["A"]),
            "Y_end": c.measured.get("Y_end") or "undecidable",
        }
    return out


def _fits(pattern: str, t: dict[str, Any]) -> bool:
    if pattern in ("A-flip", "T_U-late"):
        return t["A"] is True and isinstance(t["T_U"], int)
    if pattern == "T_S-undecidable":
        return isinstance(t["T_S"], int)
    if pattern == "T_E-missed":
        return isinstance(t["T_E"], int) and isinstance(t["T_S"], int)
    if pattern == "A-undecidable":
        return t["A"] is False
    raise KeyError(pattern)


def _apply(pattern: str, t: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The reviewer who departs from the truth, and their labels."""
    changed = dict(t)
    if pattern in ("A-flip", "calibration"):
        changed.update(A=not t["A"], T_U="not-applicable" if t["A"] else t["T_S"])
        return "C", changed
    if pattern == "T_S-undecidable":
        return "B", {**changed, "T_S": "undecidable"}
    if pattern == "T_U-late":
        return "B", {**changed, "T_U": t["T_U"] + 1}
    if pattern == "T_E-missed":
        return "A", {**changed, "T_E": "inf"}
    if pattern == "A-undecidable":
        return "A", {**changed, "A": "undecidable"}
    raise KeyError(pattern)


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def build_review_round(
    study: Path, out: Path, *, runs: int = 24, calibration: int = 2, seed: int = 7
) -> Path:
    """Play a whole review round on a measured ``study``; return the review folder.

    ``runs`` drawn runs (fewer if the study has fewer) and ``calibration`` calibration
    runs, drawn stratified by operator, configuration and stratum with ``seed``.

    The folder (``out/review``) holds plan.json, the pages, ``labels/A|B|C.jsonl``,
    ``labels/adjudication.jsonl``, ``agreement.json`` and ``reference.jsonl``; the key
    is ``out/review-key.json`` and the design ``out/design.json``.
    """
    from sscbench.review.interrater import agree
    from sscbench.review.labels import read_key
    from sscbench.review.plan import plan_review
    from sscbench.review.reference import build_reference

    study, out = Path(study), Path(out)
    folder = out / "review"
    truth_runs = truth_by_run(study)
    plan = plan_review(
        study,
        folder,
        reviewers=list(REVIEWERS),
        runs=min(runs, len(truth_runs) - calibration),
        calibration=calibration,
        stratify=("operator", "configuration", "stratum"),
        seed=seed,
        key=out / "review-key.json",
    )
    key = read_key(out / "review-key.json")
    truth = {rid: truth_runs[key[rid]] for rid in plan.order()}
    labels: dict[str, dict[str, dict[str, Any]]] = {
        name: {rid: dict(truth[rid]) for rid in plan.order()} for name in REVIEWERS
    }
    design: dict[str, str] = {}
    taken: set[str] = set()
    for pattern in PATTERNS:
        rid = next((r for r in plan.items if r not in taken and _fits(pattern, truth[r])), None)
        if rid is None:
            raise ValueError(f"no drawn item fits the designed disagreement {pattern}")
        taken.add(rid)
        design[rid] = pattern
        who, changed = _apply(pattern, truth[rid])
        labels[who][rid] = changed
    if plan.calibration:
        rid = plan.calibration[0]
        design[rid] = "calibration"
        who, changed = _apply("calibration", truth[rid])
        labels[who][rid] = changed
    for name in REVIEWERS:
        rows = [
            {"review_id": rid, "reviewer": name, **labels[name][rid], "note": ""}
            for rid in plan.order()
        ]
        cases = [
            {
                "case_review_id": c,
                "reviewer": name,
                "task_relevance": "yes",
                "evidence_authority": "yes",
                "sufficiency": "unsure" if (name, number) == ("C", 0) else "yes",
                "scope": "yes",
                "note": "",
            }
            for number, c in enumerate(plan.cases)
        ]
        _write(folder / "labels" / f"{name}.jsonl", rows + cases)
    summary = agree(folder)
    adjudication = [
        {
            "review_id": rid,
            "reviewer": ADJUDICATOR,
            **truth[rid],
            "note": f"designed disagreement {design.get(rid)}: the truth restored",
        }
        for rid in summary.disputed
    ]
    _write(folder / "labels" / "adjudication.jsonl", adjudication)
    build_reference(folder)
    (out / "design.json").write_text(
        json.dumps(
            {
                "truth": truth,
                "patterns": design,
                "items": plan.items,
                "calibration": plan.calibration,
            },
            indent=1,
        ),
        encoding="utf-8",
    )
    return folder
