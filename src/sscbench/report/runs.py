"""The run browser: one small HTML page per run and a filterable run list.

A run page shows the numbered model-visible ledger with T_F, T_E, T_S and T_U marked
and explained, the case's contract, the measurement row, and the evaluator-only log
apart; a run the rules marked unread and ``sscbench second-read`` sent to the judge
model also shows its second reading beside the rule reading
(:mod:`sscbench.study.second_reading`), never in its place. The list (``runs/index.html``) embeds every run's summary and the numbered run
sets the main tables link to (``#set=N``); filters by operator, configuration,
stratum, repetition and kind run in the page. No network; works from ``file://``.
All text is escaped by jinja2's autoescape (the embedded JSON escapes ``<``).

Which runs get a page is ``--run-pages``: ``all``, ``none`` (the list only) or
``sample`` (:func:`sample_runs`); the default is ``all`` up to :data:`SAMPLE_ABOVE`
runs and ``sample`` above. The list names every run either way up to
:data:`LIST_ALL_UP_TO` runs, and the runs with a page above; a run without a page says
so and how to print it (``sscbench show STUDY RUN``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TypedDict

from sscbench.core.definitions import T_U_WORDING, Y_END_WORDING, Z_S_WORDING
from sscbench.core.files import atomic_text_writer
from sscbench.core.shown import shown
from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.json_types import JsonValue
from sscbench.jsonl import escape_surrogates, split_lines, write_utf8
from sscbench.names import check_name
from sscbench.progress import counted
from sscbench.reading import loads_json
from sscbench.report.run_sample import RUN_PAGES, SAMPLE_ABOVE, pages_for
from sscbench.report.templates import environment
from sscbench.study.compact import Compactor
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.rows import MeasurementRow
from sscbench.study.seal import file_sha256
from sscbench.study.second_reading import run_panel, study_readings


class LedgerRow(TypedDict):
    """One event of the model-visible ledger as the run page shows it."""

    step: JsonValue
    type: JsonValue
    name: JsonValue
    content: str  # capped for the page
    prompt_page: str  # a system prompt's own page ("" for other events)
    calls: list[str]
    marks: list[str]  # T_F, T_E, T_S, T_U at this step
    unread: list[str]  # unread marks' kinds at this step


class Why(TypedDict):
    """Why a run has no ledger: its reason and the clean run that decided it."""

    reason: str
    clean_run_id: str | None
    clean_reward: float | None


PartnerKey = tuple[str, str, int, str]
"""A run's (case, configuration, repetition, kind)."""

MARKS = {
    "T_F": "the fault-bearing observation is delivered",
    "T_E": "first valid counterevidence visible to the model",
    "T_S": "first post-fault dependent use of the affected fact",
    "T_U": T_U_WORDING,
}
#: The captions of the run page's Z_S and Y_end rows: the one wording of each definition.
CAPTIONS = {"Z_S": Z_S_WORDING, "Y_end": Y_END_WORDING}
SUMMARY = (
    "run_id",
    "operator",
    "config_id",
    "repetition",
    "kind",
    "status",
    "Z_S",
    "A",
    "T_F",
    "T_E",
    "T_S",
    "T_U",
    "control",
)


def page_name(run_id: str) -> str:
    """The run page's file name: a run id is one safe file name (the name rule,
    :func:`~sscbench.reading.check_name`, checked here too: the id comes from a row)."""
    return f"{check_name(run_id, 'measurements.jsonl', 'run_id')}.html"


