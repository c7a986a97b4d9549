"""The reference-labels schema: one JSONL line per reviewed run.

A line names its run either directly (``run_id``) or by the masked ``review_id`` of a
review export (mapped back to the run by the export's key file, kept apart from the
reviewer's folder). Every quantity is optional: ``null`` (or absent) means *not yet
labelled* and is not scored; a labelled value is one of

* ``T_F``, ``T_E``, ``T_S``: a ledger step (int ≥ 0), ``"inf"`` or ``"undecidable"``;
* ``T_U``: a step, ``"undecidable"`` or ``"not-applicable"`` (the run did not adopt, A =
  false: there is no first faulty reliance to locate — the measurement's own value).
  Files written before T_U had that value marked a non-adopter ``"inf"``: a line with A
  false and T_U ``"inf"`` is read as ``"not-applicable"`` (:func:`upgraded_reliance`);
  ``"inf"`` beside any other A is kept as written (and disagrees with every measurement);
* ``A``: ``true`` / ``false`` / ``"undecidable"`` (``1`` / ``0`` are accepted);
* ``Z_S``: ``"pre"``, ``"late"``, ``"absent"``, ``"no-use"`` or ``"undecidable"``;
* ``Y_end``: ``"endorses"``, ``"rejects"`` or ``"undecidable"``;
* ``note``: free text (why, or a one-line note when a label was fixed);
* ``reviewer``: who labelled the run (a review plan's page fills it in).

Any other key (``labeller``, ``source``, ``model``, ``kind``, free-form provenance) is
ignored, so labels written by other tools or by an LLM labeller can carry their own
bookkeeping; a known key of the wrong type is still an error, and so is a key that reads
as a known one spelt otherwise (``TS``, ``t_u``, ``Y-end``), which would lose its label.

A reviewer's export from a review plan's page also carries case-level lines (they have
``case_review_id``; schema in :mod:`sscbench.review.case_labels`): ``read_labels`` skips
them, ``read_case_labels`` reads them.

Errors name the file, the line and the field. The full description is in
``docs/reviewing.md``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails

from sscbench.core.seals import check_seal
from sscbench.core.values import Step
from sscbench.errors import DataError
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.jsonl import read_lines
from sscbench.reading import json_reason, loads_json, read_json

_T = TypeVar("_T")

INF = "inf"
UNDECIDABLE = "undecidable"
NOT_APPLICABLE = "not-applicable"
STEP_QUANTITIES = ("T_F", "T_E", "T_S", "T_U")
QUANTITIES = (*STEP_QUANTITIES, "A", "Z_S", "Y_end")
ARRIVALS = ("pre", "late", "absent", "no-use", "undecidable")
STANCES = ("endorses", "rejects", "undecidable")


def _step(value: object) -> int | str | None:
    """A step label: a non-negative int, ``"inf"`` or ``"undecidable"`` (or null)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError('must be a step (int >= 0), "inf" or "undecidable"')
    if isinstance(value, int):
        if value < 0:
            raise ValueError("a step must be >= 0")
        return value
    if value in (INF, UNDECIDABLE):
        return value
    raise ValueError(f'must be a step (int >= 0), "inf" or "undecidable", not {value!r}')


def step_of(value: object) -> Step:
    """A given step label's value as a step (an int, ``"inf"`` or ``"undecidable"``: what
    its validator leaves); anything else is a ValueError."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if value == INF:
        return "inf"
    if value == UNDECIDABLE:
        return "undecidable"
    raise ValueError(f"not a step: {value!r}")


def _adoption(value: object) -> bool | str | None:
    """An adoption label: true / false / ``"undecidable"`` (1 / 0 accepted)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if value == UNDECIDABLE:
        return UNDECIDABLE
    raise ValueError(f'must be true, false or "undecidable", not {value!r}')


def _reliance_step(value: object) -> int | str | None:
    """A T_U label: a step label, or ``"not-applicable"`` (a run that did not adopt)."""
    return NOT_APPLICABLE if value == NOT_APPLICABLE else _step(value)


