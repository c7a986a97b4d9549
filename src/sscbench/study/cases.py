"""Reading a study's cases file."""

from __future__ import annotations

from pathlib import Path

from sscbench.faults.case import Case


def read_cases(path: Path) -> list[Case]:
    """Cases from a ``cases.jsonl`` file, naming the line of a bad one; a case id on two
    lines is refused (naming both), never merged into one case."""
    from sscbench.jsonl import read_jsonl

    return read_jsonl(path, Case.model_validate_json, ("case_id", lambda case: case.case_id))
