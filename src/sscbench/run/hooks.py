"""What the layers above ``run`` plug into ``sscbench run``: the run hooks, as Protocols.

``run`` sits below ``oracles``, ``release``, ``report`` and ``integrations``, so the
command cannot import what they do after, around or before the runs; the top ``cli.py``
passes their functions in (:func:`sscbench.run.cli.run_command`). Each hook's shape is
stated here, so mypy checks every one passed against it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from sscbench.errors import DataError
from sscbench.json_types import JsonObject

if TYPE_CHECKING:  # named in annotations only: importing the command stays light
    from sscbench.study.config import StudyConfig
    from sscbench.study.folder import IndexEntry


class AfterRuns(Protocol):
    """``--report``: measure the study in ``out`` and write its report; ``config`` is the
    study config (its ``[oracles]`` are scored there)."""

    def __call__(self, out: Path, config: StudyConfig, /) -> None:
        """Measure and report the study in ``out``."""
        ...


class LiveRuns(Protocol):
    """Makes the per-run callback for a study config (e.g. the live OTel traces), or
    None when the config asks for none; the callback gets each finished run's entry."""

    def __call__(self, config: StudyConfig, out: Path, /) -> Callable[[IndexEntry], None] | None:
        """The callback for this study, or None."""
        ...


class CampaignCheck(Protocol):
    """``--containment POLICY``: refuse (DataError) a campaign the policy's containment
    plan does not allow, before any run; else the record for ``STUDY/containment.json``."""

    def __call__(self, config: StudyConfig, policy: Path, /) -> JsonObject:
        """The containment record of an allowed campaign."""
        ...


class ConfigCheck(Protocol):
    """Refuse (DataError naming ``path`` and the field) a config that could not be
    carried through (the oracles layer's check of ``[oracles]``), before any run."""

    def __call__(self, config: StudyConfig, path: str | Path, /) -> None:
        """Raise when the config cannot be carried through."""
        ...


class RunWatch(Protocol):
    """The abort watch of a campaign: asked after each run whether the plan's abort
    metric crossed (True stops the campaign); ``abort`` is then its record."""

    @property
    def abort(self) -> JsonObject | None:
        """The abort's record once the metric crossed, else None."""
        ...

    def __call__(self, entry: IndexEntry, /) -> bool:
        """Whether the campaign stops after the run of ``entry``."""
        ...


class CampaignWatch(Protocol):
    """Makes the abort watch of the policy's containment plan for the study in ``out``."""

    def __call__(self, policy: Path, out: Path, /) -> RunWatch:
        """The watch."""
        ...


@dataclass(frozen=True)
class RunHooks:
    """What the layers above ``run`` plug into the command (see
    :func:`sscbench.run.cli.run_command`); every hook but ``after_runs`` may be absent."""

    after_runs: AfterRuns
    on_run: LiveRuns | None = None
    check_campaign: CampaignCheck | None = None
    check_config: ConfigCheck | None = None
    watch_campaign: CampaignWatch | None = None


def containment_record(
    check: CampaignCheck | None, study: StudyConfig, policy: Path | None
) -> JsonObject | None:
    """The containment check of ``--containment POLICY`` (None without the option)."""
    if policy is None:
        return None
    if check is None:
        raise DataError("--containment", None, "this sscbench run cannot check a containment plan")
    return check(study, policy)


def abort_watch(
    watch: CampaignWatch | None, policy: Path | None, out: Path, resume: bool
) -> RunWatch | None:
    """Refuse to resume an aborted campaign (unless ``resume``); the abort watch of
    ``--containment POLICY`` (None without the option), called after each run."""
    from sscbench.study.aborted import refuse_aborted

    if not resume:
        refuse_aborted(out)
    return watch(policy, out) if watch is not None and policy is not None else None


__all__ = [
    "AfterRuns",
    "CampaignCheck",
    "CampaignWatch",
    "ConfigCheck",
    "LiveRuns",
    "RunHooks",
    "RunWatch",
    "abort_watch",
    "containment_record",
]