def upgraded_reliance(t_u: _T, adopted: object) -> _T | str:
    """A T_U label read the way it was meant: before labels had ``"not-applicable"`` a
    reviewer marked a run without reliance ``"inf"``, so ``"inf"`` on a line whose A is
    false is not applicable; every other value is returned as written."""
    return NOT_APPLICABLE if t_u == INF and adopted is False else t_u


StepLabel = Annotated[int | str | None, BeforeValidator(_step)]
RelianceLabel = Annotated[int | str | None, BeforeValidator(_reliance_step)]
AdoptionLabel = Annotated[bool | str | None, BeforeValidator(_adoption)]


class RunLabel(BaseModel):
    """The reference labels of one run (every quantity optional: null = not labelled;
    unknown keys ignored, known ones validated)."""

    model_config = ConfigDict(extra="ignore")

    run_id: str | None = Field(None, min_length=1)
    review_id: str | None = Field(None, min_length=1)
    T_F: StepLabel = None
    T_E: StepLabel = None
    T_S: StepLabel = None
    T_U: RelianceLabel = None
    A: AdoptionLabel = None
    Z_S: Literal["pre", "late", "absent", "no-use", "undecidable"] | None = None
    Y_end: Literal["endorses", "rejects", "undecidable"] | None = None
    note: str = ""
    reviewer: str | None = Field(None, min_length=1)
    _line: int = PrivateAttr(0)

    @property
    def where(self) -> str:
        """``line N`` of the file the label was read from (``label`` when not read)."""
        return f"line {self._line}" if self._line else "label"

    @model_validator(mode="after")
    def _named(self) -> RunLabel:
        if self.run_id is None and self.review_id is None:
            raise ValueError("a label line needs 'run_id' or 'review_id'")
        self.T_U = upgraded_reliance(self.T_U, self.A)
        return self

    def labelled(self) -> JsonObject:
        """The quantities that carry a label (null ones left out)."""
        return {q: getattr(self, q) for q in QUANTITIES if getattr(self, q) is not None}

    def line(self) -> str:
        """This label as one JSONL line (fields in schema order)."""
        return json.dumps(self.model_dump(mode="json"))


def empty_label(review_id: str) -> RunLabel:
    """The blank line a review export writes for one run."""
    return RunLabel(review_id=review_id)


def _error_field(error: ErrorDetails) -> str:
    loc = [str(p) for p in error.get("loc", ()) if not isinstance(p, int)]
    return loc[0] if loc else "(line)"


def _folded(key: str) -> str:
    return "".join(c for c in key.lower() if c.isalnum())


_KNOWN = {_folded(name): name for name in RunLabel.model_fields}


def misspelt_key(raw: JsonMapping) -> tuple[str, str] | None:
    """A key that is not a field but reads as one (``TS``, ``t_u``, ``Y-end``), with the
    field it resembles: unknown keys are ignored, so a misspelt quantity would otherwise
    drop its label without a word."""
    for key in raw:
        known = _KNOWN.get(_folded(key))
        if known is not None and key != known:
            return key, known
    return None


def parse_label_line(line: str, path: str | Path, number: int) -> RunLabel:
    """One label line; a bad one raises :class:`DataError` naming file, line and field."""
    try:
        raw = loads_json(line)
    except json.JSONDecodeError as exc:
        raise DataError(path, f"line {number}", f"not JSON: {exc.msg}") from exc
    except ValueError as exc:  # too deep, an over-long integer (in any key)
        raise DataError(path, f"line {number}", json_reason(exc)) from exc
    if not isinstance(raw, dict):
        raise DataError(path, f"line {number}", "expected a JSON object")
    misspelt = misspelt_key(raw)
    if misspelt is not None:
        key, known = misspelt
        raise DataError(path, f"line {number}, {key}", f"not a field: did you mean {known!r}?")
    try:
        label = RunLabel.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _error_field(first)
        message = first["msg"].removeprefix("Value error, ")
        where = f"line {number}" if field == "(line)" else f"line {number}, {field}"
        raise DataError(path, where, message) from exc
    label._line = number
    return label


