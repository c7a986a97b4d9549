"""The ``oracles`` section: Table V for every scored oracle in ``STUDY/oracles/``.

Results written by ``sscbench validate-oracle STUDY --oracle NAME`` (schema
``sscbench.oracle-scores/1``) give four panels: (a) adoption identification, (b)
first-faulty-reliance localization, (c) adoption F1 / exact T_U by operator, (d) recall
/ exact T_U by the reference's arrival stratum. Rows are the scored settings in the
paper's order (B1, B2-L0, B2-L1, B3, B4, B5, then the rules and any other oracle; see
:data:`~sscbench.report.sections.oracle_settings.PAPER_ORDER`), each with its paper kind;
Table II (the ``oracle-settings`` section) lists what each reads. Older files (the plain
scoring's ``--json`` output, one flat row per stratum) are shown in their own table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.oracles.table import tidy_rows
from sscbench.report.context import ReportContext
from sscbench.report.entries import Entry, number_at
from sscbench.report.model import Cell, Section, Table, label_cell
from sscbench.report.sections.oracle_settings import in_paper_order

ID = "oracles"
TITLE = "Automated recovery of measurement targets"
SCHEMA = "sscbench.oracle-scores/1"
LEGACY_COLUMNS = (
    "runs",
    "abstentions",
    "precision",
    "recall",
    "f1",
    "kappa",
    "t_u_exact",
    "t_u_within_1",
)


def _object(value: JsonValue) -> JsonMapping | None:
    """A JSON object of a result file, or None when the value is not one."""
    return value if isinstance(value, dict) else None


def _label(cell: JsonValue) -> Cell | JsonValue:
    """An interval cell's label (``k/n (rate, CI, method)``, its caveats marked and
    explained under the table), an F1's label, or None."""
    if cell is None:
        return None
    if isinstance(cell, dict):
        label = cell.get("label")
        return label_cell(label) if isinstance(label, str) else label
    return str(cell)


def _short(cell: JsonValue, digits: bool = False) -> str:
    """An interval cell in short: ``k/n (rate%)``, the estimate with ``digits``."""
    if not isinstance(cell, dict):
        return "–"
    estimate = number_at(cell, "estimate") if "estimate" in cell else None
    if estimate is None:
        return "unobserved"
    if digits:
        return f"{estimate:.2f}"
    return f"{cell['k']}/{cell['n']} ({estimate * 100:.0f}%)"


def paper_kind(result: JsonMapping) -> str:
    """The paper's setting of the same kind as a scored oracle (``B2-L0``, ``B3 kind``,
    ...), or ``–`` when it has none or declares no inputs."""
    inputs = result.get("inputs")
    paper = inputs.get("paper") if isinstance(inputs, dict) else None
    return paper.split(" (", 1)[0] if isinstance(paper, str) and paper else "–"


def _adoption_table(results: Mapping[str, JsonMapping]) -> Table:
    """Table V (a): adoption identification per scored oracle."""
    table = Table(
        "oracles-adoption",
        "Table V (a): adoption identification",
        "reference-labelled faulted runs with a decidable reference A (abstentions "
        "count as missed positives); false positives among covered clean controls "
        "and covered reference non-adopters",
        [
            "oracle",
            "paper",
            "applicable",
            "coverage",
            "precision",
            "recall",
            "F1",
            "FP clean controls",
            "FP non-adopting faulted",
        ],
    )
    shown = ("coverage", "precision", "recall", "f1", "fp_clean", "fp_non_adopting")
    for name, result in results.items():
        row = _strata(result).get("all") or {}
        where = (name, paper_kind(result), row.get("applicable"))
        if not result.get("gives_adoption", True):
            table.add(*where, _label(row.get("coverage")), *["step only"] * 5, key=name)
            continue
        table.add(*where, *[_label(row.get(k)) for k in shown], key=name)
    return table


def _location_table(results: Mapping[str, JsonMapping]) -> Table:
    """Table V (b): first-faulty-reliance localization per scored oracle."""
    table = Table(
        "oracles-location",
        "Table V (b): first-faulty-reliance localization",
        "reference-adopted faulted runs with a located reference T_U; abstentions "
        "and verdicts without a step count as non-matches",
        ["oracle", "paper", "applicable adopted", "step given", "T_U exact", "T_U within ±1"],
    )
    for name, result in results.items():
        row = _strata(result).get("all") or {}
        table.add(
            name,
            paper_kind(result),
            row.get("t_u_applicable"),
            row.get("t_u_located"),
            _label(row.get("t_u_exact")),
            _label(row.get("t_u_within_1")),
            key=name,
        )
    return table


def _strata(result: JsonMapping) -> dict[str, JsonObject]:
    """A scored result's strata by name (each an object of scores)."""
    strata = _object(result["strata"]) or {}
    return {k: v for k, v in strata.items() if isinstance(v, dict)}


def _by(
    results: Mapping[str, JsonMapping],
    prefix: str,
    table: Table,
    cell: Callable[[JsonMapping, JsonMapping | None], str],
) -> Table:
    """A table with one column per stratum named ``prefix…`` (operator, arrival)."""
    keys = sorted({k for r in results.values() for k in _strata(r) if k.startswith(prefix)})
    table.columns = ["oracle", "paper", *[k.removeprefix(prefix) for k in keys]]
    for name, result in results.items():
        table.add(
            name,
            paper_kind(result),
            *[cell(result, _strata(result).get(k)) for k in keys],
            key=name,
        )
    return table


