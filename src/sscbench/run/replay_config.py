"""A recorded-runs agent's settings: ``[agents.replay]`` (τ-bench's trajectory format).

Read by :mod:`sscbench.run.config` (an agent of kind ``replay``) and
:mod:`sscbench.agents.recordings`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator


class ReplaySettings(BaseModel):
    """A recording of real runs replayed as an agent: τ-bench's trajectory format.

    ``path`` is resolved against the config file's folder; ``sha256`` is filled in
    when the config is loaded (a given value must match the file), so the recording
    is part of the study's config hash. Which recorded runs of a case's task are
    replayed: ``trials`` (recorded trial numbers) or ``runs`` (``"all"`` or the first
    n, in file order); each selected recording is one repetition.
    """

    model_config = ConfigDict(extra="forbid")


    path: str = Field(min_length=1)
    sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    trials: list[int] | None = Field(None, min_length=1)
    runs: Literal["all"] | int | None = None
    split: str = Field("test", description="the τ-bench task split the recording's ids are in")
    qualify: Literal["reward", "completed"] = Field(
        "reward",
        description="what qualifies the clean replay for its faulted run: reward 1 "
        "(as for every agent) or merely completed (no harness error)",
    )
    _resolved: Path | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _one_selection(self) -> ReplaySettings:
        if self.trials is not None and self.runs is not None:
            raise ValueError("give 'trials' or 'runs', not both")
        if isinstance(self.runs, int) and self.runs < 1:
            raise ValueError("'runs' must be \"all\" or a count >= 1")
        return self

    @property
    def resolved(self) -> Path:
        """The recording's path, resolved against the config file's folder."""
        return self._resolved if self._resolved is not None else Path(self.path)
