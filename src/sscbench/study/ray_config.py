"""Where a study's runs execute on a Ray cluster: ``[study.ray]`` and ``[agents.ray]``.

Placement only, never what runs: :mod:`sscbench.study.config` keeps these settings out
of the config hash. No Ray import here (read by :mod:`sscbench.run.ray_executor`).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class RaySettings(BaseModel):
    """How a study runs on a Ray cluster (``[study.ray]``; :mod:`sscbench.run.ray_executor`).

    Where runs execute never changes what they are (the same index either way), so none
    of this is part of the config's hash: a study started locally resumes on Ray.
    """

    model_config = ConfigDict(extra="forbid")

    address: str | None = Field(
        None,
        description="the cluster: 'auto', 'ray://HOST:PORT' or 'HOST:PORT'; default: start a "
        "private local cluster on 127.0.0.1 for this study and stop it afterwards",
    )
    workers: int = Field(2, ge=1, le=1024, description="worker actors per resource pool")
    worker_cpus: float = Field(1.0, ge=0, le=1024, description="CPUs each worker reserves")
    attempts: int = Field(
        3,
        ge=1,
        le=100,
        description="how often a run is tried when its worker dies while it runs (a worker "
        "lost or restarting before the run is sent is waited for, not counted)",
    )
    max_worker_losses: int = Field(
        20,
        ge=0,
        le=100_000,
        description="worker losses (each counted once) a study rides out; one more stops "
        "it, the runs written kept (a resume goes on)",
    )
    local_cpus: int = Field(2, ge=1, le=1024, description="CPUs of the private local cluster")
    object_store_mb: int = Field(
        150, ge=80, le=1_000_000, description="object store of the private local cluster"
    )
    start_timeout_s: float = Field(
        600, gt=0, le=86_400, description="how long to wait for the workers to rebuild the study"
    )


class AgentRaySettings(BaseModel):
    """Where an agent configuration's runs may execute (``[agents.ray]``): the custom
    resources a node must offer, e.g. ``{"node:gpu0" = 1}`` for the node serving its
    endpoint (each worker of the configuration's pool reserves them)."""

    model_config = ConfigDict(extra="forbid")

    resources: dict[str, Annotated[float, Field(gt=0)]] = Field(default_factory=dict)
