"""``second_reading.jsonl``: a judge model's proposals for the runs the rules could not
fully read, kept apart from the measurement.

The rule reader marks, on each measurement row, what it met after the fault and could
not interpret: ``unread`` (a count) and ``unread_steps`` (``{"step", "kind", "span"}``
each). A row without ``unread`` was not checked — it is never read as 0
(:func:`unread_of` returns None). ``sscbench second-read`` sends the rows with
``unread > 0`` to the study's judge model and writes one :class:`SecondReading` per run
here: the model, the prompt's hash, a proposed T_S, T_U and A each with the quoted text
of the step it points to (a quote that does not occur at that step makes the proposal
invalid, kept and shown as such), or the reason it abstained. Nothing here replaces a
measurement: :func:`compare` only says, quantity by quantity, how a valid proposal
stands to the rule reading, for the report and the reviewer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sscbench.core.files import atomic_text_writer
from sscbench.core.values import INF, NOT_APPLICABLE, UNDECIDABLE
from sscbench.jsonl import loads_line, model_line, read_jsonl
from sscbench.study.rows import MeasurementRow, UnreadStep

SECOND_READING = "second_reading.jsonl"
"""The second reader's file in the study folder (never ``measurements.jsonl``)."""
SCHEMA = "sscbench.second-reading/1"
QUANTITIES = ("T_S", "T_U", "A")
"""What the second reader proposes."""

Standing = Literal["agrees", "disagrees", "rules-undecided", "invalid"]
"""How one proposal stands to the rule reading: the same value; another value; a value
where the rules have none (undecidable); or a proposal whose evidence failed its check."""

STANDING_WORDS = {
    "agrees": "agrees with the rules",
    "disagrees": "disagrees with the rules",
    "rules-undecided": "a value where the rules are undecided",
    "invalid": "invalid: no quote found at its step",
}
"""How a standing reads beside the rule reading (report, review pages)."""


def unread_of(row: MeasurementRow) -> int | None:
    """The row's ``unread`` count, or None when the row has none (not checked: never 0)."""
    return row.unread_count()


def unread_steps_of(row: MeasurementRow) -> list[UnreadStep]:
    """The row's ``unread_steps`` marks (``step``, ``kind``, ``span``); [] without any."""
    return list(row.unread_steps or [])


def is_marked(row: MeasurementRow) -> bool:
    """Whether the rule reader marked the row unread (``unread > 0``): only such runs are
    ever sent to the second reader."""
    count = unread_of(row)
    return count is not None and count > 0


class Proposal(BaseModel):
    """One proposed quantity: its ``value`` (a step, ``inf`` or ``not-applicable`` for
    T_S and T_U; 0 or 1 for A), the quoted evidence and the step it is quoted from, and
    whether the quote was found at that step of the ledger (``problem`` says why not)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: int | str
    quote: str | None = None
    quote_step: int | None = None
    valid: bool
    problem: str | None = None


class SecondReading(BaseModel):
    """One run's second reading: who read it with which prompt, what the rules marked
    unread, and the proposals, or the abstention's reason (a failed call, an unparsable
    answer: never a negative)."""

    model_config = ConfigDict(extra="forbid", frozen=True, serialize_by_alias=True)

    schema_: str = Field(SCHEMA, alias="schema")
    run_id: str
    model: str
    base_url: str
    prompt_sha256: str
    measured_from: str | None = Field(
        None, description="sha256 of the measurements.jsonl whose marks sent the run"
    )
    unread: int
    unread_steps: list[UnreadStep] = Field(default_factory=list)
    abstention: str | None = None
    proposals: dict[str, Proposal] = Field(default_factory=dict)
    reason: str = ""

    @property
    def answered(self) -> bool:
        """True when the judge gave proposals (False: it abstained)."""
        return self.abstention is None


def write_second_reading(path: Path, readings: list[SecondReading]) -> None:
    """Replace ``path`` with one line per reading, in one rename (atomic)."""
    with atomic_text_writer(path) as handle:
        for reading in readings:
            handle.write(model_line(reading) + "\n")


def read_second_reading(path: Path) -> dict[str, SecondReading]:
    """The second readings by run id ({} when the study has none); DataError names a
    bad line."""
    if not path.is_file():
        return {}
    rows = read_jsonl(
        path,
        lambda line: loads_line(SecondReading, line),
        unique=("run_id", lambda r: r.run_id),
    )
    return {r.run_id: r for r in rows}


def _settled(quantity: str, value: object) -> object:
    """A value in the one form both readings share (∞ and not-applicable T_U alike: the
    run has no faulty reliance), or None when it is undecided."""
    if value is None or value == UNDECIDABLE:
        return None
    if quantity == "T_U" and value in (INF, NOT_APPLICABLE):
        return NOT_APPLICABLE
    return value


def rule_value(row: MeasurementRow, quantity: str) -> object:
    """The rule reading of ``quantity`` on ``row`` (T_U read as the row meant it)."""
    return row.reliance_step() if quantity == "T_U" else getattr(row, quantity, None)


def compare(reading: SecondReading, row: MeasurementRow) -> dict[str, Standing]:
    """How each proposal stands to the rule reading (no entry: no proposal, as for an
    abstention)."""
    out: dict[str, Standing] = {}
    for quantity, proposal in reading.proposals.items():
        if not proposal.valid:
            out[quantity] = "invalid"
            continue
        rule = _settled(quantity, rule_value(row, quantity))
        if rule is None:
            out[quantity] = "rules-undecided"
        else:
            same = rule == _settled(quantity, proposal.value)
            out[quantity] = "agrees" if same else "disagrees"
    return out


def study_readings(study: str | Path) -> dict[str, SecondReading]:
    """The study's second readings by run id ({} without ``second_reading.jsonl``)."""
    return read_second_reading(Path(study) / SECOND_READING)


def run_panel(
    reading: SecondReading | None, row: MeasurementRow, measured: str | None = None
) -> dict[str, Any] | None:
    """What a run page shows of its second reading (None: the run was not sent);
    ``measured`` is the sha256 of today's measurements (a reading sent from other marks
    is flagged ``stale``)."""
    if reading is None:
        return None
    standing = compare(reading, row)
    lines = []
    for quantity in QUANTITIES:
        proposal = reading.proposals.get(quantity)
        lines.append(
            {
                "quantity": quantity,
                "rule": rule_value(row, quantity),
                "proposed": None if proposal is None else proposal.value,
                "quote": None if proposal is None else proposal.quote,
                "quote_step": None if proposal is None else proposal.quote_step,
                "valid": None if proposal is None else proposal.valid,
                "problem": None if proposal is None else proposal.problem,
                "standing": standing.get(quantity),
                "words": STANDING_WORDS.get(standing.get(quantity, ""), ""),
            }
        )
    return {
        "model": reading.model,
        "prompt": reading.prompt_sha256[:16],
        "unread": reading.unread,
        "unread_steps": reading.unread_steps,
        "abstention": reading.abstention,
        "reason": reading.reason,
        "stale": measured is not None and reading.measured_from not in (None, measured),
        "lines": lines,
    }


__all__ = [
    "QUANTITIES",
    "SECOND_READING",
    "STANDING_WORDS",
    "Proposal",
    "SecondReading",
    "compare",
    "is_marked",
    "read_second_reading",
    "rule_value",
    "run_panel",
    "study_readings",
    "unread_of",
    "unread_steps_of",
    "write_second_reading",
]
