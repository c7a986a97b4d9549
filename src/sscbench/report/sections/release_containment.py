"""The release section's containment-plan table: the typed plan the campaign was checked
against before its runs (``STUDY/containment.json``, written by ``sscbench run
--containment POLICY``), read as recorded, never re-derived."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from sscbench.errors import DataError
from sscbench.json_types import JsonMapping, JsonValue
from sscbench.reading import read_json
from sscbench.report.model import Table
from sscbench.terminal import count

RECORD = "containment.json"
NO_PLAN = (
    "No containment plan was checked before this campaign's runs "
    "(sscbench run CONFIG --containment POLICY refuses a campaign outside its plan)."
)


class ContainmentRow(TypedDict):
    """One field of the checked plan beside what the campaign planned."""

    field: str
    plan: JsonValue
    campaign: str


def _object(value: JsonValue) -> JsonMapping:
    """A recorded object (``{}`` when the record has none)."""
    return value if isinstance(value, dict) else {}


def _faulted(finished: object) -> str:
    """A recorded count of faulted runs in words: "1 faulted run", as recorded if not a number."""
    return (
        count(finished, "faulted run") if isinstance(finished, int) else f"{finished} faulted runs"
    )


def _abort(record: JsonMapping) -> str:
    """What the abort metric did while the runs ran, as recorded."""
    abort = record.get("abort")
    if isinstance(abort, dict):
        return (
            f"ABORTED: {abort.get('metric')} {abort.get('interval')} crossed "
            f"{abort.get('threshold')} after {_faulted(abort.get('faulted_runs_finished'))}; "
            "no new run was scheduled, the finished runs are kept"
        )
    if record.get("abort_enforced"):
        return "enforced as the runs finished; never crossed"
    return "stated; not read while the runs ran"


def containment_rows(record: JsonMapping) -> list[ContainmentRow]:
    """The plan's fields beside what the campaign planned, one row per field."""
    plan = _object(record.get("plan"))
    window = _object(plan.get("window"))
    by_family = _object(record.get("by_family"))
    effects = _object(record.get("effects"))
    allowed = plan.get("allowed_effects")
    planned = ", ".join(f"{op} {by_family[op]}" for op in sorted(by_family))
    used = ", ".join(f"{op}: {effects[op] or 'no typed description'}" for op in sorted(effects))
    return [
        {
            "field": "max_affected",
            "plan": plan.get("max_affected"),
            "campaign": f"{record.get('faulted_runs')} faulted runs planned ({planned})",
        },
        {
            "field": "allowed_effects",
            "plan": ", ".join(str(e) for e in allowed) if isinstance(allowed, list) else "",
            "campaign": used,
        },
        {
            "field": "window",
            "plan": f"{window.get('start')} to {window.get('end')}",
            "campaign": f"checked at {record.get('checked_at')}",
        },
        {"field": "abort_metric", "plan": record.get("abort_rule"), "campaign": _abort(record)},
        {"field": "restoration", "plan": plan.get("restoration"), "campaign": ""},
        {"field": "owner", "plan": plan.get("owner"), "campaign": ""},
    ]


def containment_table(study: Path) -> tuple[Table | None, list[ContainmentRow]]:
    """The table and CSV rows of the recorded check (None and [] when none was recorded;
    an unreadable record is said so in the table, never taken for a plan)."""

    path = Path(study) / RECORD
    if not path.is_file():
        return None, []
    table = Table(
        "containment-table",
        "Containment plan checked before the campaign's runs",
        f"the plan of {path.name} against the campaign's planned faulted runs",
        ["field", "plan", "campaign"],
    )
    try:
        record = read_json(path)
        rows = containment_rows(record if isinstance(record, dict) else {})
    except (DataError, ValueError) as exc:
        table.add("record", f"unreadable: {getattr(exc, 'reason', exc)}", "")
        return table, []
    for row in rows:
        table.add(row["field"], "–" if row["plan"] is None else row["plan"], row["campaign"])
    if isinstance(record, dict) and isinstance(record.get("abort"), dict):
        table.notes.append(
            "The campaign was stopped by its abort metric: the evidence below covers only the "
            "runs finished before the stop."
        )
    return table, rows
