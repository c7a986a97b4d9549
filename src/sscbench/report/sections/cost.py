"""The ``cost`` section: what the study's model calls cost, per configuration and in all;
each configuration's clean-task pass^k (its qualification figure); and which shared
clean run qualified which faulted runs (``tables/clean_runs.csv``: one row per clean run).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sscbench.llm.usage import RunUsage
from sscbench.reading import loads_json
from sscbench.report.context import ReportContext
from sscbench.report.entries import CsvRow, Entry, int_at, text_at
from sscbench.report.model import RunSets, Section, Table
from sscbench.study.compact import Compactor
from sscbench.study.cost import (
    cost_by_config,
    pass_hat_k,
    read_prices,
    shown_pass_k,
    stored_config_calls_a_model,
    stored_local_free_models,
)
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.study import Study
from sscbench.terminal import count

ID = "cost"
TITLE = "Cost and qualification"
COST_COLUMNS = [
    "runs",
    "requests",
    "retries",
    "rate_limited",
    "prompt_tokens",
    "completion_tokens",
    "wall_s",
    "price_usd",
]


@dataclass(frozen=True, slots=True)
class Run:
    """What the section reads of an index entry, kept per run instead of the entry (a
    tenth of its memory): its names, result, served cases' number and usage."""

    run_id: str
    case_id: str
    config_id: str
    repetition: int
    kind: str
    status: str
    reward: float | None
    task: str | None
    served: int  # len(entry.served_cases())
    clean_run_id: str | None
    usage: RunUsage | None

    @classmethod
    def of(cls, e: IndexEntry, usages: dict[str, RunUsage], words: Compactor) -> Run:
        """The fields of ``e`` the section reads (its usage shared through ``usages``, by
        its JSON: equal usages give equal sums; its repeated words through ``words``)."""
        served = len(e.served_cases()) if e.kind == "clean" else 0
        usage = None if e.usage is None else usages.setdefault(e.usage.model_dump_json(), e.usage)
        share = words.value
        return cls(
            *(e.run_id, share(e.case_id), share(e.config_id), e.repetition),
            *(share(e.kind), share(e.status)),
            reward=e.reward,
            task=share(e.task),
            served=served,
            clean_run_id=share(e.clean_run_id),
            usage=usage,
        )


def plan_ordered(study: Study) -> list[Run]:
    """The index's runs in the study's plan order (a clean run where the plan first names
    it, then its faulted runs), not the index's completion order: the tables read the
    same whichever executor (local, Ray) ran the study and in whatever order runs ended.
    Runs the plan does not name follow, by run id. Index and plan are streamed: only a
    :class:`Run` is kept per run."""
    position: dict[str, int] = {}
    for row in study.iter_plan():  # streamed: only each run's place is kept
        for key in ("clean_run_id", "faulted_run_id"):
            run_id = row.get(key)
            if isinstance(run_id, str):
                position.setdefault(run_id, len(position))
    unplanned = len(position)
    usages: dict[str, RunUsage] = {}  # one copy of each distinct usage (a scripted run's)
    words = Compactor()  # one copy of each repeated word (the entries are not compacted)
    runs = [Run.of(e, usages, words) for e in study.iter_entries()]
    return sorted(runs, key=lambda e: (position.get(e.run_id, unplanned), e.run_id))


def _timings(store: StudyDir, runs: list[Run]) -> dict[str, float]:
    """The wall times of ``runs`` that ``timings.jsonl`` gives, as
    :meth:`~sscbench.study.folder.StudyDir.read_timings` reads them (a run's last line;
    a cut or bad line skipped), read a line at a time and keyed by the runs' own ids:
    nothing is kept for a line but its run's time."""
    names = {run.run_id: run.run_id for run in runs}
    timings: dict[str, float] = {}
    if not store.timings.exists():
        return timings
    with store.timings.open("rb") as handle:
        for raw in handle:
            try:
                row = loads_json(raw)
                run_id, wall_s = str(row["run_id"]), float(row["wall_s"])
            except (ValueError, KeyError, TypeError):
                continue
            name = names.get(run_id)
            if name is not None:
                timings[name] = wall_s
    return timings


def _clean_rows(entries: list[Run]) -> list[CsvRow]:
    """One row per clean run: its task, result and the faulted runs it decided."""
    decided: dict[str, Counter] = defaultdict(Counter)
    faulted_ids: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.kind == "faulted" and entry.clean_run_id:
            state = "qualified" if entry.status == "completed" else entry.status
            decided[entry.clean_run_id][state] += 1
            faulted_ids[entry.clean_run_id].append(entry.run_id)
    rows = []
    for entry in entries:
        if entry.kind != "clean":
            continue
        counts = decided.get(entry.run_id, Counter())
        rows.append(
            {
                "clean_run_id": entry.run_id,
                "config_id": entry.config_id,
                "repetition": entry.repetition,
                "task": entry.task or entry.case_id,
                "status": entry.status,
                "reward": entry.reward,
                "cases": entry.served,
                "qualified": counts["qualified"],
                "not_qualified": counts["not-qualified"],
                "missing": counts["missing"],
                "faulted_run_ids": " ".join(faulted_ids.get(entry.run_id, [])),
            }
        )
    return rows


