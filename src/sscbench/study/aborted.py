"""An aborted campaign is not resumed by accident.

``sscbench run CONFIG --containment POLICY`` stops scheduling runs when the plan's abort
metric crosses its threshold (:mod:`sscbench.release.abort`) and records the stop under
``abort`` in ``STUDY/containment.json``. Running the same command again would resume
the campaign past its own stop, so it is refused unless the operator says so
(``--resume-aborted``) or starts anew (``--restart``).
"""

from __future__ import annotations

from pathlib import Path

from sscbench.errors import DataError
from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.reading import read_json

RECORD = "containment.json"
"""The containment record in the study folder (written by ``sscbench run --containment``)."""
ABORT = "abort"
"""The key of the abort in the record (absent: the campaign never aborted)."""


def recorded_abort(out: Path) -> JsonObject | None:
    """The abort ``STUDY/containment.json`` records (None: no abort, or no record)."""
    path = Path(out) / RECORD
    if not Path(out).is_dir():  # no study there (yet): the folder checks speak for it
        return None
    if not path.exists():
        return None
    try:
        data: JsonValue = read_json(path)
    except DataError as exc:  # fail closed: an unreadable record is not "no abort"
        raise DataError(path, None, f"unreadable containment record: {exc.reason}") from exc
    abort = data.get(ABORT) if isinstance(data, dict) else None
    return abort if isinstance(abort, dict) else None


def refuse_aborted(out: Path) -> None:
    """Refuse (DataError naming ``containment.json`` and ``abort``) to resume a campaign
    its abort metric stopped."""
    abort = recorded_abort(out)
    if abort is None:
        return
    raise DataError(
        Path(out) / RECORD,
        ABORT,
        f"the campaign was aborted by its containment plan ({abort.get('rule')}: "
        f"{abort.get('metric')} {abort.get('value')} after "
        f"{abort.get('faulted_runs_finished')} faulted runs); resuming it is refused: "
        "pass --resume-aborted to continue anyway, or --restart to start anew",
    )


def abort_lines(abort: JsonMapping, finished: int, planned: int) -> list[str]:
    """What the terminal says of an abort."""
    return [
        f"campaign aborted by its containment plan: {abort['rule']} crossed — "
        f"{abort['metric']} {abort['interval']} over {abort['faulted_runs_finished']} "
        "finished faulted runs",
        f"no new run was scheduled; the {finished}/{planned} runs finished are kept; "
        "the abort is recorded in containment.json (resuming needs --resume-aborted)",
    ]


__all__ = ["ABORT", "RECORD", "abort_lines", "recorded_abort", "refuse_aborted"]
