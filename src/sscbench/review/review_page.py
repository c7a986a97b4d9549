"""The self-contained review page of a review plan: one per reviewer, one for the adjudicator.

Run by run it shows the contract in plain words and the numbered model-visible
trajectory (as :mod:`sscbench.review.pages` does), and a form for T_E, T_S (step / ∞ /
undecidable), T_U (step / undecidable, and *not applicable*, offered and chosen once A is
answered "not adopted"), A, Y_end and a note; then a case-level form per case (task
relevance, evidence authority, agent-visible sufficiency, entity/request scope). No run
id, case id, configuration, condition or automatic label is on the page. Progress is
kept in the browser's ``localStorage`` (keyed by the plan id and the reviewer) and one
button exports the labels JSONL. Everything is inline: the page works from ``file://``
with no network. All text is escaped (jinja2 autoescape).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import NotRequired, Protocol, TypedDict

from jinja2 import Environment, PackageLoader

from sscbench.core.ledger import LedgerEvent
from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.json_types import JsonValue
from sscbench.review.case_labels import CASE_QUESTIONS
from sscbench.review.guide import guide
from sscbench.review.pages import Step, contract_in_words, trajectory_steps

FORM_FIELDS = ("T_E", "T_S", "T_U", "A", "Y_end")
STEP_FIELDS = ("T_E", "T_S", "T_U")
CHOICES = {
    "A": [("true", "adopted"), ("false", "not adopted"), ("undecidable", "undecidable")],
    "Y_end": [("endorses", "endorses"), ("rejects", "rejects"), ("undecidable", "undecidable")],
}
HELP = {
    "T_E": "counterevidence complete (How to label, T_E)",
    "T_S": "first dependent use of the affected fact (How to label, T_S)",
    "T_U": "first faulty reliance on v′; not applicable when A = not adopted (How to label, T_U)",
    "A": "did the agent rely on v′ at some step?",
    "Y_end": "the agent's last communicated stance toward v′",
}

_ENV = Environment(loader=PackageLoader("sscbench.review", "templates"), autoescape=True)


class Plan(Protocol):
    """What a page reads of a review plan (:class:`sscbench.review.plan.ReviewPlan`,
    which imports this module to write its pages)."""

    @property
    def plan_id(self) -> str: ...

    @property
    def calibration(self) -> list[str]: ...

    @property
    def cases(self) -> Mapping[str, list[str]]: ...

    def order(self) -> list[str]:
        """Review ids in page order: calibration first, then the drawn runs."""
        ...


class Dispute(TypedDict):
    """A disputed item as the adjudicator's page shows it: the reviewers, each shown
    quantity's values (one per reviewer, Z_S included), the disputed quantities and
    the reviewers' notes."""

    reviewers: list[str]
    values: dict[str, list[JsonValue]]
    disputed: list[str]
    notes: NotRequired[list[str]]


class Answers(TypedDict):
    """Every reviewer's answers to a disputed item, per quantity."""

    reviewers: list[str]
    rows: list[dict[str, object]]


class Item(TypedDict):
    """One review item (a run) of a page."""

    id: str
    case: str
    calibration: bool
    contract: list[tuple[str, str]]
    steps: list[Step]
    fields: list[str]
    answers: Answers | None
    notes: NotRequired[list[str]]


def _cell(value: JsonValue) -> str:
    """A reviewer's answer as the adjudicator reads it (JSON spelling of true / false)."""
    if value is None or value == "":
        return "—"
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _words(case: Case) -> list[tuple[str, str]]:
    """The case's contract in words (a reviewed run's case was admitted: it has one)."""
    if case.contract is None:
        raise DataError("<cases>", case.case_id, "not an admitted case (no contract)")
    return contract_in_words(case.contract)


def _items(
    plan: Plan, cases: dict[str, Case], ledgers: dict[str, list[LedgerEvent]], ids: list[str]
) -> Iterator[Item]:
    case_of = {rid: masked for masked, rids in plan.cases.items() for rid in rids}
    for rid in ids:
        case = cases[case_of[rid]]
        yield {
            "id": rid,
            "case": case_of[rid],
            "calibration": rid in plan.calibration,
            "contract": _words(case),
            "steps": trajectory_steps(ledgers[rid]),
            "fields": list(FORM_FIELDS),
            "answers": None,
        }


def _render(**context: object) -> str:
    return _ENV.get_template("review_page.html.j2").render(
        step_fields=STEP_FIELDS, choices=CHOICES, help=HELP, guide=guide(), **context
    )


def render_review_page(
    plan: Plan, reviewer: str, cases: dict[str, Case], ledgers: dict[str, list[LedgerEvent]]
) -> str:
    """A reviewer's page: calibration runs first, then the drawn runs, then the cases."""
    items = list(_items(plan, cases, ledgers, plan.order()))
    case_items = [
        {"id": masked, "runs": rids, "contract": _words(cases[masked])}
        for masked, rids in plan.cases.items()
    ]
    config = {
        "plan_id": plan.plan_id,
        "reviewer": reviewer,
        "file": f"{reviewer}.jsonl",
        "runs": [i["id"] for i in items],
        "fields": {i["id"]: i["fields"] for i in items},
        "cases": [c["id"] for c in case_items],
    }
    return _render(
        title=f"Review {plan.plan_id} — reviewer {reviewer}",
        adjudication=False,
        reviewer=reviewer,
        file=config["file"],
        calibration=plan.calibration,
        items=items,
        cases=case_items,
        case_questions=list(CASE_QUESTIONS.items()),
        config=config,
    )


def render_adjudication_page(
    plan: Plan,
    adjudicator: str,
    cases: dict[str, Case],
    ledgers: dict[str, list[LedgerEvent]],
    disputes: dict[str, Dispute],
) -> str:
    """The adjudicator's page: only the disputed items, every reviewer's answers shown, a
    form for the disputed quantities only. ``disputes[review_id]`` holds ``reviewers``,
    ``values`` (quantity → one value per reviewer, Z_S included) and ``disputed``."""
    items = list(_items(plan, cases, ledgers, list(disputes)))
    for item in items:
        dispute = disputes[item["id"]]
        item["fields"] = [q for q in FORM_FIELDS if q in dispute["disputed"]]
        item["answers"] = {
            "reviewers": dispute["reviewers"],
            "rows": [
                {
                    "quantity": q,
                    "disputed": q in dispute["disputed"],
                    "cells": [_cell(v) for v in values],
                }
                for q, values in dispute["values"].items()
            ],
        }
        item["notes"] = dispute.get("notes", [])
    config = {
        "plan_id": plan.plan_id,
        "reviewer": adjudicator,
        "file": "adjudication.jsonl",
        "runs": [i["id"] for i in items],
        "fields": {i["id"]: i["fields"] for i in items},
        "cases": [],
    }
    return _render(
        title=f"Adjudication of review {plan.plan_id} — {adjudicator}",
        adjudication=True,
        reviewer=adjudicator,
        file=config["file"],
        calibration=[],
        items=items,
        cases=[],
        case_questions=[],
        config=config,
    )
