"""The semantic review of admitted cases: which ones a person rejected, read from a file.

Admission by witness is automatic; the paper then reviews every selected case by hand
(is the affected fact relevant to the task, is the counterevidence authoritative and
sufficient as the agent sees it, does the fault target the task's entity and request)
and replaces a rejected case with the next admissible candidate of the same frozen
order. The review is written as JSONL, one line per reviewed case::

    {"case_id": "ItemOption-...", "decision": "reject", "reason": "...", "reviewer": "A"}

``decision`` is ``"keep"`` or ``"reject"`` (``null``: not reviewed yet, kept);
``reason`` says why (required for a rejection). Blank lines are skipped. Every error
names the file, the line and the field. No run outcome is read or asked for.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sscbench.errors import DataError
from sscbench.jsonl import read_lines

Decision = Literal["keep", "reject"]


class SemanticVerdict(BaseModel):
    """One case's semantic-review decision (case id = candidate id)."""

    model_config = ConfigDict(extra="forbid")

    case_id: str = Field(..., min_length=1)
    decision: Decision | None = None
    reason: str = ""
    reviewer: str | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _rejection_says_why(self) -> SemanticVerdict:
        if self.decision == "reject" and not self.reason.strip():
            raise ValueError("a rejection needs a reason")
        return self


def _where(number: int, exc: ValidationError) -> tuple[str, str]:
    first = exc.errors()[0]
    loc = [str(p) for p in first.get("loc", ()) if not isinstance(p, int)]
    field = loc[0] if loc else ("reason" if "reason" in first["msg"] else "")
    return f"line {number}" + (f", {field}" if field else ""), first["msg"]


def read_semantic_review(path: str | Path) -> dict[str, SemanticVerdict]:
    """The review's verdicts by case id, in file order (a case twice is an error)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, None, "not found: the semantic-review file (docs/reviewing.md)")
    out: dict[str, SemanticVerdict] = {}
    lines: dict[str, int] = {}
    for number, text in enumerate(read_lines(path), start=1):
        if not text.strip():
            continue
        try:
            verdict = SemanticVerdict.model_validate_json(text)
        except ValidationError as exc:
            where, message = _where(number, exc)
            raise DataError(path, where, message) from exc
        if verdict.case_id in out:
            raise DataError(
                path,
                f"line {number}, case_id",
                f"{verdict.case_id} already reviewed on line {lines[verdict.case_id]}",
            )
        out[verdict.case_id] = verdict
        lines[verdict.case_id] = number
    return out


def rejected_ids(
    path: str | Path, verdicts: dict[str, SemanticVerdict], known: Iterable[str]
) -> frozenset[str]:
    """The rejected case ids, refusing a verdict on a case no candidate has (fail closed:
    a misspelt id would otherwise keep a rejected case)."""
    known_ids = set(known)
    unknown = [cid for cid in verdicts if cid not in known_ids]
    if unknown:
        raise DataError(
            path,
            "case_id",
            f"{len(unknown)} reviewed case(s) are no candidate of the chosen operators "
            f"(first: {unknown[0]})",
        )
    return frozenset(cid for cid, v in verdicts.items() if v.decision == "reject")


__all__ = ["SemanticVerdict", "read_semantic_review", "rejected_ids"]
