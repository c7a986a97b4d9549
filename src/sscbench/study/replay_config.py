"""A recorded-runs agent's settings: ``[agents.replay]`` (τ-bench's trajectory format).

Read by :mod:`sscbench.study.config` (an agent of kind ``replay``) and
:mod:`sscbench.agents.recordings`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from sscbench.errors import DataError
from sscbench.recordings.formats import detect_head, format_names, recording_format
from sscbench.study.config_hash import LATER

PATH_MAX = 4096
"""Longest path the operating system takes (Linux's ``PATH_MAX``)."""


def usable_path(text: str) -> str:
    """A config's path as written, refused (``ValueError``, so the config's error names
    the field) when no system could open it: a NUL byte, or longer than ``PATH_MAX``."""
    if "\x00" in text:
        raise ValueError("a path cannot hold a NUL byte")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > PATH_MAX:
        raise ValueError(f"a path may have at most {PATH_MAX} bytes, not {size:,}")
    return text


ConfigPath = Annotated[str, AfterValidator(usable_path)]
"""A path field of a study config (see :func:`usable_path`)."""


def known_format(name: str) -> str:
    """A recording format's name, refused (``ValueError``, naming the known ones) when
    no format of that name is registered (:data:`sscbench.recordings.formats.FORMATS`)."""
    if name not in format_names():
        raise ValueError(f"unknown recording format {name!r}; known: {list(format_names())}")
    return name


FormatName = Annotated[
    str, AfterValidator(known_format), Field(json_schema_extra={"enum": list(format_names())})
]
"""A ``format`` field: the name of a registered recording format."""


class ReplaySettings(BaseModel):
    """A recording of real runs replayed as an agent: τ-bench's trajectory format, or
    τ²-bench's results format (``format = "tau2"``, detected when not given).

    ``path`` is resolved against the config file's folder; ``sha256`` is filled in
    when the config is loaded (a given value must match the file), so the recording
    is part of the study's config hash. Which recorded runs of a case's task are
    replayed: ``trials`` (recorded trial numbers) or ``runs`` (``"all"`` or the first
    n, in file order); each selected recording is one repetition. Or ``pairs``: a
    JSONL file naming exact (case, recording[, edits]) pairs, one faulted run each
    (:mod:`sscbench.agents.pairs`); its sha256 is recorded like the recording's.

    A τ² conversation's task is found from its content (:mod:`sscbench.recordings.task_match`),
    since τ² renumbers τ-bench's tasks; the world must be τ-bench's.
    """

    model_config = ConfigDict(extra="forbid")

    path: ConfigPath = Field(min_length=1)
    sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    trials: list[int] | None = Field(None, min_length=1)
    runs: Literal["all"] | int | None = None
    split: str = Field("test", description="the τ-bench task split the recording's ids are in")
    qualify: Literal["reward", "completed"] = Field(
        "reward",
        description="what qualifies the clean replay for its faulted run: reward 1 "
        "(as for every agent) or merely completed (no harness error)",
    )
    format: FormatName | None = Field(
        None,
        description="the recording's format: τ-bench's trajectory list or τ²-bench's "
        "results file (detected when not given)",
        json_schema_extra=LATER,
    )
    pairs: str | None = Field(
        None,
        min_length=1,
        description="JSONL file of exact (case, recording[, edits]) pairs to replay "
        "(relative to the config file's folder)",
        json_schema_extra=LATER,
    )
    pairs_sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$", json_schema_extra=LATER)
    _resolved: Path | None = PrivateAttr(None)
    _pairs_resolved: Path | None = PrivateAttr(None)
    _world_data: Path | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _one_selection(self) -> ReplaySettings:
        if self.trials is not None and self.runs is not None:
            raise ValueError("give 'trials' or 'runs', not both")
        if isinstance(self.runs, int) and self.runs < 1:
            raise ValueError("'runs' must be \"all\" or a count >= 1")
        if self.pairs is not None and (self.trials is not None or self.runs is not None):
            raise ValueError("give 'pairs' or a selection ('trials', 'runs'), not both")
        return self

    @property
    def resolved(self) -> Path:
        """The recording's path, resolved against the config file's folder."""
        return self._resolved if self._resolved is not None else Path(self.path)

    @property
    def pairs_path(self) -> Path | None:
        """The pairs file, resolved against the config file's folder (None: no pairs)."""
        if self.pairs is None:
            return None
        return self._pairs_resolved if self._pairs_resolved is not None else Path(self.pairs)

    @property
    def world_data(self) -> Path | None:
        """The τ-bench data folder the study's world reads (for matching τ² tasks)."""
        return self._world_data

    def resolve_pairs(self, resolve: Callable[[str], Path], config: str | Path, field: str) -> None:
        """Resolve the pairs file (``resolve``: the config's path resolver) and record, or
        check, its sha256; errors name the config file and the field."""
        if self.pairs is None:
            return
        resolved = resolve(self.pairs)
        fields = (f"{field}.pairs", f"{field}.pairs_sha256")
        digest = checked_sha256(resolved, self.pairs_sha256, config, fields)
        self.pairs_sha256 = digest
        self._pairs_resolved = resolved

    def detect_format(self, config: str | Path, field: str, first_call_only: bool) -> None:
        """Set ``format`` to the format the recording's first characters show
        (:func:`~sscbench.recordings.formats.detect_head`); the default format (τ-bench's)
        leaves it as given, so configs written before formats existed keep their hash. A
        given format that does not fit the file is an error naming the field, and so is a
        format whose messages make several calls (τ²'s) under τ-bench's first-call-only
        rule."""
        try:
            with self.resolved.open(encoding="utf-8") as handle:
                head = handle.read(4096).lstrip()
        except (OSError, UnicodeDecodeError) as exc:
            raise DataError(config, f"{field}.path", f"cannot read {self.resolved}: {exc}") from exc
        found = detect_head(head)
        if self.format is not None and not recording_format(self.format).detect(head):
            raise DataError(
                config,
                f"{field}.format",
                f"{self.resolved} is in {found.name}'s format, not {self.format}'s",
            )
        if self.format is None and found is not recording_format(None):
            self.format = found.name
        reader = recording_format(self.format)
        if reader.several_calls_per_message and first_call_only:
            raise DataError(
                config,
                "study.first_tool_call_only",
                f"{reader.name} recordings make several tool calls per message: set it to false",
            )


def checked_sha256(
    resolved: Path, given: str | None, config: str | Path, fields: tuple[str, str]
) -> str:
    """The sha256 of an input file a config names; an unreadable file, or one whose
    content differs from a ``given`` sha256, is an error naming the config and the field
    (``fields``: the path's field and the sha256's)."""
    try:
        with resolved.open("rb") as handle:  # streamed: a recording may be large
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        message = f"cannot read {resolved}: {exc.strerror or exc}"
        raise DataError(config, fields[0], message) from exc
    if given is not None and given != digest:
        raise DataError(config, fields[1], f"{resolved} has sha256 {digest}, not the one given")
    return digest
