"""``sscbench review plan``: draw the runs of a review with several people and write its folder.

The population is every completed, triggered faulted run with a contract (a run whose
fault never reached the model has nothing to review). Runs are drawn stratified by the
*automatic* labels — operator, agent configuration, measured arrival stratum — which
reviewers never see: proportional allocation (largest remainders) after one run per
stratum, so every stratum is present whenever there are at least as many runs to draw
as strata; seeded. ``--calibration`` further runs are drawn from the rest, reviewed
first and kept out of agreement and reference.

The folder holds ``plan.json`` (what was drawn and how, the seed, the strata and their
sizes — never which run is in which stratum), one self-contained page per reviewer
(``review-<name>.html``) and ``labels/``, where each reviewer's export is saved. The
key (masked ids → run and case ids) is written apart, in the study's ``review-keys/``.
"""

from __future__ import annotations

import hashlib
import random
import re
import secrets
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sscbench.core.files import atomic_write, clean_stale, staged_folder
from sscbench.core.seals import sealed_json
from sscbench.errors import DataError, naming
from sscbench.faults.case import Case
from sscbench.json_types import JsonMapping
from sscbench.jsonl import read_json_model, write_utf8
from sscbench.names import name_problem
from sscbench.review.export import Candidate, candidates, default_key_path

PLAN_SCHEMA = "sscbench.review-plan/1"
PLAN_STRATA = ("operator", "configuration", "stratum")
ADJUDICATION = "adjudication"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


class StratumSize(BaseModel):
    """One stratum of the draw: its automatic key, how many runs it has and how many were drawn."""

    stratum: dict[str, str]
    size: int
    drawn: int


class ReviewPlan(BaseModel):
    """``plan.json``: what a review folder holds (no automatic label of any item)."""

    model_config = ConfigDict(extra="forbid")

    schema_: str = Field(PLAN_SCHEMA, alias="schema")
    plan_id: str
    study: str
    key: str
    reviewers: list[str]
    seed: int
    stratify: list[str]
    runs_requested: int
    calibration_requested: int
    population: int
    strata: list[StratumSize]
    calibration: list[str]
    items: list[str]
    cases: dict[str, list[str]]

    @field_validator("reviewers")
    @classmethod
    def _reviewers(cls, names: list[str]) -> list[str]:
        """Reviewer names become file names (``labels/<name>.jsonl``): checked each time
        the plan is read, not only on the command line, so an edited ``plan.json`` cannot
        lead a reader out of the review folder."""
        for number, name in enumerate(names):
            if not valid_name(name):
                raise ValueError(f"{_name_reason(name)} (reviewers[{number}])")
        if len(set(names)) != len(names):
            raise ValueError("a reviewer is named twice")
        return names

    @field_validator("calibration", "items")
    @classmethod
    def _review_ids(cls, ids: list[str]) -> list[str]:
        """Review ids become file names (``pages/<id>.html``) and each counts once."""
        seen: dict[str, int] = {}
        for number, item in enumerate(ids):
            problem = name_problem(item)
            if problem is not None:
                raise ValueError(f"{problem} (position {number})")
            if item in seen:
                raise ValueError(f"{item!r} is listed twice (positions {seen[item]} and {number})")
            seen[item] = number
        return ids

    @model_validator(mode="after")
    def _apart(self) -> ReviewPlan:
        both = sorted(set(self.calibration) & set(self.items))
        if both:
            raise ValueError(f"{both[0]!r} is both a calibration run and an item: it counts once")
        return self

    def order(self) -> list[str]:
        """Every review id in review order: calibration first."""
        return [*self.calibration, *self.items]


def read_plan(folder: str | Path) -> ReviewPlan:
    """A review folder's ``plan.json`` (an error names the file and the field)."""
    path = Path(folder) / "plan.json"
    return read_json_model(path, ReviewPlan, PLAN_SCHEMA)


def valid_name(name: str) -> bool:
    """A reviewer's or adjudicator's name: usable as a file name, not ``adjudication``."""
    return bool(_NAME.match(name)) and name != ADJUDICATION and name_problem(name) is None


def _name_reason(name: str) -> str:
    return (
        f"bad name {name!r}: letters, digits, '_', '-', '.' only, at most 40, "
        f"starting with a letter or digit (and not {ADJUDICATION!r})"
    )


