"""User-defined claims from a TOML file: a population filter and what counts in it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sscbench.analysis.claims import Claim, _evaluable
from sscbench.core.values import is_step
from sscbench.errors import DataError
from sscbench.reading import read_toml
from sscbench.study.rows import MeasurementRow

FIELDS = {"Z_S", "A", "T_E", "T_S", "T_U", "Y_end", "operator", "config_id", "control", "literal"}


class ClaimSpec(BaseModel):
    """One claim: ``population`` and ``counts`` map measurement fields to allowed values.

    A value list may hold ``"finite"`` (a located step) or ``"decidable"`` (a step or ∞).
    A non-adopting run's T_U is ``"not-applicable"`` (also in rows written when it was
    stored ``"inf"``): neither finite nor decidable, so it leaves such a population.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    required_condition: str
    population: dict[str, list[Any]] = Field(default_factory=dict)
    counts: dict[str, list[Any]] = Field(default_factory=lambda: {"A": [1]})


class ClaimFile(BaseModel):
    """A file of claims."""

    model_config = ConfigDict(extra="forbid")

    claims: list[ClaimSpec] = Field(min_length=1)


def _matches(row: MeasurementRow, where: Mapping[str, Sequence[object]]) -> bool:
    for field, allowed in where.items():
        value = row.reliance_step() if field == "T_U" else getattr(row, field, None)
        ok = value in allowed
        ok = ok or ("finite" in allowed and is_step(value))
        ok = ok or ("decidable" in allowed and (is_step(value) or value == "inf"))
        if not ok:
            return False
    return True


def _restriction(where: Mapping[str, Sequence[object]]) -> str:
    """A population filter in words: ``Z_S in [absent], T_E in [finite]``."""
    return ", ".join(f"{k} in [{', '.join(str(v) for v in vs)}]" for k, vs in where.items())


def load_claims(path: str | Path) -> tuple[Claim, ...]:
    """Claims from a TOML file; errors name the file, the field and the reason."""
    path = Path(path)
    try:
        raw = read_toml(path)
        specs = ClaimFile.model_validate(raw).claims
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(x) for x in first["loc"])
        raise DataError(path, loc, first["msg"]) from exc
    for i, spec in enumerate(specs):
        for part in ("population", "counts"):
            unknown = set(getattr(spec, part)) - FIELDS
            if unknown:
                raise DataError(path, f"claims.{i}.{part}", f"unknown fields {sorted(unknown)}")
    return tuple(
        Claim(
            spec.name,
            spec.required_condition,
            (lambda s: lambda r: _evaluable(r) and _matches(r, s.population))(spec),
            (lambda s: lambda r: _matches(r, s.counts))(spec),
            _restriction(spec.population),
        )
        for spec in specs
    )