def build(ctx: ReportContext) -> Section:
    """What the study's runs cost, and its clean runs' qualification."""
    return cost_section(ctx.loaded, ctx.sets)


def cost_section(study: Study, sets: RunSets) -> Section:
    """The section and its CSV rows (``cost``, ``pass_k``, ``clean_runs``)."""
    store = study.store
    section = Section(ID, TITLE)
    entries = plan_ordered(study)
    if not entries:
        section.reason = "the study's index holds no run"
        return section
    prices = read_prices(store.config_toml)
    by_config, total = cost_by_config(entries, prices, _timings(store, entries))
    called = stored_config_calls_a_model(store.config_toml)
    local = stored_local_free_models(store.config_toml)
    words = total.words(local, called)
    if called:
        section.intro = (
            f"cost: {words}. {count(total.runs, 'run')} ran: {count(total.requests, 'model request')} answered, "
            f"{total.retries} retries ({total.rate_limited} answered 429), "
            f"{total.prompt_tokens} prompt and {total.completion_tokens} completion tokens, "
            f"{total.wall_s:.1f} s of run time"
            + ("" if prices else " (the config has no [prices] table)")
            + ". The configurations' rows add up to the study's."
        )
    else:
        section.intro = (
            f"cost: {words}. {count(total.runs, 'run')} ran in {total.wall_s:.1f} s of run time; "
            "no model is called (scripted or replayed agents and user), so there are no "
            "requests, tokens or price to count."
        )
    table = Table(
        "cost-table",
        "Model calls per configuration (runs that ran: clean and faulted)",
        "every run with an index row that ran (not-qualified records ran nothing)",
        ["configuration", *COST_COLUMNS],
    )
    cost_rows = []
    for config_id, totals in [*by_config.items(), ("all configurations", total)]:
        row = {"config_id": config_id, **totals.row()}
        cost_rows.append(row)
        cells = [row[c] if c != "price_usd" else totals.words(local, called) for c in COST_COLUMNS]
        table.add(config_id, *cells)
    qualification, pass_rows = _pass_k_table(entries)
    clean_rows = _clean_rows(entries)
    section.tables += [table, qualification, _shared_table(clean_rows, sets)]
    section.csvs = {"cost": cost_rows, "pass_k": pass_rows, "clean_runs": clean_rows}
    return section


def _pass_k_table(entries: list[Run]) -> tuple[Table, list[CsvRow]]:
    """Each configuration's clean-task pass^k, and the rows of ``pass_k.csv``."""
    passes = pass_hat_k(entries)
    longest = max(passes.values(), key=len, default=[])
    ks = [p.k for p in shown_pass_k(longest)]
    qualification = Table(
        "pass-k-table",
        "Clean-task pass^k per configuration (τ-bench's: C(c,k)/C(n,k) averaged over tasks)",
        "completed clean runs, one per (task, configuration, repetition)"
        + ("" if len(ks) == len(longest) else "; a few k shown, tables/pass_k.csv has every k"),
        ["configuration", *[f"pass^{k} (tasks)" for k in ks]],
    )
    pass_rows = []
    for config_id, figures in passes.items():
        by_k = {p.k: p for p in figures}
        qualification.add(
            config_id,
            *[f"{by_k[k].value:.3f} ({by_k[k].tasks})" for k in ks if k in by_k],
        )
        pass_rows += [
            {"config_id": config_id, "k": p.k, "pass_k": p.value, "tasks": p.tasks} for p in figures
        ]
    return qualification, pass_rows


def _shared_table(clean_rows: Sequence[Entry], sets: RunSets) -> Table:
    """The shared clean runs by configuration: which qualified which faulted runs."""
    shared = Table(
        "clean-runs-table",
        "Shared clean runs: which qualified which faulted runs",
        "clean runs by configuration (tables/clean_runs.csv lists each with its faulted runs)",
        [
            "configuration",
            "clean runs",
            "solved",
            "faulted qualified",
            "not qualified",
            "missing (clean run missing)",
        ],
    )
    by_cfg: dict[str, list[Entry]] = defaultdict(list)
    for row in clean_rows:
        by_cfg[text_at(row, "config_id")].append(row)
    for config_id, rows in sorted(by_cfg.items()):
        shared.add(
            config_id,
            sets.count([text_at(r, "clean_run_id") for r in rows]),
            sum(r["reward"] == 1.0 for r in rows),
            sum(int_at(r, "qualified") for r in rows),
            sum(int_at(r, "not_qualified") for r in rows),
            sum(int_at(r, "missing") for r in rows),
        )
    return shared