def parse_reviewers(text: str) -> list[str]:
    """``--reviewers A,B,C``: at least two distinct names usable as file names."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if not valid_name(n)]
    if bad:
        raise DataError(
            "--reviewers",
            None,
            f"bad names {bad}: letters, digits, '_', '-', '.' only (and not {ADJUDICATION!r})",
        )
    if len(set(names)) != len(names):
        raise DataError("--reviewers", None, "a reviewer is named twice")
    if len(names) < 2:
        raise DataError("--reviewers", None, "agreement needs at least two reviewers")
    return names


def parse_plan_stratify(text: str | None) -> tuple[str, ...]:
    """``--stratify operator,configuration,stratum`` (``config`` is accepted for configuration)."""
    if not text:
        return ()
    keys = tuple(
        "configuration" if k.strip() == "config" else k.strip()
        for k in text.split(",")
        if k.strip()
    )
    bad = [k for k in keys if k not in PLAN_STRATA]
    if bad:
        raise DataError("--stratify", None, f"unknown keys {bad}; choose from {list(PLAN_STRATA)}")
    return keys


def _key(candidate: Candidate, by: tuple[str, ...]) -> tuple[str, ...]:
    names = {"operator": "operator", "configuration": "config", "stratum": "stratum"}
    return tuple(getattr(candidate, names[k]) for k in by)


def allocate(
    sizes: dict[tuple[str, ...], int], n: int, rng: random.Random
) -> dict[tuple[str, ...], int]:
    """How many runs to draw from each stratum (``n`` at most the sum of ``sizes``).

    One from each stratum first (strata chosen at random when ``n`` is smaller than
    their number), then the rest proportionally to what is left of each stratum:
    whole quotas, and the leftover by largest remainders (ties broken at random).
    """
    strata = sorted(sizes)
    if n < len(strata):
        chosen = set(rng.sample(strata, n))
        return {s: int(s in chosen) for s in strata}
    left = {s: sizes[s] - 1 for s in strata}
    remaining = n - len(strata)
    total = sum(left.values())
    quotas = {s: remaining * left[s] / total if total else 0.0 for s in strata}
    out = {s: 1 + int(quotas[s]) for s in strata}
    leftover = n - sum(out.values())
    ties = {s: rng.random() for s in strata}
    order = sorted(strata, key=lambda s: (-(quotas[s] - int(quotas[s])), ties[s]))
    for s in order[:leftover]:
        out[s] += 1
    return out


def draw_plan(
    pool: list[Candidate], runs: int, calibration: int, seed: int, stratify: tuple[str, ...]
) -> tuple[list[Candidate], list[Candidate], list[StratumSize]]:
    """The reviewed runs (stratified, shuffled), the calibration runs and the strata."""
    if runs + calibration > len(pool):
        raise DataError(
            "--runs",
            None,
            f"{runs} runs plus {calibration} calibration runs exceed the {len(pool)} "
            "reviewable runs (completed, triggered faulted runs with a contract)",
        )
    rng = random.Random(seed)
    groups: dict[tuple[str, ...], list[Candidate]] = defaultdict(list)
    for c in pool:
        groups[_key(c, stratify)].append(c)
    counts = allocate({k: len(v) for k, v in groups.items()}, runs, rng)
    chosen: list[Candidate] = []
    rest: list[Candidate] = []
    strata: list[StratumSize] = []
    for k in sorted(groups):
        shuffled = rng.sample(groups[k], len(groups[k]))
        chosen += shuffled[: counts[k]]
        rest += shuffled[counts[k] :]
        strata.append(
            StratumSize(
                stratum=dict(zip(stratify, k, strict=True)), size=len(groups[k]), drawn=counts[k]
            )
        )
    rng.shuffle(chosen)
    return chosen, rng.sample(rest, calibration), strata


def plan_review(
    study: str | Path,
    out: str | Path,
    *,
    reviewers: list[str],
    runs: int | None = None,
    calibration: int = 0,
    stratify: tuple[str, ...] = (),
    seed: int = 0,
    key: str | Path | None = None,
) -> ReviewPlan:
    """Verify the study, draw the runs and write the review folder and its key (apart).

    Refuses a non-empty ``out``, an existing key and a key inside ``out``.
    """
    from sscbench.review.review_page import render_review_page
    from sscbench.study.folder import StudyDir
    from sscbench.study.ledgers import read_ledger

    out = Path(out)
    key_path = Path(key) if key is not None else default_key_path(study, out)
    _refuse_review_folder(out, key_path, runs, calibration)
    pool = [c for c in candidates(study) if c.stratum not in ("not-triggered", "unmeasured")]
    wanted = len(pool) - calibration if runs is None else runs
    chosen, calib, strata = draw_plan(pool, wanted, calibration, seed, stratify)
    width = max(3, len(str(len(chosen))))
    calib_ids = [f"cal{i:02d}" for i in range(1, len(calib) + 1)]
    item_ids = [f"r{i:0{width}d}" for i in range(1, len(chosen) + 1)]
    runs_key = dict(zip(calib_ids + item_ids, [c.run_id for c in calib + chosen], strict=True))
    by_case: dict[str, list[str]] = defaultdict(list)
    case_of: dict[str, Case] = {}
    for review_id, cand in zip(calib_ids + item_ids, calib + chosen, strict=True):
        by_case[cand.case.case_id].append(review_id)
        case_of[cand.case.case_id] = cand.case
    case_ids = {f"k{i:02d}": cid for i, cid in enumerate(by_case, start=1)}
    plan = ReviewPlan(
        plan_id=secrets.token_hex(6),
        study=str(Path(study).resolve()),
        key=str(key_path.resolve()),
        reviewers=reviewers,
        seed=seed,
        stratify=list(stratify),
        runs_requested=wanted,
        calibration_requested=calibration,
        population=len(pool),
        strata=strata,
        calibration=calib_ids,
        items=item_ids,
        cases={masked: by_case[cid] for masked, cid in case_ids.items()},
    )
    store = StudyDir(study)
    cases = {masked: case_of[cid] for masked, cid in case_ids.items()}
    ledgers = {rid: read_ledger(store, run) for rid, run in runs_key.items()}
    clean_stale(key_path)
    with staged_folder(out) as staging:  # the reviewers' folder appears whole or not at all
        with naming(staging / "labels"):
            (staging / "labels").mkdir()
        plan_text = plan.model_dump_json(by_alias=True, indent=1)
        write_utf8(staging / "plan.json", plan_text)
        for name in reviewers:
            page = render_review_page(plan, name, cases, ledgers)
            write_utf8(staging / f"review-{name}.html", page)
        plan_sha = file_digest(staging / "plan.json")
        _write_review_key(key_path, plan, out, runs_key, case_ids, plan_sha)  # last
    return plan


def file_digest(path: Path) -> str:
    """The sha256 of a file's bytes (the review key records that of ``plan.json``)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_plan(folder: str | Path, key: JsonMapping) -> None:
    """Refuse a ``plan.json`` whose bytes differ from those its (sealed) key recorded:
    the folder is in the reviewers' hands, the key is not. A key written before it
    recorded the plan's hash checks nothing."""
    path = Path(folder) / "plan.json"
    recorded = key.get("plan_sha256")
    if recorded is not None and recorded != file_digest(path):
        raise DataError(
            path,
            None,
            "changed since `sscbench review plan` wrote it (its key records another "
            "sha256): the reviewers' folder was edited; restore plan.json from a copy",
        )


