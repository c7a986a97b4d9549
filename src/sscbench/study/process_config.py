"""How a study's runs are made by child processes on this machine: ``[study.processes]``.

Placement only, never what runs: :mod:`sscbench.study.config` keeps these settings out
of the config hash (read by :mod:`sscbench.run.processes`).
"""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, Field


class ProcessSettings(BaseModel):
    """How a study runs on this machine's cores (``[study.processes]``).

    Where runs execute never changes what they are (the same index either way), so none
    of this is part of the config's hash: a study started locally resumes on processes.
    """

    model_config = ConfigDict(extra="forbid")

    workers: int | None = Field(
        None, ge=1, le=1024, description="child processes; default: this machine's CPU count"
    )
    attempts: int = Field(
        3,
        ge=1,
        le=100,
        description="how often a run is tried when its child process dies while it runs",
    )
    max_worker_losses: int = Field(
        20,
        ge=0,
        le=100_000,
        description="child processes lost (each counted once) a study rides out; one more "
        "stops it, the runs written kept (a resume goes on)",
    )
    start_timeout_s: float = Field(
        600, gt=0, le=86_400, description="how long to wait for a child to rebuild the study"
    )

    def worker_count(self) -> int:
        """The number of child processes: ``workers``, else the CPUs this process may use."""
        if self.workers is not None:
            return self.workers
        usable = getattr(os, "sched_getaffinity", None)
        return len(usable(0)) if usable is not None else (os.cpu_count() or 1)
