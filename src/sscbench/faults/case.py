"""Candidates and cases: an operator on a concrete task and entity, before and after admission."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sscbench.faults.contract import FaultContract


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
    params: dict[str, Any] = Field(default_factory=dict)
    control: bool = False
    literal: bool = True


class ArgumentProvenance(BaseModel):
    """Where a witness call's argument was obtainable: a ledger step and a path in it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    argument: str
    value: Any
    source: str  # "observation" | "user" | "system" | "task"
    step: int | None
    path: str = ""


class InjectionContext(BaseModel):
    """The fixed context of a case: prefix through the fault-bearing observation, and more."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    injection_tool: str
    injection_match: dict[str, Any]
    prefix_id: str
    prefix_sha256: str
    prefix: list[dict[str, Any]]
    fault_step: int
    persistence: str
    interface_sha256: str
    permissions: dict[str, Any] = Field(default_factory=dict)


class Witness(BaseModel):
    """A legal continuation delivering counterevidence before the first dependent use."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    continuation: list[dict[str, Any]]
    provenance: list[ArgumentProvenance]
    evidence_steps: list[int]
    counterevidence_step: int
    first_use_step: int
    first_use: str


class Case(BaseModel):
    """An admitted candidate (or a simple built-in fault) ready to run.

    ``params`` hold the operator's fault parameters; ``contract`` the fault contract
    that measurement reads; ``context`` and ``witness`` the admission record.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    operator: str
    world: str
    domain: str
    task_id: str
    max_steps: int = 30
    params: dict[str, Any] = Field(default_factory=dict)
    contract: FaultContract | None = None
    context: InjectionContext | None = None
    witness: Witness | None = None
    control: bool = False
    literal: bool = True
    cluster: str | None = None
    rank: int | None = None
