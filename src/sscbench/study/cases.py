"""Reading a study's cases file."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from sscbench.faults.case import Case


def parse_case(line: str) -> Case:
    """One ``cases.jsonl`` line as a case, its parameters validated against the params
    model of its operator; a bad line's error names the field (``params: ReturnDate
    parameter 'injected_date': Field required``)."""
    import sscbench.faults.builtin  # noqa: F401  (every built-in family's params model)

    try:
        return Case.model_validate_json(line)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(map(str, error["loc"])) or "case"
        reason = error["msg"].removeprefix("Value error, ")
        raise ValueError(f"{field}: {reason}") from None


def read_cases(path: Path) -> list[Case]:
    """Cases from a ``cases.jsonl`` file, naming the line (and the field) of a bad one; a
    case id on two lines is refused (naming both), never merged into one case."""
    from sscbench.jsonl import read_jsonl

    return read_jsonl(path, parse_case, ("case_id", lambda case: case.case_id))
