"""Candidates and cases: an operator on a concrete task and entity, before and after admission."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from sscbench.faults.contract import FaultContract
from sscbench.faults.params import FaultParams, params_model
from sscbench.json_types import JsonObject, JsonValue

ValueSource = Literal["observation", "user", "system", "task", "missing"]
"""Where a witness call's argument value was visible: a delivered observation, a user or
system message, the task; ``missing`` when it was nowhere before the call."""


def _typed_params(value: object, info: ValidationInfo) -> FaultParams:
    """The parameters as the params model of the case's ``operator`` (a mapping read from a
    file is validated against it: an unknown, missing or wrongly typed field is refused)."""
    if isinstance(value, FaultParams):
        return value
    operator = info.data.get("operator")
    model = params_model(operator) if isinstance(operator, str) else FaultParams
    try:
        return model.model_validate(value)
    except ValidationError as exc:  # the outer error names params; this names the field
        error = exc.errors()[0]
        field = ".".join(map(str, error["loc"])) or "params"
        raise ValueError(f"{operator} parameter {field!r}: {error['msg']}") from None


class Candidate(BaseModel):
    """An operator instantiated on a concrete task and entity, in a frozen order.

    ``cluster`` is the entity cluster sampling cycles through (a reservation, an
    order item, a user); ``control`` flags a target-value control, kept but apart;
    ``literal`` says the task's ground truth names the affected entity itself (the
    strict-admission sensitivity analysis keeps only those).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    candidate_id: str
    operator: str
    world: str
    domain: str
    task_id: str
    cluster: str
    rank: int
    params: SerializeAsAny[FaultParams] = Field(default_factory=FaultParams)
    control: bool = False
    literal: bool = True

    _params = field_validator("params", mode="before")(_typed_params)


class ArgumentProvenance(BaseModel):
    """Where a witness call's argument was obtainable: a ledger step and a path in it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    argument: str
    value: JsonValue
    source: ValueSource
    step: int | None
    path: str = ""


class InjectionContext(BaseModel):
    """The fixed context of a case: prefix through the fault-bearing observation, and more."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    injection_tool: str
    injection_match: JsonObject
    prefix_id: str
    prefix_sha256: str
    prefix: list[JsonObject]
    fault_step: int
    persistence: Literal["once", "persistent"]
    interface_sha256: str
    permissions: JsonObject = Field(default_factory=dict)


class Witness(BaseModel):
    """A legal continuation delivering counterevidence before the first dependent use."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    continuation: list[JsonObject]
    provenance: list[ArgumentProvenance]
    evidence_steps: list[int]
    counterevidence_step: int
    first_use_step: int
    first_use: str


class Case(BaseModel):
    """An admitted candidate (or a simple built-in fault) ready to run.

    ``params`` hold the operator's fault parameters (its params model); ``contract`` the fault contract
    that measurement reads; ``context`` and ``witness`` the admission record.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    operator: str
    world: str
    domain: str
    task_id: str
    max_steps: int = 30
    params: SerializeAsAny[FaultParams] = Field(default_factory=FaultParams)
    contract: FaultContract | None = None
    context: InjectionContext | None = None
    witness: Witness | None = None
    control: bool = False
    literal: bool = True
    cluster: str | None = None
    rank: int | None = None

    _params = field_validator("params", mode="before")(_typed_params)
