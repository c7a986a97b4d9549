"""The validation section's reviewer-agreement panel, from a review folder's
``agreement.json`` (``sscbench review agree``; the folder is found by
:func:`sscbench.report.inputs.find_review`): pre-adjudication Fleiss' κ per quantity
and exact-step agreement (schema ``sscbench.review-agreement/1``), shown as two tables.
The folder's adjudicated ``reference.jsonl`` is the reference the measurement is
compared with (:func:`sscbench.report.inputs.reference_labels`).
"""

from __future__ import annotations

from sscbench.report.entries import CsvRow
from sscbench.report.model import Table
from sscbench.review.interrater import ReviewAgreement


def agreement_tables(agreement: ReviewAgreement) -> tuple[list[Table], list[CsvRow]]:
    """Fleiss' κ per quantity and exact-step agreement from a review's agreement, and the
    rows of ``tables/review_agreement.csv``."""
    who = ", ".join(agreement.reviewers)
    kappa = Table(
        "review-kappa",
        "Reviewer agreement before adjudication (Fleiss' κ)",
        f"{agreement.items} reviewed runs (calibration runs apart: "
        f"{agreement.calibration}), reviewers {who}; an item counts when every "
        "reviewer answered the quantity",
        ["quantity", "Fleiss' κ", "items", "categories"],
    )
    rows: list[CsvRow] = []
    for name, entry in agreement.kappa.items():
        value = None if entry.kappa is None else round(entry.kappa, 3)
        shown = "undefined" if value is None else f"{value:.3f}"
        categories = ", ".join(str(c) for c in entry.categories)
        kappa.add(name, shown, entry.items, categories, key=name)
        rows.append(_row("kappa", name, kappa=entry.kappa, items=entry.items))
    steps = Table(
        "review-steps",
        "Exact-step agreement before adjudication",
        "runs where every reviewer located the event",
        ["event", "all reviewers at one step", "located by all"],
    )
    for name, step in agreement.exact_step.items():
        steps.add(name, step.agree, step.located, key=name)
        rows.append(_row("exact_step", name, agree=step.agree, located=step.located))
    accepted = _row(
        "accepted",
        "unanimous",
        items=agreement.items,
        agree=agreement.unanimous,
        located=len(agreement.disputed),
    )
    return [kappa, steps], [*rows, accepted]


def _row(panel: str, quantity: str, **values: object) -> CsvRow:
    """One row of ``review_agreement.csv`` (the fields a panel does not fill are None)."""
    fields: CsvRow = {"kappa": None, "items": None, "agree": None, "located": None} | values
    return {"panel": panel, "quantity": quantity, **fields}
