"""The ``oracle-settings`` section: Table II, every oracle setting that was scored.

One row per result file in ``STUDY/oracles/`` (written by ``sscbench validate-oracle``):
which of the paper's inputs the setting reads (numbered trajectory, tool schema, domain
policy, relation contract, mined invariants) and what else, how its answer is read as a
verdict, the model calls it makes per trajectory as declared, and the calls its
verdicts recorded over the judged runs. A setting that declares no inputs (an oracle
from elsewhere, or a file scored before inputs were recorded) says so rather than
guessing. The rows follow :data:`PAPER_ORDER`, the order of the paper's settings, which
Table V (the ``oracles`` section) uses too.
"""

from __future__ import annotations

from collections.abc import Mapping

from sscbench.json_types import JsonMapping, JsonValue
from sscbench.oracles.inputs import INPUT_COLUMNS
from sscbench.report.context import ReportContext
from sscbench.report.entries import CsvRow
from sscbench.report.model import Section, Table

SCHEMA = "sscbench.oracle-scores/1"
ID = "oracle-settings"
TITLE = "Table II — Oracle settings"
# The paper's settings in its order (B1, B2-L0, B2-L1, B3, B4, B5), then sscbench's own
# measurement; any other scored oracle follows by name.
PAPER_ORDER = (
    "anomaly-judge",
    "llm-l0",
    "llm-l1",
    "attribution-all-at-once",
    "attribution-step-by-step",
    "step-only",
    "invariants",
    "rules",
)
CSV_COLUMNS = [
    "oracle",
    "paper",
    *(field for field, _ in INPUT_COLUMNS),
    "other",
    "answer",
    "calls_declared",
    "judged",
    "calls_total",
    "calls_per_trajectory",
    "calls_max",
    "context",
]


def in_paper_order(results: Mapping[str, JsonMapping]) -> dict[str, JsonMapping]:
    """``results`` with the paper's settings first, in the paper's order, then the rest
    by name."""
    rank = {name: i for i, name in enumerate(PAPER_ORDER)}
    return {n: results[n] for n in sorted(results, key=lambda n: (rank.get(n, len(rank)), n))}


def _made(calls: JsonValue) -> str:
    """The model calls a setting's verdicts recorded."""
    if not isinstance(calls, dict) or not calls.get("judged"):
        return "not recorded"
    return (
        f"{calls['total']} over {calls['judged']} judged runs "
        f"(mean {calls['per_trajectory']:g}, max {calls['max']})"
    )


def _csv_row(name: str, result: JsonMapping) -> CsvRow:
    """A scored setting's row of ``oracle-settings.csv``."""
    inputs = result.get("inputs") if result.get("schema") == SCHEMA else None
    recorded = result.get("calls")
    calls: JsonMapping = recorded if isinstance(recorded, dict) else {}
    row: CsvRow = {"oracle": name, "context": result.get("context", "")}
    if isinstance(inputs, dict):
        row.update({k: inputs.get(k) for k, _ in INPUT_COLUMNS})
        row.update(paper=inputs.get("paper"), other=inputs.get("other"))
        row.update(answer=inputs.get("answer"), calls_declared=inputs.get("calls"))
    row.update(
        judged=calls.get("judged"),
        calls_total=calls.get("total"),
        calls_per_trajectory=calls.get("per_trajectory"),
        calls_max=calls.get("max"),
    )
    return {c: row.get(c) for c in CSV_COLUMNS}


def settings_table(results: Mapping[str, JsonMapping]) -> tuple[Table, list[CsvRow]]:
    """Table II and its CSV rows, one per scored setting in the paper's order."""
    table = Table(
        "oracle-settings-table",
        TITLE,
        "every oracle setting scored in STUDY/oracles/; calls made count the model calls "
        "of its verdicts on the judged reference runs and clean controls",
        [
            "setting",
            "paper's kind",
            *(heading for _, heading in INPUT_COLUMNS),
            "other inputs",
            "answer read as",
            "model calls per trajectory",
            "calls made",
        ],
    )
    rows = []
    for name, result in in_paper_order(results).items():
        row = _csv_row(name, result)
        rows.append(row)
        cells: list[object]
        if row["answer"] is None:
            undeclared = "not declared" if result.get("schema") == SCHEMA else "plain scoring"
            cells = ["–", *[undeclared] * len(INPUT_COLUMNS), "–", "–", "–"]
        else:
            marks = ["✓" if row[k] else "–" for k, _ in INPUT_COLUMNS]
            cells = [row["paper"] or "–", *marks, row["other"] or "–", row["answer"]]
            cells.append(row["calls_declared"])
        table.add(name, *cells, _made(result.get("calls")), key=name)
    table.notes.append(
        "The paper's kinds: B1 anomaly detection, B2 the LLM adoption judge (L0; L1 with "
        "the relation contract), B3 failure attribution (as in the AgentRx and Who&When "
        "lines of work; ours are written from their public descriptions), B4 a step only, "
        "B5 invariants mined from clean database states (L-DB)."
    )
    return table, rows


def build(ctx: ReportContext) -> Section:
    """Table II of the study's scored oracles."""
    return oracle_settings_section(ctx.oracle_results)


def oracle_settings_section(results: Mapping[str, JsonMapping]) -> Section:
    """Table II for every scored oracle setting, with its CSV rows (``oracle-settings``)."""
    section = Section(ID, TITLE, csvs={"oracle-settings": []})
    if not results:
        section.reason = (
            "no oracle results (score oracles with `sscbench validate-oracle STUDY --oracle "
            "NAME ...` or the study config's [oracles] settings; each setting scored is "
            "listed here with its inputs)"
        )
        return section
    table, rows = settings_table(results)
    section.intro = (
        "What each scored oracle setting reads and how its answer becomes a verdict; Table V "
        "(next section) scores them. No setting is told whether a run is faulted or a clean "
        "control; only the rules read the measurement row, which knows the run's condition."
    )
    section.tables.append(table)
    section.csvs["oracle-settings"] = rows
    return section
