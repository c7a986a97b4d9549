"""The funnel section's admission table: the admission funnel beside the execution
funnel — candidates considered in the frozen order, rejected in semantic review,
replaced from the same order, and the rank reached.

``sscbench admit`` writes it as ``admission.json`` next to the cases it admits, and a
study that admits its own cases (``[cases] operators``) into the study. The report
reads ``STUDY/admission.json``, else the one beside the study's ``cases.file``.
A record that does not list the study's cases of an operator is not shown for it (the
note says so): it would describe another admission.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.reading import read_json
from sscbench.report.entries import CsvRow, int_at, text_at
from sscbench.report.model import Section, Table

ADMISSION_COLUMNS = ("candidates_considered", "rejected_in_review", "replaced", "rank_reached")
"""The admission columns of ``tables/funnel.csv`` (blank without an admission record)."""
POPULATION = "admission: candidates of the frozen order, before any run"


def find_admission(study: Path, config: JsonMapping, base_dir: str | None) -> Path | None:
    """Where the study's admission record is: in the study, or beside its cases file."""
    inside = study / "admission.json"
    if inside.is_file():
        return inside
    cases_table = config.get("cases")
    file = cases_table.get("file") if isinstance(cases_table, dict) else None
    if not file or not isinstance(file, str):
        return None
    cases = Path(file).expanduser()
    if not cases.is_absolute():
        cases = Path(base_dir or ".") / cases
    beside = cases.parent / "admission.json"
    return beside if beside.is_file() else None


def read_admission(path: Path) -> tuple[list[JsonObject], str]:
    """The record's per-operator funnels, or none and why (an unreadable record is named,
    never half read)."""
    try:
        data = read_json(path)
        operators = data["operators"]
        if not isinstance(operators, list) or not all(isinstance(o, dict) for o in operators):
            raise TypeError("operators must be a list of objects")
        for entry in operators:
            for key in ("operator", "admitted", "cases", *ADMISSION_COLUMNS):
                if key not in entry:
                    raise KeyError(key)
    except (DataError, OSError, ValueError, KeyError, TypeError) as exc:
        return [], f"The admission record {path} cannot be read ({exc!r}); not shown."
    return operators, ""


def matching(
    operators: Sequence[JsonMapping], cases: dict[str, Case]
) -> tuple[list[JsonMapping], list[str]]:
    """The operators whose record lists every one of the study's cases, and the others."""
    shown: list[JsonMapping] = []
    refused: list[JsonMapping] = []
    for entry in operators:
        ours = {cid for cid, c in cases.items() if c.operator == entry["operator"]}
        listed = entry["cases"]
        (shown if ours and isinstance(listed, list) and ours <= set(listed) else refused).append(
            entry
        )
    return shown, [str(e["operator"]) for e in refused]


def admission_table(operators: Sequence[JsonMapping]) -> Table:
    """The admission funnel per operator; a reviewed row says "n reached by rank r"."""
    table = Table(
        "admission-table",
        "Admission funnel per operator (frozen candidate order, semantic review)",
        POPULATION,
        [
            "operator",
            "enumerated",
            "valid",
            "target",
            "candidates considered",
            "witnessed",
            "rejected in review",
            "replaced",
            "admitted",
            "rank reached",
        ],
    )
    for e in operators:
        rank = e["rank_reached"]
        reached = f"{e['admitted']} reached by rank {rank}" if rank is not None else "–"
        review = e.get("reviewed", True)
        table.add(
            e["operator"],
            e.get("enumerated"),
            e.get("valid"),
            e.get("target"),
            e["candidates_considered"],
            e.get("witnessed"),
            e["rejected_in_review"] if review else "not reviewed",
            e["replaced"] if review else "–",
            e["admitted"],
            reached,
            key=text_at(e, "operator"),
        )
    table.notes.append(
        "Candidates are screened in one frozen order (cluster-cycling by stable rank); a "
        "case rejected in semantic review is replaced by the next admissible candidate of "
        "the same order. Replaced counts the initially selected cases that left the sample; "
        "rank reached is the frozen-order rank of the last admitted case."
    )
    return table


def csv_fields(operators: Sequence[JsonMapping], name: str) -> CsvRow:
    """The admission columns of one funnel CSV row (``all operators``: sums, no rank)."""
    if name == "all operators":
        if not operators:
            return dict.fromkeys(ADMISSION_COLUMNS, "")
        sums = {k: sum(int_at(e, k) for e in operators) for k in ADMISSION_COLUMNS[:3]}
        return {**sums, "rank_reached": ""}
    entry = next((e for e in operators if e["operator"] == name), None)
    if entry is None:
        return dict.fromkeys(ADMISSION_COLUMNS, "")
    return {k: "" if entry[k] is None else entry[k] for k in ADMISSION_COLUMNS}


def add_admission(
    section: Section,
    csv_rows: list[CsvRow],
    study: Path,
    cases: dict[str, Case],
    meta: JsonMapping,
) -> None:
    """Put the study's admission record (when there is one) in the funnel section and
    its admission columns in every funnel CSV row; ``meta`` is the study's recorded
    ``config.json`` (its ``config`` and ``base_dir`` say where the cases file is)."""
    config, base_dir = meta.get("config"), meta.get("base_dir")
    where = find_admission(
        study,
        config if isinstance(config, dict) else {},
        base_dir if isinstance(base_dir, str) else None,
    )
    operators, problem = read_admission(where) if where is not None else ([], "")
    shown, refused = matching(operators, cases)
    if shown:
        section.tables.append(admission_table(shown))
        section.notes.append([{"t": f"Admission record: {_shown(where, study)}."}])
    if problem:
        section.notes.append([{"t": problem}])
    if refused:
        section.notes.append(
            [
                {
                    "t": f"The admission record {_shown(where, study)} does not list the study's "
                    f"cases of {', '.join(refused)}; its funnel is not shown for them."
                }
            ]
        )
    for row in csv_rows:
        row.update(csv_fields(shown, text_at(row, "operator")))


def _shown(where: Path | None, study: Path) -> str:
    """The record's path, relative to the study when inside it."""
    if where is None:
        return ""
    return str(where.relative_to(study)) if where.is_relative_to(study) else str(where)
