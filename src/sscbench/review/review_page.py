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
from typing import Any

from jinja2 import Environment, PackageLoader

from sscbench.core.ledger import LedgerEvent
from sscbench.review.case_labels import CASE_QUESTIONS
from sscbench.review.guide import guide
from sscbench.review.pages import contract_in_words, trajectory_steps

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


def _cell(value: Any) -> str:
    """A reviewer's answer as the adjudicator reads it (JSON spelling of true / false)."""
    if value is None or value == "":
        return "—"
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _items(plan: Any, cases: dict[str, Any], ledgers: dict[str, list[LedgerEvent]], ids: list[str]):
    case_of = {rid: masked for masked, rids in plan.cases.items() for rid in rids}
    for rid in ids:
        case = cases[case_of[rid]]
        yield {
            "id": rid,
            "case": case_of[rid],
            "calibration": rid in plan.calibration,
            "contract": contract_in_words(case.contract),
            "steps": trajectory_steps(ledgers[rid]),
            "fields": list(FORM_FIELDS),
            "answers": None,
        }


def _render(**context: Any) -> str:
    return _ENV.get_template("review_page.html.j2").render(
        step_fields=STEP_FIELDS, choices=CHOICES, help=HELP, guide=guide(), **context
    )


def render_review_page(
    plan: Any, reviewer: str, cases: dict[str, Any], ledgers: dict[str, list[LedgerEvent]]
) -> str:
    """A reviewer's page: calibration runs first, then the drawn runs, then the cases."""
    items = list(_items(plan, cases, ledgers, plan.order()))
    case_items = [
        {"id": masked, "runs": rids, "contract": contract_in_words(cases[masked].contract)}
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
    plan: Any,
    adjudicator: str,
    cases: dict[str, Any],
    ledgers: dict[str, list[LedgerEvent]],
    disputes: dict[str, dict[str, Any]],
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