def _operator_cell(result: JsonMapping, row: JsonMapping | None) -> str:
    """Table V (c)'s cell: F1 / exact T_U / FP on clean controls."""
    if row is None:
        return "–"
    if not result.get("gives_adoption", True):
        return f"step only: exact {_short(row.get('t_u_exact'))}"
    return (
        f"F1 {_short(row.get('f1'), digits=True)} / exact {_short(row.get('t_u_exact'))}"
        f" / FP clean {_short(row.get('fp_clean'))}"
    )


def _arrival_cell(result: JsonMapping, row: JsonMapping | None) -> str:
    """The by-arrival cell: recall / exact T_U."""
    if row is None:
        return "–"
    if not result.get("gives_adoption", True):
        return f"step only: exact {_short(row.get('t_u_exact'))}"
    return f"recall {_short(row.get('recall'))} / exact {_short(row.get('t_u_exact'))}"


def _legacy_table(results: Mapping[str, JsonMapping]) -> Table:
    """Plain-scoring files (one flat row per stratum) in a table of their own."""
    table = Table(
        "oracles-table",
        "Oracle settings against the reference (plain scoring)",
        "reference-labelled runs",
        ["setting", "stratum", *LEGACY_COLUMNS],
    )
    for name, scores in results.items():
        for key, value in scores.items():
            row = _object(value) or {}
            table.add(name, key, *[_label(row.get(c)) for c in LEGACY_COLUMNS])
    return table


def build(ctx: ReportContext) -> Section:
    """Table V of the study's scored oracles."""
    return oracles_section(ctx.oracle_results)


def oracles_section(results: Mapping[str, JsonMapping]) -> Section:
    """Table V for every scored oracle (and any plain-scoring files), with its CSV rows
    (``oracles``)."""
    section = Section(ID, TITLE, csvs={"oracles": []})
    if not results:
        section.reason = (
            "no oracle results (score oracles with `sscbench validate-oracle STUDY "
            "--oracle rules --oracle invariants ...`, or list them in the study config's "
            "[oracles] settings for `sscbench run`; they are written to STUDY/oracles/)"
        )
        return section
    scored = in_paper_order({n: r for n, r in results.items() if r.get("schema") == SCHEMA})
    legacy = {n: r for n, r in results.items() if r.get("schema") != SCHEMA}
    references = sorted({str(r.get("reference", "")) for r in scored.values()})
    section.intro = (
        "Each oracle's verdicts on the reference runs and on clean controls, scored as in "
        "the paper's Table V (files STUDY/oracles/NAME.json, .verdicts.jsonl, .csv). "
        + (f"Reference: {'; '.join(references)}. " if references else "")
        + "Rows follow the paper's settings (Table II lists what each reads); an emitted "
        "anomaly or invariant violation counts as a positive verdict, a named failing step "
        "as adoption at that step, and step-only oracles are excluded from adoption metrics."
    )
    csv_rows: list[Entry] = []
    if scored:
        section.tables += _scored_tables(scored)
        for name, result in scored.items():
            csv_rows += tidy_rows(name, _strata(result))
            section.notes.append([{"t": _reads(name, result) + "."}])
    if legacy:
        section.tables.append(_legacy_table(legacy))
        for name, scores in legacy.items():
            csv_rows += [
                {
                    "oracle": name,
                    "stratum": k,
                    **{c: (_object(r) or {}).get(c) for c in LEGACY_COLUMNS},
                }
                for k, r in scores.items()
            ]
    columns = list(dict.fromkeys(k for r in csv_rows for k in r))  # one header for both kinds
    section.csvs["oracles"] = [{c: r.get(c) for c in columns} for r in csv_rows]
    return section


def _scored_tables(scored: Mapping[str, JsonMapping]) -> list[Table]:
    """Table V's panels (a)–(c) and the by-arrival panel."""
    by_operator = Table(
        "oracles-operator",
        "Table V (c): adoption F1 / exact T_U / FP on clean controls by operator",
        "as (a) and (b), per operator",
        [],
    )
    by_arrival = Table(
        "oracles-arrival",
        "Adoption recall / exact T_U by the reference's arrival stratum",
        "as (a) and (b), per reference Z_S",
        [],
    )
    return [
        _adoption_table(scored),
        _location_table(scored),
        _by(scored, "operator:", by_operator, _operator_cell),
        _by(scored, "arrival:", by_arrival, _arrival_cell),
    ]


def _reads(name: str, result: JsonMapping) -> str:
    """What a scored oracle reads, and on how many judged runs it abstained (and why)."""
    note = f"{name} reads {result.get('context', '')}"
    if result.get("abstentions"):
        given = _object(result["abstention_reasons"]) or {}
        reasons = ", ".join(f"{k}: {v}" for k, v in given.items())
        note += (
            f"; abstained on {result['abstentions']} of {result['judged']} judged runs ({reasons})"
        )
    return note
