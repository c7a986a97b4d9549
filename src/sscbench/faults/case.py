"""A case: an admitted fault instance on a concrete task, ready to run."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Case(BaseModel):
    """An operator instantiated on a task and entity, with what is needed to inject it.

    ``params`` hold the operator's fault parameters (target ids, injected value...);
    ``contract`` the fault contract measurement reads; ``witness`` the admission
    evidence. Cases are stored one per line in ``cases.jsonl``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    operator: str
    world: str
    domain: str
    task_id: str
    max_steps: int = 30
    params: dict[str, Any] = Field(default_factory=dict)
    contract: dict[str, Any] | None = None
    witness: dict[str, Any] | None = None
    control: bool = False