def _run_texts(store: StudyDir, run_id: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """A run's ledger and evaluator text (empty when it has none: a run not completed),
    each with where a reader finds it whole: its file, or for a sharded study ``sscbench
    show STUDY RUN`` (the ledger) and the shard holding its frame (the evaluator log)."""
    if not store.sharded:
        texts = []
        for path in (store.ledger_path(run_id), store.evaluator_path(run_id)):
            text = path.read_text("utf-8", errors="replace") if path.exists() else ""
            texts.append((text, f"runs/{path.name}"))
        return texts[0], texts[1]
    try:
        ledger, evaluator = store.run_bytes(run_id)
    except DataError:
        ledger, evaluator = b"", b""
    shard = f"runs/{store.run_where(run_id).name} (run {run_id})"
    return (
        (ledger.decode("utf-8", errors="replace"), store.run_text_where(run_id)),
        (evaluator.decode("utf-8", errors="replace"), shard),
    )


def _lines(text: str) -> list[JsonValue]:
    out: list[JsonValue] = []
    for line in split_lines(text):
        try:
            out.append(loads_json(line))
        except ValueError:
            out.append({"type": "unreadable line", "content": line})
    return out


def _ledger_rows(
    events: list[JsonValue],
    row: MeasurementRow,
    prompts: dict[str, str] | None = None,
    source: str | None = None,
) -> list[LedgerRow]:
    """The ledger's events as table rows with their marks; system prompts (the same for
    many runs) are collected into ``prompts`` and written once, linked from each page.
    Each text is capped for the page (:func:`sscbench.core.shown.shown`, naming
    ``source``, the ledger file)."""
    marks_at: dict[object, list[str]] = {}  # by step, looked up by the event's step
    for mark in MARKS:
        step = getattr(row, mark)
        if isinstance(step, int) and not isinstance(step, bool):
            marks_at.setdefault(step, []).append(mark)
    unread_at: dict[object, list[str]] = {}
    for unread in row.unread_steps or []:
        unread_at.setdefault(unread.step, []).append(unread.kind)
    out: list[LedgerRow] = []
    for e in events:
        if not isinstance(e, dict) or e.get("type") == "header":
            continue
        listed = e.get("tool_calls") or []
        calls = [
            shown(f"{c.get('name')}({c.get('arguments')})", source)
            for c in (listed if isinstance(listed, list) else [])
            if isinstance(c, dict)
        ]
        text = e.get("content")
        whole = str(text) if text else ""
        content = shown(whole, source)
        prompt_page = ""
        if e.get("type") == "system" and prompts is not None:
            digest = hashlib.sha256(whole.encode("utf-8", "replace")).hexdigest()[:16]
            prompt_page = f"system-{digest}.html"
            prompts.setdefault(prompt_page, content)
        out.append(
            {
                "step": e.get("step"),
                "type": e.get("type"),
                "name": e.get("name") or "",
                "content": content,
                "prompt_page": prompt_page,
                "calls": calls,
                "marks": marks_at.get(e.get("step"), []) if e.get("type") != "system" else [],
                "unread": unread_at.get(e.get("step"), []),
            }
        )
    return out


def _contract(case: Case | None) -> str:
    if case is None:
        return "case not found in cases.jsonl"
    data = case.model_dump(mode="json")
    data.pop("context", None)  # the prefix is in the ledger itself
    return json.dumps(data, indent=2, ensure_ascii=False)


@dataclass(frozen=True)
class RunPages:
    """What the run browser holds: ``rendered`` pages of ``total`` runs, by ``mode``."""

    mode: str
    rendered: int
    total: int

    def words(self) -> str:
        """One sentence for the report and the run list."""
        if self.rendered == self.total:
            return f"{self.total} run pages (one per run)"
        how = {
            "none": "--run-pages none: the run list only",
            "sample": "--run-pages sample: every outcome stratum, first runs by id",
        }[self.mode]
        return (
            f"{self.rendered} of {self.total} run pages rendered ({how}); "
            "sscbench show STUDY RUN prints any run's ledger"
        )


def _reasons(entries: Iterable[IndexEntry]) -> dict[str, Why]:
    """Why each run without a ledger has none (the index's reason, the deciding clean run
    and its reward), by run id. One pass over ``entries`` (a stream): only the runs
    without a ledger and the clean runs' rewards are kept."""
    reward: dict[str, float | None] = {}
    unfinished: list[IndexEntry] = []
    compactor = Compactor()  # the kept entries' repeated words once
    for e in entries:
        if e.kind == "clean":
            reward[e.run_id] = e.reward
        if e.status != "completed":
            unfinished.append(compactor.record(e))
    return {
        e.run_id: {
            "reason": e.reason or e.status,
            "clean_run_id": e.clean_run_id,
            "clean_reward": reward.get(e.clean_run_id or ""),
        }
        for e in unfinished
    }


def _partners(rows: Sequence[MeasurementRow], chosen: set[str]) -> dict[PartnerKey, str]:
    """Each rendered run's partner by (case, configuration, repetition, kind): the run of
    the other kind, or for a faulted run the shared clean run that qualified it. Only the
    keys a rendered page looks up are kept (a sample of a large study's runs)."""
    other = {"faulted": "clean"}
    wanted = {
        (r.case_id, r.config_id, r.repetition, other.get(str(r.kind), "faulted"))
        for r in rows
        if r.run_id in chosen
    }
    partners: dict[PartnerKey, str] = {}
    for r in rows:
        key = (r.case_id, r.config_id, r.repetition, r.kind)
        if key in wanted:
            partners[key] = r.run_id
    ids = {r.run_id for r in rows}
    for r in rows:  # a faulted run's partner: the shared clean run that qualified it
        if r.kind == "faulted" and r.clean_run_id in ids:
            key = (r.case_id, r.config_id, r.repetition, "clean")
            if key in wanted:
                partners[key] = r.clean_run_id
    return partners


def write_run_pages(
    study: Path,
    out: Path,
    rows: Sequence[MeasurementRow],
    cases: dict[str, Case],
    sets: Iterable[Sequence[str]],
    entries: Iterable[IndexEntry],
    mode: str | None = None,
) -> RunPages:
    """Write ``out/<run>.html`` for the runs ``mode`` selects (:func:`pages_for`) and
    ``out/index.html`` listing every run; returns what was rendered. ``entries`` (the
    study's index, read once and only when a run did not complete) say why a run without
    a ledger has none."""
    if mode is not None and mode not in RUN_PAGES:
        raise ValueError(f"run pages: {mode!r} is not one of {', '.join(RUN_PAGES)}")
    mode = mode or ("sample" if len(rows) > SAMPLE_ABOVE else "all")
    chosen = pages_for(rows, mode)
    out.mkdir(parents=True, exist_ok=True)
    env = environment()
    page = env.get_template("run.html.j2")
    partners = _partners(rows, chosen)
    prompts: dict[str, str] = {}
    reasons = _reasons(entries) if any(r.status != "completed" for r in rows) else {}
    store = StudyDir(study)
    second = study_readings(study)  # the second reader's proposals, shown beside the rules
    measured = file_sha256(study / "measurements.jsonl") if second else None
    contract = cache(lambda case_id: _contract(cases.get(case_id)))  # a case's, once
    for row in counted(rows, "report: run pages"):
        run_id = check_name(row.run_id, study / "measurements.jsonl", "run_id")  # names files
        if run_id not in chosen:
            continue
        other = "clean" if row.kind == "faulted" else "faulted"
        partner = partners.get((row.case_id, row.config_id, row.repetition, other))
        (ledger_text, ledger_file), (evaluator_text, evaluator_file) = _run_texts(store, run_id)
        ledger = _ledger_rows(_lines(ledger_text), row, prompts, ledger_file)
        html = page.render(
            row=row,
            measurement=shown(
                json.dumps(row.columns(), indent=2, ensure_ascii=False), "measurements.jsonl"
            ),
            ledger=ledger,
            marks=MARKS,
            captions=CAPTIONS,
            contract=contract(row.case_id),
            evaluator=[
                shown(json.dumps(e, ensure_ascii=False), evaluator_file)
                for e in _lines(evaluator_text)
            ],
            partner=page_name(partner) if partner in chosen else None,
            partner_id=partner,
            partner_kind=other,
            why=reasons.get(run_id) or _why(row),
            clean_page=page_name(str(row.clean_run_id)) if row.clean_run_id in chosen else None,
            second=run_panel(second.get(run_id), row, measured),
        )
        write_utf8(out / page_name(run_id), html)
    prompt_page = env.get_template("prompt.html.j2")
    for name, content in prompts.items():
        write_utf8(out / name, prompt_page.render(content=content))
    result = RunPages(mode, len(chosen), len({r.run_id for r in rows}))
    _write_run_list(out / "index.html", rows, chosen, sets, result.words())
    return result


_MARK = "\x00run-data\x00"  # where the run list's JSON goes in its rendered page
LIST_ALL_UP_TO = 50_000
"""The run list names every run up to this many (its page ~10 MB); above, only the runs
with a page, each table's run sets counted whole. At a million runs the whole list was
215 MB, which Chromium had not shown after three minutes."""


def _write_run_list(
    path: Path,
    rows: Sequence[MeasurementRow],
    chosen: set[str],
    sets: Iterable[Sequence[str]],
    pages: str,
) -> None:
    """``runs/index.html``: the page around the run list's JSON, which is written piece
    by piece (a run's summary at a time) rather than built whole: the same bytes as
    ``json.dumps`` of the list (``<`` escaped), without a copy of it per run in memory.
    Above :data:`LIST_ALL_UP_TO` runs it lists the runs with a page, and says how many
    runs the study and each run set hold (``total``, ``set_sizes``)."""
    whole = len(rows) <= LIST_ALL_UP_TO
    listed = rows if whole else [r for r in rows if r.run_id in chosen]
    index = {r.run_id: i for i, r in enumerate(listed)}
    sizes: list[int] = []

    def array(items: Iterable[object]) -> Iterator[str]:
        yield "["
        for number, item in enumerate(items):
            yield (", " if number else "") + json.dumps(item, ensure_ascii=False)
        yield "]"

    def members(s: Sequence[str]) -> list[int]:
        sizes.append(len(s))
        return [index[i] for i in s if i in index]

    parts: list[Iterable[str]] = [
        ['{"columns": ', json.dumps(list(SUMMARY), ensure_ascii=False), ', "runs": '],
        array([getattr(r, k, None) for k in SUMMARY] for r in listed),
        [', "rendered": '],
        array(r.run_id in chosen for r in listed),
        [', "pages": ', json.dumps(pages, ensure_ascii=False), ', "sets": '],
        array(members(s) for s in sets),
        [] if whole else [', "total": ', str(len(rows)), ', "set_sizes": '],
        [] if whole else array(sizes),  # read after the sets: complete by then
        ["}"],
    ]
    _write_page(path, parts)


def _write_page(path: Path, parts: list[Iterable[str]]) -> None:
    """The run list's page with its JSON written from ``parts`` in order."""
    page = environment().get_template("runs_index.html.j2").render(data=_MARK)
    head, tail = page.split(_MARK)
    with atomic_text_writer(path, newline="") as handle:
        handle.write(escape_surrogates(head))
        for part in parts:
            for piece in part:
                handle.write(escape_surrogates(piece.replace("<", "\\u003c")))
        handle.write(escape_surrogates(tail))


def _why(row: MeasurementRow) -> Why:
    """A run without a ledger whose index entry gives no reason: its status says why."""
    words = {
        "not-qualified": "its task's clean run did not qualify it",
        "missing": "the run did not complete (a harness failure; resuming reruns it)",
    }
    status = str(row.status)
    return {
        "reason": words.get(status, status),
        "clean_run_id": row.clean_run_id,
        "clean_reward": None,
    }
