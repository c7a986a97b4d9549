"""The ``[cases]`` table of a study config: where the cases come from, and the fault
parameters and intensity curves of typed families."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sscbench.faults.operators import DEFAULT_OPERATORS
from sscbench.faults.params import FamilyParameter
from sscbench.study.config_hash import LATER

MAX_PER_OPERATOR = 100_000
MAX_STEPS_LIMIT = 10_000


def _known_operators(names: Any, field: str) -> None:
    from sscbench.faults.registry import operator_names

    known = operator_names()
    unknown = sorted(str(n) for n in names if n not in known)
    if unknown:
        raise ValueError(f"unknown operator(s) {unknown} in {field}; known: {known}")


class Strict(BaseModel):
    """A settings table that refuses unknown keys."""

    model_config = ConfigDict(extra="forbid")


class IntensitySettings(Strict):
    """One intensity curve: a family's parameter swept over levels (one case set each)."""

    family: str
    parameter: FamilyParameter
    levels: list[float | int] = Field(min_length=1, max_length=1000)

    @field_validator("family")
    @classmethod
    def _family_known(cls, value: str) -> str:
        from sscbench.faults.registry import typed_family_names

        known = typed_family_names()
        if value not in known:
            raise ValueError(f"unknown typed family {value!r}; known: {known}")
        return value

    @model_validator(mode="after")
    def _binding_levels(self) -> IntensitySettings:
        from sscbench.faults.identity import check_binding_lost

        if self.parameter == "binding_lost":
            check_binding_lost(self.family, self.levels)
        return self


class CaseSettings(Strict):
    """Where the cases come from: a cases.jsonl file or the built-in operators."""

    file: str | None = None
    operators: list[str] = Field(default_factory=lambda: list(DEFAULT_OPERATORS))
    per_operator: int = Field(10, ge=1, le=MAX_PER_OPERATOR)
    max_steps: dict[str, Annotated[int, Field(ge=1, le=MAX_STEPS_LIMIT)]] = Field(
        default_factory=dict
    )
    params: dict[str, dict[FamilyParameter, float | int]] = Field(
        default_factory=dict,
        description="fault parameters per typed family (probability, burst, position; "
        "events: intervening events of a state family; age for StaleValue, plausibility "
        "for SchemaDrift; binding_lost for SubjectBindingLost)",
    )
    intensity: list[IntensitySettings] = Field(default_factory=list)
    prefer: Literal["early-trigger", "read-first"] | None = Field(
        None,
        description="a selection: screen first the candidates whose fault-bearing call is "
        "an early natural call of the task (read-first: and whose opening request needs a "
        "read before any write); recorded in the study, shown in the report",
        json_schema_extra=LATER,
    )
    review: str | None = Field(
        None,
        min_length=1,
        description="semantic-review file (JSONL: case_id, decision keep/reject, reason; "
        "relative to the config file) applied while the study admits its cases: a rejected "
        "case is replaced by the next admissible candidate of the same frozen order; the "
        "file is an input of the study (a changed file is not resumed)",
        json_schema_extra=LATER,
    )

    @model_validator(mode="after")
    def _review_needs_admission(self) -> CaseSettings:
        if self.review is not None and self.file is not None:
            raise ValueError(
                "cases.review applies to the cases a study admits itself (cases.operators); "
                "a cases file is reviewed when it is admitted: sscbench admit --review FILE"
            )
        return self

    @field_validator("operators")
    @classmethod
    def _operators_known(cls, value: list[str]) -> list[str]:
        _known_operators(value, "cases.operators")
        return value

    @field_validator("params")
    @classmethod
    def _binding_params(cls, value: dict[str, dict[str, float | int]]) -> Any:
        from sscbench.faults.identity import check_binding_lost

        for family in (f for f, params in value.items() if "binding_lost" in params):
            check_binding_lost(family, [value[family]["binding_lost"]])
        return value

    @field_validator("max_steps")
    @classmethod
    def _max_steps_keys(cls, value: dict[str, int]) -> dict[str, int]:
        _known_operators(value, "cases.max_steps")
        return value

    @field_validator("params")
    @classmethod
    def _params_keys(
        cls, value: dict[str, dict[FamilyParameter, float | int]]
    ) -> dict[str, dict[FamilyParameter, float | int]]:
        from sscbench.faults.registry import typed_family_names

        known = typed_family_names()
        unknown = sorted(k for k in value if k not in known)
        if unknown:
            raise ValueError(
                f"cases.params names {unknown}, which take no parameters; typed families: {known}"
            )
        return value
