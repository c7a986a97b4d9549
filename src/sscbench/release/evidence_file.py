"""The shape of a written ``evidence.json`` as ``sscbench release diff`` reads it: every
row an object naming its configuration and family, every metric, checkpoint and rate an
interval object (or null where a release has none), so a hand-edited or foreign file is
refused on read naming the field (``families[1].metrics``), never met as an
``AttributeError`` halfway through the comparison."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import DataError
from sscbench.json_types import JsonObject, JsonValue

Interval = JsonObject | None
"""One interval (``estimate``, ``low``, ``high``, ``denominator``, ``label``), or none."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="allow")

    config_id: str
    family: str


class FamilyRow(_Row):
    """A ``families`` row: the metrics' intervals and the detection latency."""

    metrics: dict[str, Interval] = {}
    latency: JsonObject | None = None


class TransferRow(_Row):
    """A ``transfer`` cell: P(checkpoint invalid | activated) per checkpoint."""

    invalid: dict[str, Interval] = {}
    first_invalid: str | None = None


class ControlRow(_Row):
    """A ``negative_controls`` or ``unsolvable`` row: its rates' intervals."""

    rates: dict[str, Interval] = {}


class EvidenceFile(BaseModel):
    """What the diff reads of ``evidence.json`` (other keys are kept, not checked)."""

    model_config = ConfigDict(extra="allow")

    families: list[FamilyRow]
    transfer: list[TransferRow]
    negative_controls: list[ControlRow] | None = None
    unsolvable: list[ControlRow] | None = None


def field_name(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as the field it names: ``families[1].metrics``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def check_evidence(path: Path, data: JsonValue) -> None:
    """Refuse ``data`` (read from ``path``) unless it has the shape of release evidence;
    the :class:`DataError` names the file and the first bad field."""
    try:
        EvidenceFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = field_name(tuple(first["loc"])) or None
        raise DataError(
            path, where, f"{first['msg'].lower()}: this is not release evidence"
        ) from None
