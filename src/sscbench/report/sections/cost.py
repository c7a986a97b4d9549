"""The ``cost`` section: what the study's model calls cost, per configuration and in all;
each configuration's clean-task pass^k (its qualification figure); and which shared
clean run qualified which faulted runs (``tables/clean_runs.csv``: one row per clean run).
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sscbench.llm.usage import RunUsage
from sscbench.reading import loads_json
from sscbench.report.context import ReportContext
from sscbench.report.entries import CsvRow, Entry, int_at, text_at
from sscbench.report.model import RunSets, Section, Table
from sscbench.report.sections.cost_clean_rows import CleanRows
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
from sscbench.study.seen_ids import LineIds
from sscbench.study.study import Study
from sscbench.study.verify import plan_ids
from sscbench.terminal import count

N = TypeVar("N")
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
    def of(cls, e: IndexEntry, shared: _Shared) -> Run:
        """The fields of ``e`` the section reads, each repeated value kept once
        (:class:`_Shared`)."""
        served = len(e.served_cases()) if e.kind == "clean" else 0
        words, name, number = shared.words.value, shared.name, shared.number
        usage = e.usage
        if usage is not None:  # by its JSON: equal usages give equal sums
            usage = shared.usages.setdefault(usage.model_dump_json(), usage)
        clean_run_id = None if e.clean_run_id is None else name(e.clean_run_id)
        return cls(
            *(name(e.run_id), words(e.case_id), words(e.config_id), number(e.repetition)),
            *(words(e.kind), words(e.status)),
            reward=number(e.reward),
            task=words(e.task),
            served=served,
            clean_run_id=clean_run_id,
            usage=usage,
        )


@dataclass
class _Shared:
    """One copy of each repeated value of the runs: a usage (a scripted run's), a word,
    a number (a reward, a repetition: each a new object as read), and a run id as
    ``name`` gives it (the report's one copy, :meth:`~sscbench.report.model.RunSets.name`)."""

    name: Callable[[str], str] = str
    usages: dict[str, RunUsage] = field(default_factory=dict)
    words: Compactor = field(default_factory=Compactor)
    numbers: dict[tuple[type, object], Any] = field(default_factory=dict)

    def number(self, value: N) -> N:
        """``value``'s shared copy (kept apart by type: 1 and 1.0 stay themselves)."""
        return self.numbers.setdefault((type(value), value), value)


def plan_ordered(study: Study, name: Callable[[str], str] = str) -> list[Run]:
    """The index's runs in the study's plan order (a clean run where the plan first names
    it, then its faulted runs), not the index's completion order: the tables read the
    same whichever executor (local, Ray) ran the study and in whatever order runs ended.
    Runs the plan does not name follow, by run id. Index and plan are streamed: only a
    :class:`Run` is kept per run (its run ids as ``name`` gives them), and each planned
    id's place as its hash and line offset (:func:`~sscbench.study.verify.plan_ids`), not
    a string."""
    shared = _Shared(name)
    runs = [Run.of(e, shared) for e in study.iter_entries()]
    if not study.has_plan():
        return sorted(runs, key=lambda run: run.run_id)
    with plan_ids(study.store) as places:  # -1: a run the plan does not name
        place = array("q", (_place_of(places.place(run.run_id)) for run in runs))
    planned = [n for n, at in enumerate(place) if at >= 0]
    planned.sort(key=place.__getitem__)  # a place is one run's: no tie
    unplanned = [n for n, at in enumerate(place) if at < 0]
    unplanned.sort(key=lambda n: runs[n].run_id)
    return [runs[n] for n in planned + unplanned]


def _place_of(place: int | None) -> int:
    """A place in the plan, -1 for none."""
    return -1 if place is None else place


class _Walls(Mapping[str, float]):
    """The runs' wall times by run id, held in an array by the runs' order and found
    through their ids' places (no string or float object per run)."""

    def __init__(self, runs: Sequence[Run]) -> None:
        self._ids = LineIds(lambda n: (runs[n].run_id,))
        for n, run in enumerate(runs):
            self._ids.add(run.run_id, n)
        self._walls = array("d", bytes(8 * len(runs)))
        self._known = array("B", bytes(len(runs)))

    def record(self, run_id: str, wall_s: float) -> None:
        """A run's wall time (a later line of the same run replaces it); an id that is
        not one of the runs is dropped."""
        at = self._ids.place(run_id)
        if at is not None:
            self._walls[at], self._known[at] = wall_s, 1

    def __getitem__(self, run_id: str) -> float:
        at = self._ids.place(run_id)
        if at is None or not self._known[at]:
            raise KeyError(run_id)
        return self._walls[at]

    def __iter__(self) -> Iterator[str]:
        raise TypeError("the wall times are looked up by run id, not listed")

    def __len__(self) -> int:
        return sum(self._known)


def _timings(store: StudyDir, runs: Sequence[Run]) -> Mapping[str, float]:
    """The wall times of ``runs`` that ``timings.jsonl`` gives, as
    :meth:`~sscbench.study.folder.StudyDir.read_timings` reads them (a run's last line;
    a cut or bad line skipped), read a line at a time: nothing is kept for a line but its
    run's time, in an array by the runs' order."""
    walls = _Walls(runs)
    if not store.timings.exists():
        return walls
    with store.timings.open("rb") as handle:
        for raw in handle:
            try:
                row = loads_json(raw)
                run_id, wall_s = str(row["run_id"]), float(row["wall_s"])
            except (ValueError, KeyError, TypeError):
                continue
            walls.record(run_id, wall_s)
    return walls


def build(ctx: ReportContext) -> Section:
    """What the study's runs cost, and its clean runs' qualification."""
    return cost_section(ctx.loaded, ctx.sets)


def cost_section(study: Study, sets: RunSets) -> Section:
    """The section and its CSV rows (``cost``, ``pass_k``, ``clean_runs``)."""
    store = study.store
    section = Section(ID, TITLE)
    entries = plan_ordered(study, sets.name)
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
    clean_rows = CleanRows(entries)
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


def _shared_table(clean_rows: Iterable[Entry], sets: RunSets) -> Table:
    """The shared clean runs by configuration: which qualified which faulted runs (the
    rows read once, one at a time: each configuration's ids and sums are kept)."""
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
    ids: dict[str, list[str]] = defaultdict(list)
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for row in clean_rows:
        config_id = text_at(row, "config_id")
        ids[config_id].append(text_at(row, "clean_run_id"))
        counts = sums[config_id]
        counts[0] += row["reward"] == 1.0
        counts[1] += int_at(row, "qualified")
        counts[2] += int_at(row, "not_qualified")
        counts[3] += int_at(row, "missing")
    for config_id in sorted(ids):
        shared.add(config_id, sets.count(ids[config_id]), *sums[config_id])
    return shared
