"""A replay study's exact pairs: which recording (with which edits) replays which case.

A pairs file (``[agents.replay] pairs = "pairs.jsonl"``) holds one JSON object a line:

* ``case_id`` — a case of the study;
* ``recording`` — the recording's id: a τ² simulation's ``id``, or for τ-bench's
  format ``"<task>#<trial>"`` (e.g. ``"test/20#0"``); or ``trial`` — the recorded
  trial of the case's own task;
* ``edits`` — small edits applied before the faulted replay (:mod:`sscbench.agents.edits`;
  the clean run replays the recording as it is);
* ``run_id`` — the faulted run's id (optional; one safe file name, no ``--``, never
  ``.`` or ``..`` or a name starting with ``.``: :func:`sscbench.reading.name_problem`),
  so labels can name runs readably; unique in the file, and across every agent of a
  study (checked when the study is planned);
* ``kind``, ``note`` — free text for people.

Each pair is one faulted run; its repetition number is its line's index among the
pairs, so every pair has its own clean run.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from sscbench.errors import DataError
from sscbench.json_types import JsonObject
from sscbench.names import PathName
from sscbench.reading import json_reason, loads_json, read_text


class Pair(BaseModel):
    """One (case, recording[, edits]) pair of a pairs file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case_id: str = Field(min_length=1)
    recording: str | None = Field(None, min_length=1)
    trial: int | None = Field(None, ge=0)
    edits: list[JsonObject] = Field(default_factory=list)
    run_id: PathName | None = Field(None, pattern=r"^[A-Za-z0-9._-]+$", max_length=120)
    kind: str | None = None
    note: str | None = None
    _line: int = PrivateAttr(0)

    @property
    def line(self) -> int:
        """The line of the pairs file this pair was read from (0: not read from a file)."""
        return self._line

    @model_validator(mode="after")
    def _one_recording(self) -> Pair:
        if (self.recording is None) == (self.trial is None):
            raise ValueError("give 'recording' or 'trial' (exactly one)")
        if self.run_id is not None and "--" in self.run_id:
            raise ValueError("a run_id may not contain '--' (it separates the parts of run ids)")
        for number, edit in enumerate(self.edits):
            if not isinstance(edit.get("op"), str):
                raise ValueError(f"edits[{number}] needs an 'op'")
        return self


def read_pairs(path: str | Path) -> list[Pair]:
    """The pairs of a pairs file, in file order; errors name the file, line and field."""
    path = Path(path)
    text = read_text(path)
    pairs: list[Pair] = []
    names: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            pair = Pair.model_validate(loads_json(line))
        except json.JSONDecodeError as exc:
            raise DataError(path, f"line {number}", f"not JSON: {exc.msg}") from exc
        except ValidationError as exc:
            error = exc.errors()[0]
            loc = ".".join(str(part) for part in error["loc"]) or "line"
            message = error["msg"].removeprefix("Value error, ")
            raise DataError(path, f"line {number}: {loc}", message) from exc
        except ValueError as exc:  # too deep, an over-long integer (after ValidationError)
            raise DataError(path, f"line {number}", json_reason(exc)) from exc
        if pair.run_id is not None:
            if pair.run_id in names:
                raise DataError(
                    path,
                    f"line {number}: run_id",
                    f"{pair.run_id!r} repeats line {names[pair.run_id]}",
                )
            names[pair.run_id] = number
        pair._line = number
        pairs.append(pair)
    if not pairs:
        raise DataError(path, None, "the pairs file names no pair")
    return pairs
