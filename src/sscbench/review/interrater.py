"""``sscbench review agree``: agreement between reviewers before adjudication.

Reads every reviewer's export ``FOLDER/labels/<reviewer>.jsonl`` of a review plan and
computes, over the drawn runs (calibration runs apart):

* Fleiss' κ (statsmodels) per categorical quantity: A; Z_S derived from each
  reviewer's T_E and T_S (:func:`sscbench.measure.definitions.arrival`); T_U status
  (``located`` / ``not-applicable`` / ``undecidable``, and ``inf`` only as an old file
  wrote it beside an A that is not false) and T_S status (``located`` / ``inf`` /
  ``undecidable``). Not applicable is a category of its own: two reviewers who both say
  so agree, one who says so against a step disagrees. An item enters a κ only
  when every reviewer gave the quantity; κ is null when it is undefined (no item, or
  every answer in one category).
* exact-step agreement for T_E, T_S and T_U over the items where every reviewer
  located the event (gave a step).
* the disputed items: a label is accepted only when every reviewer gave the same
  value of every quantity of the form (T_E, T_S, T_U, A, Y_end); an unanswered
  quantity is never agreement. A 2–1 majority is a dispute, for the adjudicator.

The case-level answers (yes / no / unsure per question) get a Fleiss' κ each too
(``case_kappa``). The result is ``FOLDER/agreement.json`` (schema ``sscbench.review-agreement/1``), read
back with :func:`read_agreement`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
from typing_extensions import TypedDict

from sscbench.core.definitions import arrival
from sscbench.core.files import atomic_write
from sscbench.errors import DataError
from sscbench.json_types import JsonObject, JsonValue
from sscbench.jsonl import read_json_model
from sscbench.review.case_labels import CASE_QUESTIONS, read_case_labels
from sscbench.review.labels import (
    STEP_QUANTITIES,
    RunLabel,
    check_steps,
    read_key,
    read_labels,
    step_of,
)
from sscbench.review.plan import ReviewPlan, read_plan
from sscbench.review.review_page import FORM_FIELDS, STEP_FIELDS

AGREEMENT_SCHEMA = "sscbench.review-agreement/1"
KAPPA_QUANTITIES = ("A", "Z_S", "T_U_status", "T_S_status")
CATEGORIES: dict[str, list[JsonValue]] = {
    "A": [True, False, "undecidable"],
    "Z_S": ["pre", "late", "absent", "no-use", "undecidable"],
    "T_U_status": ["located", "not-applicable", "undecidable", "inf"],
    "T_S_status": ["located", "inf", "undecidable"],
}


class Kappa(BaseModel):
    """Fleiss' κ of one quantity over the items every reviewer answered."""

    kappa: float | None
    items: int
    categories: list[JsonValue]


class StepAgreement(BaseModel):
    """Items where every reviewer located the event, and how many of them at one step."""

    agree: int
    located: int


class AgreementBlock(BaseModel):
    """κ, exact steps and disputes over one set of items (the calibration runs)."""

    items: int
    kappa: dict[str, Kappa]
    exact_step: dict[str, StepAgreement]
    disputed: list[str]
    unanimous: int


class ItemDisagreement(TypedDict):
    """A quantity the reviewers of an item answered differently (or left open): each
    reviewer's value by name. (typing_extensions' TypedDict: pydantic validates it on
    Python 3.11.)"""

    review_id: str
    quantity: str
    values: dict[str, JsonValue]


class ReviewAgreement(BaseModel):
    """``agreement.json``: pre-adjudication agreement of a review (Q2's report reads it)."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: str = Field(AGREEMENT_SCHEMA, alias="schema")
    reviewers: list[str]
    items: int
    calibration: int
    kappa: dict[str, Kappa]
    exact_step: dict[str, StepAgreement]
    disputed: list[str]
    unanimous: int
    calibration_agreement: AgreementBlock | None = None
    disagreements: list[ItemDisagreement] = []
    case_kappa: dict[str, Kappa] = {}

    def dump(self) -> JsonObject:
        """The JSON object of ``agreement.json``."""
        return self.model_dump(mode="json", by_alias=True)


def read_agreement(path: str | Path) -> ReviewAgreement:
    """A review's ``agreement.json`` (a folder holding one is accepted too)."""
    path = Path(path)
    if path.is_dir():
        path = path / "agreement.json"
    return read_json_model(path, ReviewAgreement, AGREEMENT_SCHEMA)


def status(step: object) -> str | None:
    """An event's status: ``located`` (a step), else the value as written (``inf``,
    ``undecidable``, ``not-applicable``; None: not given)."""
    if step is None:
        return None
    return "located" if isinstance(step, int) else str(step)


def derived(label: RunLabel | None) -> JsonObject:
    """A reviewer's values of every form quantity plus Z_S, the two statuses and the note."""
    values: JsonObject = {q: getattr(label, q) if label else None for q in FORM_FIELDS}
    t_e, t_s = values["T_E"], values["T_S"]
    values["Z_S"] = (
        arrival(step_of(t_e), step_of(t_s)) if t_e is not None and t_s is not None else None
    )
    values["T_U_status"] = status(values["T_U"])
    values["T_S_status"] = status(values["T_S"])
    values["note"] = label.note if label else ""
    return values


