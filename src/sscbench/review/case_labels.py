"""Case-level review labels: is the case itself sound, judged without any outcome.

The paper's case-level review asks, for each admitted case, whether the affected fact
is relevant to the task, whether the counterevidence comes from an authoritative
source, whether that evidence is sufficient as the agent could see it, and whether
the fault targets the entity and request the task is about. A reviewer answers each
with ``"yes"``, ``"no"`` or ``"unsure"`` (null: not answered yet) and may add a note.

Case lines live in the same exported file as the run labels (a review plan's page
writes both); they are told apart by ``case_review_id`` (the masked case id of the
plan, ``k01``, …). Errors name the file, the line and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sscbench.errors import DataError
from sscbench.jsonl import read_lines
from sscbench.review.labels import is_case_line

CASE_QUESTIONS = {
    "task_relevance": "Task relevance: does the task depend on the affected fact?",
    "evidence_authority": "Evidence authority: does the counterevidence come from an "
    "authoritative source (the system of record), not from the user or the agent?",
    "sufficiency": "Agent-visible sufficiency: would the evidence, as the agent can see it "
    "through the normal tools, be enough to refute the asserted value?",
    "scope": "Entity / request scope: does the fault target the entity and the request "
    "the task is about?",
}
Answer = Literal["yes", "no", "unsure"] | None


class CaseLabel(BaseModel):
    """One reviewer's case-level answers for one masked case (no outcome is asked)."""

    model_config = ConfigDict(extra="forbid")

    case_review_id: str = Field(..., min_length=1)
    reviewer: str | None = Field(None, min_length=1)
    task_relevance: Answer = None
    evidence_authority: Answer = None
    sufficiency: Answer = None
    scope: Answer = None
    note: str = ""

    def line(self) -> str:
        """This label as one JSONL line."""
        return json.dumps(self.model_dump(mode="json"))


def read_case_labels(path: str | Path) -> list[CaseLabel]:
    """The case-level lines of a reviewer's export, in order (a case twice is an error)."""
    path = Path(path)
    lines = read_lines(path)
    out: list[CaseLabel] = []
    seen: dict[str, int] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip() or not is_case_line(text):
            continue
        try:
            label = CaseLabel.model_validate_json(text)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = [str(p) for p in first.get("loc", ()) if not isinstance(p, int)]
            where = f"line {number}" + (f", {loc[0]}" if loc else "")
            raise DataError(path, where, first["msg"]) from exc
        if label.case_review_id in seen:
            raise DataError(
                path,
                f"line {number}",
                f"case {label.case_review_id} already labelled on line {seen[label.case_review_id]}",
            )
        seen[label.case_review_id] = number
        out.append(label)
    return out
