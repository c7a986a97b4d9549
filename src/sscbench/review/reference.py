"""``sscbench review adjudicate`` and ``sscbench review reference``: from reviews to the reference.

The adjudicator's page holds only the disputed drawn runs (never a calibration run),
with every reviewer's answer visible and a form for the disputed quantities; its
export is saved as ``FOLDER/labels/adjudication.jsonl``. The reference then takes, for
every drawn run, each quantity's unanimous value or, where the reviewers split, the
adjudicator's; Z_S is derived from the resulting T_E and T_S. Run ids are resolved
through the plan's key; the file is ``FOLDER/reference.jsonl`` in the
:class:`~sscbench.review.labels.RunLabel` schema, read by ``sscbench agreement`` and
``sscbench validate-oracle --reference``. A disputed quantity the adjudicator left
open is an error listing every such item (fail closed).
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from sscbench.core.definitions import arrival
from sscbench.core.files import atomic_write
from sscbench.errors import DataError
from sscbench.json_types import JsonObject
from sscbench.jsonl import write_utf8
from sscbench.reading import read_json
from sscbench.review.interrater import (
    ReviewAgreement,
    agree,
    derived,
    item_steps,
    review_values,
)
from sscbench.review.labels import RunLabel, check_steps, read_key, read_labels, step_of
from sscbench.review.plan import ADJUDICATION, ReviewPlan, check_plan, read_plan
from sscbench.review.review_page import FORM_FIELDS, Dispute

SHOWN = (*FORM_FIELDS, "Z_S", "note")


def _disputes(
    plan: ReviewPlan, values: dict[str, list[JsonObject]], summary: ReviewAgreement
) -> dict[str, Dispute]:
    """Each disputed item: the reviewers, every shown quantity's values, the split ones."""
    labels_split: dict[str, set[str]] = {}
    for row in summary.disagreements:
        labels_split.setdefault(row["review_id"], set()).add(row["quantity"])
    out: dict[str, Dispute] = {}
    for review_id in summary.disputed:
        out[review_id] = {
            "reviewers": plan.reviewers,
            "values": {q: [v[q] for v in values[review_id]] for q in SHOWN},
            "disputed": sorted(labels_split.get(review_id, ())),
        }
    return out


def adjudication_page(folder: str | Path, adjudicator: str = "adjudicator") -> Path:
    """Write ``FOLDER/adjudicate-<name>.html`` with the disputed items only."""
    from sscbench.review.review_page import render_adjudication_page
    from sscbench.study.study import Study

    folder = Path(folder)
    plan = read_plan(folder)
    if adjudicator in plan.reviewers:
        raise DataError(
            "--adjudicator", None, f"{adjudicator!r} is a reviewer: the adjudicator must be another"
        )
    key = _key(plan, folder)  # first: a plan.json changed since it was drawn is refused
    summary = agree(folder)  # always from the exports as they are now
    disputes = _disputes(plan, review_values(folder, plan), summary)
    study = Study.open(plan.study)
    cases = {masked: study.cases[cid] for masked, cid in key["cases"].items()}
    ledgers = {rid: study.ledger(key["runs"][rid]) for rid in disputes}
    page = render_adjudication_page(plan, adjudicator, cases, ledgers, disputes)
    target = folder / f"adjudicate-{adjudicator}.html"
    write_utf8(target, page)
    return target


class _Key(TypedDict):
    """A review key as the adjudication reads it: review id -> run, masked case -> case."""

    runs: dict[str, str]
    cases: dict[str, str]


def _key(plan: ReviewPlan, folder: Path) -> _Key:
    """The plan's key (review ids -> runs, masked cases -> cases), its seal checked, and
    the folder's ``plan.json`` checked against the hash the key recorded."""
    path = Path(plan.key)
    runs = read_key(path)
    raw = read_json(path)
    if raw.get("plan_id") != plan.plan_id:
        raise DataError(path, "plan_id", f"this key belongs to another plan than {plan.plan_id}")
    check_plan(folder, raw)
    return {"runs": runs, "cases": raw.get("cases", {})}


def build_reference(folder: str | Path) -> Path:
    """Combine unanimous values and the adjudication into ``FOLDER/reference.jsonl``."""
    folder = Path(folder)
    plan = read_plan(folder)
    key = _key(plan, folder)["runs"]
    summary = agree(folder)
    values = review_values(folder, plan)
    disputes = _disputes(plan, values, summary)
    adjudicated: dict[str, RunLabel] = {}
    path = folder / "labels" / f"{ADJUDICATION}.jsonl"
    if disputes:
        if not path.exists():
            raise DataError(
                path,
                None,
                f"{len(disputes)} disputed items and no adjudication: run "
                f"`sscbench review adjudicate {folder}` and save its export here",
            )
        steps_of = item_steps(plan)
        for label in read_labels(path):
            if label.review_id not in disputes:
                raise DataError(
                    path, f"{label.where}, review_id", f"{label.review_id!r} is not a disputed item"
                )
            check_steps(label, steps_of(label.review_id), path)
            adjudicated[label.review_id] = label
    missing = [
        f"{rid} {q}"
        for rid, dispute in disputes.items()
        for q in dispute["disputed"]
        if getattr(adjudicated.get(rid), q, None) is None
    ]
    if missing:
        raise DataError(path, None, "not adjudicated: " + ", ".join(missing))
    lines = []
    for rid in plan.items:
        agreed = values[rid][0]
        chosen = derived(adjudicated[rid]) if rid in adjudicated else agreed
        split = disputes[rid]["disputed"] if rid in disputes else []
        final = {q: chosen[q] if q in split else agreed[q] for q in FORM_FIELDS}
        if rid in adjudicated:
            note = f"adjudicated by {adjudicated[rid].reviewer or 'the adjudicator'}"
            note += f": {adjudicated[rid].note}" if adjudicated[rid].note else ""
        else:
            note = f"unanimous ({', '.join(summary.reviewers)})"
        label = RunLabel(
            run_id=key[rid],
            review_id=rid,
            **final,
            Z_S=arrival(step_of(final["T_E"]), step_of(final["T_S"])),
            note=note,
        )
        lines.append(label.line())
    target = folder / "reference.jsonl"
    atomic_write(target, "".join(line + "\n" for line in lines))
    return target