def _refuse_review_folder(out: Path, key_path: Path, runs: int | None, calibration: int) -> None:
    """Refuse (DataError) counts out of range, a non-empty ``out``, an existing key and a
    key inside ``out`` — before anything is drawn or written."""
    if runs is not None and runs < 1:
        raise DataError("--runs", None, "must be >= 1")
    if calibration < 0:
        raise DataError("--calibration", None, "must be >= 0")
    if out.exists() and any(out.iterdir()):
        raise DataError(out, None, "the output folder is not empty")
    if key_path.exists():
        raise DataError(key_path, None, "a review key already exists here (pass --key)")
    if key_path.resolve().is_relative_to(out.resolve()):
        raise DataError(key_path, None, "the key must be kept apart from the reviewers' folder")


def _write_review_key(
    key_path: Path,
    plan: ReviewPlan,
    out: Path,
    runs_key: dict[str, str],
    case_ids: dict[str, str],
    plan_sha256: str,
) -> None:
    """Write the key (review id -> run id, masked case -> case id) atomically, apart from
    the reviewers' folder."""
    with naming(key_path.parent):
        key_path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "study": plan.study,
        "out": str(out.resolve()),
        "plan_id": plan.plan_id,
        "seed": plan.seed,
        "stratify": plan.stratify,
        "calibration": plan.calibration,
        "runs": runs_key,
        "cases": case_ids,
        "plan_sha256": plan_sha256,
    }
    atomic_write(key_path, sealed_json(record, indent=1, sort_keys=False))