def is_case_line(text: str) -> bool:
    """A case-level label line of a reviewer's export (it names ``case_review_id``)."""
    try:
        raw = loads_json(text)
    except ValueError:
        return False
    return isinstance(raw, dict) and "case_review_id" in raw


def read_labels(path: str | Path) -> list[RunLabel]:
    """Every run label line of a file, in order (blank lines and case-level lines skipped,
    duplicates refused)."""
    path = Path(path)
    lines = read_lines(path)
    out: list[RunLabel] = []
    seen: dict[str, int] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip() or is_case_line(text):
            continue
        label = parse_label_line(text, path, number)
        name = label.run_id or f"review:{label.review_id}"
        if name in seen:
            raise DataError(path, f"line {number}", f"{name} already labelled on line {seen[name]}")
        seen[name] = number
        out.append(label)
    return out


def read_key(path: str | Path) -> dict[str, str]:
    """A review export's key file: review id → run id. Its seal is checked
    (:mod:`sscbench.core.seals`): a key changed since it was written is refused, one
    written before keys were sealed is used with a warning."""
    path = Path(path)
    again = "a key is written once, by `sscbench review export` or `review plan`: restore it"
    raw = check_seal(path, read_json(path), again, unsealed="warn")
    runs = raw.get("runs") if isinstance(raw, dict) else None
    if not isinstance(runs, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in runs.items()
    ):
        raise DataError(path, "runs", "expected an object mapping review id to run id")
    return runs


def labels_by_run(
    labels: list[RunLabel], key: dict[str, str] | None, path: str | Path
) -> dict[str, RunLabel]:
    """Labels keyed by run id, resolving review ids through ``key``.

    A review id with no key, or missing from the key, is an error naming the file.
    """
    out: dict[str, RunLabel] = {}
    for label in labels:
        run_id = label.run_id
        if run_id is None:
            if key is None:
                raise DataError(
                    path, "review_id", "labels use review ids: pass the export's key file"
                )
            run_id = key.get(label.review_id or "")
            if run_id is None:
                raise DataError(
                    path, f"{label.where}, review_id", f"{label.review_id!r} is not in the key file"
                )
        elif label.review_id is not None and key is not None:
            mapped = key.get(label.review_id)
            if mapped is not None and mapped != run_id:
                raise DataError(
                    path,
                    f"{label.where}, review_id",
                    f"{label.review_id!r} maps to {mapped}, not {run_id}",
                )
        if run_id in out:
            raise DataError(path, f"{label.where}, run_id", f"{run_id} labelled twice")
        out[run_id] = label
    return out


def check_steps(label: RunLabel, steps: int | None, path: str | Path) -> None:
    """Refuse a step label beyond the run: a ledger of ``steps`` events has steps 0 to
    ``steps - 1`` (None: the ledger could not be read, nothing to check against)."""
    if steps is None:
        return
    for quantity in STEP_QUANTITIES:
        value = getattr(label, quantity)
        if isinstance(value, int) and not isinstance(value, bool) and value >= steps:
            raise DataError(
                path,
                f"{label.where}, {quantity}",
                f"step {value} is beyond the run, whose ledger has {steps} steps "
                f"(0 to {steps - 1})",
            )


def check_known(
    labels: dict[str, RunLabel],
    known: set[str],
    steps_of: Callable[[str], int | None],
    path: str | Path,
) -> None:
    """Refuse a label of a run the study does not have (it would be scored as a total
    disagreement) or a step beyond its run's ledger, naming the label's line."""
    for run_id, label in labels.items():
        if run_id not in known:
            field = "review_id" if label.run_id is None else "run_id"
            raise DataError(
                path, f"{label.where}, {field}", f"{run_id!r} is not a run of the study"
            )
        check_steps(label, steps_of(run_id), path)
