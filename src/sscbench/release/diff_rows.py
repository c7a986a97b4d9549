"""The shapes of ``sscbench release diff``: what one release holds once read, one side
of a compared interval, and the metric, transfer and control rows of the comparison
(:mod:`sscbench.release.diff` builds them, :mod:`sscbench.release.diff_cli` prints and
writes them; ``release-diff.json`` is the :class:`ReleaseDiff` as JSON).

Typed dictionaries, not models: the rows are plain JSON the diff writes as they are,
and a TypedDict costs nothing at run time while mypy checks every key read of them.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from sscbench.json_types import JsonObject, JsonValue

Only = Literal["a", "b"] | None
"""Which release alone has the row (None: both do)."""


class Release(TypedDict):
    """One release's rows as read from its ``evidence.json`` (``path``: the file);
    a control table a release was written without is None, never empty."""

    path: str
    families: list[JsonObject]
    transfer: list[JsonObject]
    negative_controls: list[JsonObject] | None
    unsolvable: list[JsonObject] | None


class Side(TypedDict):
    """One side's interval as the diff shows it (every value None: the side lacks it)."""

    label: JsonValue
    estimate: float | None
    low: float | None
    high: float | None
    n: JsonValue


class Comparison(TypedDict):
    """A's and B's side, B − A of the estimates and whether the intervals overlap."""

    a: Side
    b: Side
    difference: float | None
    overlap: bool | None


class Named(Comparison):
    """A comparison of one configuration and family."""

    config_id: str
    family: str


class MetricDiff(Named):
    """One metric (or the detection latency) of a configuration and family."""

    metric: str
    only: Only


class Pair(TypedDict):
    """A value of release A and of release B, as each file holds it."""

    a: JsonValue
    b: JsonValue


class TransferDiff(Named):
    """One transfer-matrix cell (a checkpoint) of a configuration and family."""

    checkpoint: str
    first_invalid: Pair
    activated: Pair


class ControlDiff(Named):
    """One rate of a control table's row (negative controls or unsolvable trials)."""

    table: str
    rate: str
    only: Only


class Kept(TypedDict):
    """Whether each release kept its control rows."""

    a: bool
    b: bool


class ReleaseDiff(TypedDict):
    """The whole comparison of releases A and B (``release-diff.json``)."""

    a: str
    b: str
    metrics: list[MetricDiff]
    transfer: list[TransferDiff]
    controls: list[ControlDiff]
    controls_kept: Kept


__all__ = [
    "Comparison",
    "ControlDiff",
    "Kept",
    "MetricDiff",
    "Named",
    "Only",
    "Pair",
    "Release",
    "ReleaseDiff",
    "Side",
    "TransferDiff",
]
