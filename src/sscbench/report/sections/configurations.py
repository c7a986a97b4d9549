"""The ``configurations`` section (Table I): each agent configuration's model, decoding
settings, planned repetitions and realized scale.

The plan (``plan.jsonl``) says what was scheduled; the index says what ran. A planned
run with no completed index row is missing (a harness error, or a study not run to its
end), never an outcome; a faulted run its clean run did not qualify is counted apart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.json_types import JsonMapping, JsonValue
from sscbench.report.context import ReportContext, recorded_config
from sscbench.report.entries import CsvRow, Entry, int_at, text_at
from sscbench.report.model import RunSets, Section, Table
from sscbench.study.study import Study

COLUMNS = [
    "config_id",
    "kind",
    "model",
    "decoding",
    "temperature",
    "seed",
    "max_tokens",
    "repetitions",
    "clean_scheduled",
    "clean_run",
    "clean_missing",
    "qualified",
    "faulted_scheduled",
    "faulted_run",
    "not_qualified",
    "faulted_missing",
]
"""Columns of ``tables/configurations.csv`` (counts and settings numeric)."""
ID = "configurations"
TITLE = "Table I — Configurations"


@dataclass
class Scale:
    """One configuration's realized scale: run ids by what became of them (the
    scheduled faulted runs counted: no count links to them)."""

    clean: set[str] = field(default_factory=set)  # scheduled (shared) clean runs
    clean_run: list[str] = field(default_factory=list)
    faulted: int = 0  # scheduled faulted runs
    faulted_run: list[str] = field(default_factory=list)
    qualified: list[str] = field(default_factory=list)
    not_qualified: list[str] = field(default_factory=list)
    repetitions: set[int] = field(default_factory=set)


def _planned(study: Study) -> Iterator[JsonMapping]:
    """The plan's lines, or for a study without ``plan.jsonl`` its indexed faulted runs
    (streamed: no line per run is kept)."""
    if study.has_plan():
        yield from study.iter_plan()
        return
    for e in study.iter_entries():
        if e.kind == "faulted":
            yield {
                "config_id": e.config_id,
                "repetition": e.repetition,
                "clean_run_id": e.clean_run_id,
                "faulted_run_id": e.run_id,
            }


def realized_scale(study: Study, name: Callable[[str], str] = str) -> dict[str, Scale]:
    """Per configuration: what the plan scheduled and what became of each run (the index
    read as each run's status only, the plan streamed). ``name`` gives the one copy of
    a run id to keep (:meth:`~sscbench.report.model.RunSets.name`): the plan's and the
    index's strings are then dropped as they are read."""
    status = {name(e.run_id): e.status for e in study.iter_entries()}
    scales: dict[str, Scale] = defaultdict(Scale)
    for line in _planned(study):
        scale = scales[str(line["config_id"])]
        scale.repetitions.add(int_at(line, "repetition"))
        faulted, clean_id = name(str(line["faulted_run_id"])), line.get("clean_run_id")
        clean = status.get(clean_id) if isinstance(clean_id, str) else None
        if isinstance(clean_id, str):
            scale.clean.add(name(clean_id))
        scale.faulted += 1
        mine = status.get(faulted)
        if mine == "not-qualified":
            scale.not_qualified.append(faulted)
        elif (clean is None or clean == "completed") and mine is not None:
            scale.qualified.append(faulted)  # a faulted harness error was qualified
        if mine == "completed":
            scale.faulted_run.append(faulted)
    for scale in scales.values():
        scale.clean_run = sorted(i for i in scale.clean if status.get(i) == "completed")
    return dict(scales)


def _table(value: JsonValue) -> JsonMapping:
    """A recorded config table (``{}`` when it has none)."""
    return value if isinstance(value, dict) else {}


def _settings(agent: JsonMapping) -> CsvRow:
    """An agent configuration's model and decoding settings, from its recorded config."""
    kind = agent.get("kind", "scripted")
    endpoint = _table(agent.get("endpoint"))
    row: CsvRow = {"kind": kind, "temperature": None, "seed": None, "max_tokens": None}
    params = _table(agent.get("params"))
    listed = ", ".join(f"{k}={v}" for k, v in sorted(params.items()) if k != "model")
    if kind == "openai":
        row |= {k: endpoint.get(k) for k in ("temperature", "seed", "max_tokens")}
        row["model"] = endpoint.get("model")
        parts = [f"{k}={row[k]}" for k in ("temperature", "seed", "max_tokens")]
        parts.append(f"strategy={agent.get('strategy', 'tool-calling')}")
        row["decoding"] = ", ".join(parts)
    elif kind == "inspect":
        row["model"] = params.get("model")
        row["decoding"] = "Inspect's generate config" + (f" ({listed})" if listed else "")
    elif kind == "replay":
        row["model"] = "replay of " + Path(str(_table(agent.get("replay")).get("path"))).name
        row["decoding"] = "recorded (no decoding)"
    else:
        row["model"] = f"scripted profile {agent.get('profile')}"
        row["decoding"] = "deterministic" + (f" ({listed})" if listed else "")
    return row


def configuration_rows(study: Study, name: Callable[[str], str] = str) -> list[CsvRow]:
    """Table I's rows: the recorded configurations in config order (then any other
    configuration the plan names), each with its planned and realized scale (run ids
    kept as ``name`` gives them, :func:`realized_scale`)."""
    config = recorded_config(study)
    study_table = _table(config.get("study"))
    default = int_at(study_table, "repetitions") if "repetitions" in study_table else 1
    listed = config.get("agents")
    agents = {
        str(a.get("id")): a
        for a in (listed if isinstance(listed, list) else [])
        if isinstance(a, dict)
    }
    scales = realized_scale(study, name)
    rows: list[CsvRow] = []
    for config_id in [*agents, *sorted(set(scales) - set(agents))]:
        agent: JsonMapping = agents.get(config_id, {})
        scale = scales.get(config_id, Scale())
        planned = agent.get("repetitions") or default
        if agent.get("kind") == "replay" or not agent:  # one per recording: as planned
            planned = len(scale.repetitions)
        rows.append(
            {
                "config_id": config_id,
                **_settings(agent),
                "repetitions": planned,
                "clean_scheduled": len(scale.clean),
                "clean_run": len(scale.clean_run),
                "clean_missing": len(scale.clean) - len(scale.clean_run),
                "qualified": len(scale.qualified),
                "faulted_scheduled": scale.faulted,
                "faulted_run": len(scale.faulted_run),
                "not_qualified": len(scale.not_qualified),
                "faulted_missing": scale.faulted
                - len(scale.faulted_run)
                - len(scale.not_qualified),
                "_scale": scale,
            }
        )
    return rows


def _caps_text(study: Study, rows: Sequence[Entry]) -> str:
    """What capped the plan (``caps.json``, written by ``run``) and the faulted runs no
    clean run qualified, counted, so no scheduled number shrinks without its reason."""
    from sscbench.study.caps import read_caps

    lines = [line.removeprefix("cap: ") for line in read_caps(study.store.root)]
    unqualified = sum(int_at(r, "not_qualified") for r in rows)
    if unqualified:
        lines.append(
            f"{unqualified} faulted runs were not qualified (their clean run did not solve "
            "the task) and ran nothing"
        )
    return "".join(f" Cap: {line}." for line in lines)


def build(ctx: ReportContext) -> Section:
    """Table I of the study."""
    return configurations_section(ctx.loaded, ctx.sets)


def configurations_section(study: Study, sets: RunSets) -> Section:
    """Table I and its CSV rows (``tables/configurations.csv``)."""
    section = Section(ID, TITLE)
    rows = configuration_rows(study, sets.name)
    if not rows:
        section.reason = "the study recorded no configuration and no plan"
        section.csvs["configurations"] = []
        return section
    counts = ", ".join(f"{r['config_id']} {r['repetitions']}" for r in rows)
    section.intro = (
        f"{len(rows)} configuration{'s' * (len(rows) != 1)}; planned repetitions: {counts}. "
        "Scheduled runs come from the plan; a scheduled run that did not complete is "
        "missing (not an outcome); a faulted run its clean run did not qualify ran nothing."
        + _caps_text(study, rows)
    )
    table = Table(
        "configurations-table",
        "Table I — each configuration's model, decoding, repetitions and realized scale",
        "every run the plan scheduled (clean: shared, one per task and repetition)",
        [
            "configuration",
            "model",
            "decoding",
            "repetitions",
            "clean scheduled",
            "clean run",
            "clean missing",
            "qualified",
            "faulted scheduled",
            "faulted run",
            "not qualified",
            "faulted missing",
        ],
    )
    for row in rows:
        scale = row.pop("_scale")
        assert isinstance(scale, Scale)  # put there by configuration_rows
        table.add(
            row["config_id"],
            row["model"],
            row["decoding"],
            row["repetitions"],
            row["clean_scheduled"],
            sets.count(scale.clean_run),
            row["clean_missing"],
            sets.count(scale.qualified),
            row["faulted_scheduled"],
            sets.count(scale.faulted_run),
            sets.count(scale.not_qualified),
            row["faulted_missing"],
            key=text_at(row, "config_id"),
        )
    section.tables.append(table)
    section.csvs["configurations"] = [{c: row.get(c) for c in COLUMNS} for row in rows]
    return section
