"""The Python face of a finished study: ``sscbench.load_study(path)``.

A notebook reads a study the way the report does, without the CLI: the measurement rows
(``measurements.jsonl``, checked against their seal, as :class:`MeasurementRow`) and the
claim cards the report wrote (``report/claims.json``, as :class:`ClaimRow`), both as
typed rows, and as pandas DataFrames when the ``pandas`` extra is installed
(``pip install 'sscbench[pandas]'``). Nothing here writes or measures: a study that was
not measured, or not reported, says so and names the command that makes it.

    results = load_study("study")
    results.measurements[0].Z_S          # typed rows need nothing else
    results.measurements_frame()         # a DataFrame, one row per run (pandas extra)
    results.claims_frame()               # one row per claim card
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import DataError
from sscbench.reading import read_json
from sscbench.study.rows import MeasurementRow
from sscbench.study.study import Study

if TYPE_CHECKING:
    import pandas

CLAIMS = Path("report") / "claims.json"
"""Where ``sscbench report`` writes the claim cards, inside the study folder."""


class ClaimRow(BaseModel):
    """One claim card of ``report/claims.json``: the claim, its population and interval.
    Cards of typed families carry more fields (``family``, ``severity``, ``level``):
    they are kept as extra attributes, like every field a later report adds."""

    model_config = ConfigDict(extra="allow")

    claim: str
    operator: str | None = None
    config_id: str | None = None
    required_condition: str | None = None
    population: str | None = None
    method: str | None = None
    numerator: int | None = None
    denominator: int | None = None
    n_clusters: int | None = None
    estimate: float | None = None
    low: float | None = None
    high: float | None = None
    confidence: float | None = None
    caveats: list[str] = []
    label: str | None = None
    status: str | None = None


def _frame(rows: Sequence[Mapping[str, object]], what: str) -> pandas.DataFrame:
    """A DataFrame of ``rows``, or an ImportError naming the extra that brings pandas."""
    try:
        import pandas
    except ImportError as exc:
        raise ImportError(
            f"{what} as a DataFrame needs pandas: pip install 'sscbench[pandas]' "
            "(the typed rows need nothing more)"
        ) from exc
    return pandas.DataFrame.from_records(rows)


@dataclass(frozen=True)
class StudyResults:
    """A study's measurements and claims, as typed rows and (pandas extra) DataFrames."""

    study: Study
    measurements: list[MeasurementRow]
    claims: list[ClaimRow]

    @property
    def root(self) -> Path:
        """The study folder."""
        return self.study.root

    def faulted(self) -> list[MeasurementRow]:
        """The rows of faulted runs (what the claims are about), in the file's order."""
        return [row for row in self.measurements if row.kind == "faulted"]

    def measurements_frame(self) -> pandas.DataFrame:
        """One row per run, one column per measurement column (absent ones empty)."""
        return _frame([row.columns() for row in self.measurements], "measurements")

    def claims_frame(self) -> pandas.DataFrame:
        """One row per claim card, its fields as columns."""
        return _frame([claim.model_dump() for claim in self.claims], "claims")


def read_claims(path: Path) -> list[ClaimRow]:
    """The claim cards of a ``claims.json``; a malformed one names the file and card."""
    raw = read_json(path)
    if not isinstance(raw, list):
        raise DataError(path, None, "expected a JSON list of claim cards")
    claims = []
    for index, card in enumerate(raw):
        try:
            claims.append(ClaimRow.model_validate(card))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = f"[{index}]." + ".".join(str(part) for part in error["loc"])
            raise DataError(path, where, error["msg"]) from exc
    return claims


def load_study(path: str | Path) -> StudyResults:
    """The study in ``path``, measured and reported: its measurement rows and claim cards.

    Refuses (``DataError``, naming the folder and the command to run) a folder that is
    not a study, a study not measured yet (``sscbench measure``) or not reported yet
    (``sscbench report``): an empty result would read as "nothing happened".
    """
    study = Study.require(path)
    if not study.measurements_path.exists():
        raise DataError(study.root, None, f"not measured yet: run sscbench measure {path}")
    claims = study.root / CLAIMS
    if not claims.exists():
        raise DataError(study.root, None, f"no {CLAIMS} yet: run sscbench report {path}")
    return StudyResults(study, list(study.measurements.values()), read_claims(claims))


__all__ = ["CLAIMS", "ClaimRow", "StudyResults", "load_study", "read_claims"]
