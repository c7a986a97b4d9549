"""The review folder the report reads, and its reviewer-agreement panel.

The review folder is ``report --review FOLDER``, else ``STUDY/review/`` when it holds
a review's ``agreement.json`` or ``reference.jsonl`` (written by ``sscbench review
agree`` / ``review reference``). From it the ``validation`` section takes

* ``reference.jsonl`` — the adjudicated reference the measurement is compared with
  (Table III b), in the review labels schema, runs named by ``run_id``;
* ``agreement.json`` — pre-adjudication Fleiss' κ per quantity and exact-step
  agreement (schema ``sscbench.review-agreement/1``), shown as two tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sscbench.errors import DataError
from sscbench.report.model import Table
from sscbench.review.interrater import ReviewAgreement, read_agreement

Row = dict[str, Any]


def find_review(study: Path, review: Path | None) -> Path | None:
    """The review folder: the one given (it must exist), else ``STUDY/review/`` when it
    holds ``agreement.json`` or ``reference.jsonl``, else None."""
    if review is not None:
        if not Path(review).is_dir():
            raise DataError(review, None, "--review must name a review folder")
        return Path(review)
    default = study / "review"
    if (default / "agreement.json").exists() or (default / "reference.jsonl").exists():
        return default
    return None


def read_review(folder: Path | None) -> ReviewAgreement | None:
    """The review folder's ``agreement.json`` (None without a folder or without the file)."""
    if folder is None or not (folder / "agreement.json").exists():
        return None
    return read_agreement(folder / "agreement.json")


def agreement_tables(agreement: ReviewAgreement) -> tuple[list[Table], list[Row]]:
    """Fleiss' κ per quantity and exact-step agreement from a review's agreement."""
    who = ", ".join(agreement.reviewers)
    kappa = Table("review-kappa", "Reviewer agreement before adjudication (Fleiss' κ)",
                  f"{agreement.items} reviewed runs (calibration runs apart: "
                  f"{agreement.calibration}), reviewers {who}; an item counts when every "
                  "reviewer answered the quantity",
                  ["quantity", "Fleiss' κ", "items", "categories"])  # fmt: skip
    rows: list[Row] = []
    for name, entry in agreement.kappa.items():
        value = None if entry.kappa is None else round(entry.kappa, 3)
        kappa.add(name, "undefined" if value is None else f"{value:.3f}", entry.items,
                  ", ".join(str(c) for c in entry.categories), key=name)  # fmt: skip
        rows.append({"panel": "kappa", "quantity": name, "kappa": entry.kappa,
                     "items": entry.items, "agree": None, "located": None})  # fmt: skip
    steps = Table("review-steps", "Exact-step agreement before adjudication",
                  "runs where every reviewer located the event",
                  ["event", "all reviewers at one step", "located by all"])  # fmt: skip
    for name, step in agreement.exact_step.items():
        steps.add(name, step.agree, step.located, key=name)
        rows.append({"panel": "exact_step", "quantity": name, "kappa": None, "items": None,
                     "agree": step.agree, "located": step.located})  # fmt: skip
    rows.append({"panel": "accepted", "quantity": "unanimous", "kappa": None,
                 "items": agreement.items, "agree": agreement.unanimous,
                 "located": len(agreement.disputed)})  # fmt: skip
    return [kappa, steps], rows