def item_steps(plan: ReviewPlan) -> Callable[[str], int | None]:
    """How many steps each review item's run has (review id → its ledger's length),
    through the plan's key and study, read on first use: a label's step must lie in
    its run. A key or study that cannot be read is an error (the check is not skipped)."""
    from sscbench.study.study import Study

    found: dict[str, int] = {}
    runs: dict[str, str] = {}

    def steps_of(review_id: str) -> int | None:
        if review_id not in found:
            if not runs:
                runs.update(read_key(plan.key))
            run_id = runs.get(review_id)
            if run_id is None:
                raise DataError(plan.key, "runs", f"{review_id!r} of plan.json is not in the key")
            found[review_id] = len(Study.open(plan.study).ledger(run_id))
        return found[review_id]

    return steps_of


def reviewer_labels(folder: Path, plan: ReviewPlan) -> dict[str, dict[str, RunLabel]]:
    """Each reviewer's labels by review id; a missing export, a foreign id or a step
    beyond the item's run is an error naming the line."""
    known = set(plan.order())
    steps_of = item_steps(plan)
    out: dict[str, dict[str, RunLabel]] = {}
    for name in plan.reviewers:
        path = folder / "labels" / f"{name}.jsonl"
        if not path.exists():
            raise DataError(
                path, None, f"no export of reviewer {name}: save the page's export here"
            )
        labels: dict[str, RunLabel] = {}
        for label in read_labels(path):
            where = label.where
            if label.review_id is None:
                raise DataError(
                    path,
                    f"{where}, review_id",
                    f"{label.run_id}: a review's label needs its review_id",
                )
            if label.review_id not in known:
                raise DataError(
                    path, f"{where}, review_id", f"{label.review_id!r} is not in plan.json"
                )
            if label.reviewer not in (None, name):
                raise DataError(
                    path, f"{where}, reviewer", f"{label.reviewer!r} in the file of {name}"
                )
            if any(isinstance(getattr(label, q), int) for q in STEP_QUANTITIES):
                check_steps(label, steps_of(label.review_id), path)
            labels[label.review_id] = label
        out[name] = labels
    return out


def kappa_of(ratings: list[list[JsonValue]], categories: list[JsonValue]) -> Kappa:
    """Fleiss' κ of items × raters answers (items with a missing answer left out)."""
    complete = [row for row in ratings if all(v is not None for v in row)]
    used = [c for c in categories if any(c in row for row in complete)]
    if not complete:
        return Kappa(kappa=None, items=0, categories=used)
    codes = np.array([[categories.index(v) for v in row] for row in complete])
    table, _ = aggregate_raters(codes, n_cat=len(categories))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(fleiss_kappa(table, method="fleiss"))
    return Kappa(kappa=None if np.isnan(value) else value, items=len(complete), categories=used)


def block(
    ids: list[str], names: list[str], values: dict[str, list[JsonObject]]
) -> tuple[AgreementBlock, list[ItemDisagreement]]:
    """Agreement over the items ``ids``: κ, exact steps, disputes and disagreement rows."""
    kappa = {
        q: kappa_of([[v[q] for v in values[i]] for i in ids], CATEGORIES[q])
        for q in KAPPA_QUANTITIES
    }
    exact: dict[str, StepAgreement] = {}
    for q in STEP_FIELDS:
        located = [i for i in ids if all(isinstance(v[q], int) for v in values[i])]
        same = [i for i in located if len({v[q] for v in values[i]}) == 1]
        exact[q] = StepAgreement(agree=len(same), located=len(located))
    disputed: list[str] = []
    rows: list[ItemDisagreement] = []
    for i in ids:
        split = [
            q
            for q in FORM_FIELDS
            if any(v[q] is None for v in values[i]) or len({repr(v[q]) for v in values[i]}) > 1
        ]
        if split:
            disputed.append(i)
            rows += [
                {
                    "review_id": i,
                    "quantity": q,
                    "values": dict(zip(names, [v[q] for v in values[i]], strict=True)),
                }
                for q in split
            ]
    result = AgreementBlock(
        items=len(ids),
        kappa=kappa,
        exact_step=exact,
        disputed=disputed,
        unanimous=len(ids) - len(disputed),
    )
    return result, rows


def case_kappa(folder: Path, plan: ReviewPlan) -> dict[str, Kappa]:
    """Fleiss' κ of each case-level question (yes / no / unsure) over the plan's cases."""
    answers = {
        name: {c.case_review_id: c for c in read_case_labels(folder / "labels" / f"{name}.jsonl")}
        for name in plan.reviewers
    }
    out = {}
    for question in CASE_QUESTIONS:
        ratings = [
            [getattr(answers[name].get(case), question, None) for name in plan.reviewers]
            for case in plan.cases
        ]
        out[question] = kappa_of(ratings, ["yes", "no", "unsure"])
    return out


def review_values(folder: Path, plan: ReviewPlan) -> dict[str, list[JsonObject]]:
    """Every item's derived values, one dict per reviewer in plan order."""
    labels = reviewer_labels(folder, plan)
    return {i: [derived(labels[name].get(i)) for name in plan.reviewers] for i in plan.order()}


def agree(folder: str | Path) -> ReviewAgreement:
    """Compute the pre-adjudication agreement of a review folder and write ``agreement.json``."""
    folder = Path(folder)
    plan = read_plan(folder)
    values = review_values(folder, plan)
    main, rows = block(plan.items, plan.reviewers, values)
    calibration, _ = block(plan.calibration, plan.reviewers, values)
    result = ReviewAgreement(
        reviewers=plan.reviewers,
        items=main.items,
        calibration=len(plan.calibration),
        kappa=main.kappa,
        exact_step=main.exact_step,
        disputed=main.disputed,
        unanimous=main.unanimous,
        calibration_agreement=calibration,
        disagreements=rows,
        case_kappa=case_kappa(folder, plan),
    )
    atomic_write(folder / "agreement.json", json.dumps(result.dump(), indent=1))
    return result
