"""One definition, and one wording, for each measured quantity whose boundary matters.

The code that computes a quantity and every text that explains it (report captions, run
pages, the reviewers' guide, the docs) read the same thing from here, so a boundary can
only move in one place:

* Z_S — :func:`precedes_use` is the pre/late boundary and :func:`arrival` the stratum;
  :data:`Z_S_WORDING` says it in words. Counterevidence completed at the very step of
  the first dependent use does not precede it: T_E = T_S is *late*.
* T_U — located only in adopting runs; a run that did not adopt has T_U
  :data:`~sscbench.core.values.NOT_APPLICABLE`, not ∞ (:data:`T_U_WORDING`).
  :func:`reliance_step` reads rows written before that value existed.
* Y_end — :data:`Y_END_WORDING` states what ``measure.reconstruct`` records.
* The claims — :data:`CLAIM_WORDING`, one plain line per claim's word (the report's
  claims figure, the guide).
"""

from __future__ import annotations

from typing import Final

from sscbench.core.values import INF, NOT_APPLICABLE, UNDECIDABLE, Step, Stratum, is_step
from sscbench.json_types import JsonMapping, JsonObject, JsonValue

Z_S_WORDING: Final = (
    "Z_S is arrival relative to the first dependent use T_S: pre when T_E < T_S; "
    "late when T_S ≤ T_E < ∞ (evidence completed at the step of the first use did not "
    "precede it); absent when T_E = ∞; no-use when T_S = ∞; undecidable when T_S or T_E is."
)
"""The Z_S definition every caption, page and guide shows (what :func:`arrival` does)."""

T_U_WORDING: Final = (
    "T_U is the step of the first faulty reliance on v′ and is located only in adopting "
    "runs: not applicable when the run did not adopt (A = 0), undecidable when adoption "
    "or the first reliance cannot be decided; never ∞."
)
"""The T_U definition the report, run pages and guide show (what reconstruction writes)."""

Y_END_WORDING: Final = (
    "Y_end is the last explicit stance toward v′ that an agent message or handoff summary "
    "takes after the fault (endorses or rejects; tool calls take none); undecidable when "
    "no message takes one."
)
"""The Y_end definition of the report's stance caption and the guide (what
``measure.reconstruct.reconstruct_from_fault`` records)."""


CLAIM_WORDING: Final = {
    "adopted": "adopted (A = 1): the run holds at least one faulty reliance, a dependent "
    "use that treats the injected value v′ (or one derived from it) as the task's fact; "
    "using v′ only to check it is not one",
    "propagation": "propagation: the share of runs in which the fault was delivered "
    "(and adoption is decidable) that adopted v′",
    "adoption with eventual counterevidence": "adoption with eventual counterevidence: "
    "the share that adopted v′ among runs in which valid counterevidence reached the agent "
    "at some step (T_E finite)",
    "adoption under pre-use counterevidence": "adoption under pre-use counterevidence: "
    "the share that adopted v′ among runs in which valid counterevidence reached the agent "
    "before its first dependent use (Z_S = pre: T_E < T_S)",
}
"""One plain line per claim word, shown under the report's claims figure and in the guide."""


def precedes_use(t_e: int, t_s: int) -> bool:
    """The pre/late boundary: whether counterevidence complete at ``t_e`` came before the
    first dependent use at ``t_s``. Strict: evidence at the use's own step is late."""
    return t_e < t_s


def arrival(t_e: Step, t_s: Step) -> Stratum:
    """Z_S from T_E and T_S, as :data:`Z_S_WORDING` states it."""
    if t_s == INF:
        return Stratum.NO_USE
    if t_s == UNDECIDABLE or t_e == UNDECIDABLE:
        return Stratum.UNDECIDABLE
    if t_e == INF:
        return Stratum.ABSENT
    if not (is_step(t_e) and is_step(t_s)):
        raise ValueError(f"arrival of non-steps: T_E={t_e!r}, T_S={t_s!r}")
    return Stratum.PRE if precedes_use(t_e, t_s) else Stratum.LATE


def reliance_step(row: JsonMapping) -> JsonValue:
    """A measurement row's T_U, reading older rows the way they were meant.

    Measurements written before T_U had a not-applicable value stored ``"inf"`` for
    every run with A = 0 (and only for those), so that ``"inf"`` is read as not
    applicable; every other value is returned as stored.
    """
    value = row.get("T_U")
    if value == INF and row.get("A") == 0:
        return NOT_APPLICABLE
    return value


def upgrade_row(row: JsonObject) -> JsonObject:
    """``row`` with its T_U read by :func:`reliance_step` (a new dict only when it changes)."""
    value = reliance_step(row)
    return row if value == row.get("T_U") else {**row, "T_U": value}
