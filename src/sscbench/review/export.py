"""``sscbench review export``: reviewer pages and an empty labels file for a study's runs.

The population is every completed faulted run with a fault contract. ``--runs N``
draws N of them with ``--seed``; ``--stratify operator,stratum`` draws evenly across
the strata (round robin over strata, random within each), the stratum being the
measured arrival Z_S (``not-triggered`` for runs whose fault never showed). The drawn
runs are shuffled and given masked review ids ``r001``, ``r002``, … so that neither the
id nor the order tells the reviewer anything; the key mapping review ids back to run
ids is written apart from the reviewer's folder (by default into the study).

``--unread`` puts the runs whose measurement carries unread marks
(:mod:`sscbench.measure.unread`: text the readers met after T_F and could not interpret)
first: every marked run is drawn before any other, and they take the first review ids.
The pages still show only the ledger; the order alone tells the reviewer that the first
runs are the ones the measurement could not read in full.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from sscbench.core.files import atomic_write, clean_stale, staged_folder
from sscbench.core.seals import sealed_json
from sscbench.errors import DataError, naming
from sscbench.faults.case import Case
from sscbench.jsonl import write_utf8
from sscbench.measure.study import contract_runs, measure_entries
from sscbench.review.labels import empty_label
from sscbench.review.pages import IndexRow, render_index, render_page
from sscbench.study.rows import MeasurementRow
from sscbench.study.second_reading import SecondReading, run_panel, study_readings
from sscbench.study.study import Study

STRATA_KEYS = ("operator", "stratum", "config")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A run that can be reviewed, with the keys it is sampled by (never shown). Slotted:
    a study's population holds one per completed faulted run."""

    run_id: str
    case: Case
    operator: str
    stratum: str
    config: str
    unread: int | None = None  # unread marks of its measurement (None: not checked)

    def key(self, by: tuple[str, ...]) -> tuple[str, ...]:
        """The stratum of this run under the chosen stratification."""
        return tuple(getattr(self, k) for k in by)


def _run_strata(study: Study) -> dict[str, tuple[str, int | None]]:
    """Each faulted run's stratum and unread-mark count, from the rows ``measure`` wrote
    from this study (checked against their seal) streamed a row at a time, or measured
    now when the study has none yet: two small values a run, not its row (the rows of a
    million runs held 1.9 GB), each distinct pair kept once."""
    rows: Iterable[MeasurementRow]
    if study.measurements_path.exists():
        rows = study.iter_measurements()
    else:
        rows = measure_entries(study.store, study.cases)
    pairs: dict[tuple[str, int | None], tuple[str, int | None]] = {}
    strata: dict[str, tuple[str, int | None]] = {}
    for row in rows:
        if row.kind == "faulted":
            pair = (str(row.Z_S) if row.has("Z_S") else "unmeasured", row.unread_count())
            strata[row.run_id] = pairs.setdefault(pair, pair)
    return strata


def candidates(study: str | Path | Study) -> list[Candidate]:
    """Every completed faulted run of the study that has a contract, in index order."""
    from sscbench.study.verify import verify_study

    loaded = Study.of(study)
    store = loaded.store
    if not store.index.exists():
        raise DataError(store.index, None, "no index: is this a study directory?")
    verify_study(
        store.root, keep_entries=False
    )  # reviewers see only runs whose files match the index
    cases = loaded.cases
    strata = _run_strata(loaded)
    configs: dict[str, str] = {}  # one copy of each configuration's id
    out: list[Candidate] = []
    for entry, case in contract_runs(store, cases):
        # popped: the run id read from the index is kept, the measurement's copy freed
        stratum, unread = strata.pop(entry.run_id, ("unmeasured", None))
        out.append(
            Candidate(
                run_id=entry.run_id,
                case=case,
                operator=case.operator,
                stratum=stratum,
                config=configs.setdefault(entry.config_id, entry.config_id),
                unread=unread,
            )
        )
    return out


def parse_stratify(text: str | None) -> tuple[str, ...]:
    """The stratification keys of ``--stratify`` (operator, stratum, config)."""
    if not text:
        return ()
    keys = tuple(k.strip() for k in text.split(",") if k.strip())
    bad = [k for k in keys if k not in STRATA_KEYS]
    if bad:
        raise DataError("--stratify", None, f"unknown keys {bad}; choose from {list(STRATA_KEYS)}")
    return keys


def draw(
    pool: list[Candidate],
    runs: int | None,
    seed: int,
    stratify: tuple[str, ...],
    unread_first: bool = False,
) -> list[Candidate]:
    """``runs`` candidates (all when None): random, or evenly across strata; then shuffled.
    With ``unread_first`` the runs carrying unread marks are drawn first (all of them, up
    to ``runs``) and come first in the order, each part shuffled."""
    if unread_first:
        marked = [c for c in pool if c.unread]
        rest = [c for c in pool if not c.unread]
        head = draw(marked, runs, seed, stratify)
        left = None if runs is None else runs - len(head)
        tail = draw(rest, left, seed, stratify) if left is None or left > 0 else []
        return head + tail
    rng = random.Random(seed)
    if runs is None or runs >= len(pool):
        chosen = list(pool)
    elif not stratify:
        chosen = rng.sample(pool, runs)
    else:
        strata: dict[tuple[str, ...], list[Candidate]] = defaultdict(list)
        for c in pool:
            strata[c.key(stratify)].append(c)
        queues = [rng.sample(group, len(group)) for _, group in sorted(strata.items())]
        chosen = []
        while len(chosen) < runs:
            for queue in queues:
                if queue and len(chosen) < runs:
                    chosen.append(queue.pop())
    rng.shuffle(chosen)
    return chosen


def default_key_path(study: str | Path, out: str | Path) -> Path:
    """Where the key goes unless told: the study's ``review-keys/<out folder>.json``."""
    return Path(study) / "review-keys" / f"{Path(out).resolve().name}.json"


def _write_pages(
    out: Path,
    loaded: Study,
    chosen: list[Candidate],
    readings: dict[str, SecondReading],
    rows: dict[str, MeasurementRow],
) -> tuple[dict[str, str], dict[str, int]]:
    """The pages, ``index.html`` and the empty ``labels.jsonl`` under ``out``; the key's
    mapping (review id -> run id) and the count of runs per stratum."""
    with naming(out / "pages"):
        (out / "pages").mkdir(parents=True, exist_ok=True)
    mapping: dict[str, str] = {}
    listing: list[IndexRow] = []
    strata: dict[str, int] = defaultdict(int)
    width = max(3, len(str(len(chosen))))
    for number, candidate in enumerate(chosen, start=1):
        review_id = f"r{number:0{width}d}"
        ledger = loaded.ledger(candidate.run_id)
        assert candidate.case.contract is not None
        row = rows.get(candidate.run_id)
        reading = readings.get(candidate.run_id)
        panel = run_panel(reading, row) if row is not None else None
        page = render_page(review_id, candidate.case.contract, ledger, panel)
        write_utf8(out / "pages" / f"{review_id}.html", page)
        mapping[review_id] = candidate.run_id
        listing.append({"review_id": review_id, "steps": len(ledger)})
        strata[f"{candidate.operator}/{candidate.stratum}"] += 1
    write_utf8(out / "index.html", render_index("Runs to review", listing))
    labels = "".join(empty_label(r["review_id"]).line() + "\n" for r in listing)
    atomic_write(out / "labels.jsonl", labels)
    return mapping, strata


class ExportSummary(TypedDict):
    """What ``review export`` did: runs exported of the population, per stratum, with a
    second reading and unread marks, and where the folder and the key went."""

    exported: int
    population: int
    strata: dict[str, int]
    second_readings: int
    unread: int
    out: str
    key: str


def export_review(
    study: str | Path,
    out: str | Path,
    *,
    runs: int | None = None,
    seed: int = 0,
    stratify: tuple[str, ...] = (),
    key: str | Path | None = None,
    second_reading: bool = False,
    unread_first: bool = False,
) -> ExportSummary:
    """Write ``out/pages/rNNN.html``, ``out/index.html``, ``out/labels.jsonl`` and the key.

    Refuses a non-empty ``out`` or an existing key (labels must never be mixed up
    with another export's). Returns a summary (counts per stratum, the paths).
    ``second_reading`` puts on the page of each run that ``second-read`` read the rule
    reading and the second reader's proposals side by side (the page is then not blind).
    """
    if runs is not None and runs < 1:
        raise DataError("--runs", None, "must be >= 1")
    out = Path(out)
    key_path = Path(key) if key is not None else default_key_path(study, out)
    if out.exists() and not out.is_dir():
        raise DataError(out, None, "--out must name a folder, and this is a file")
    if out.exists() and any(out.iterdir()):
        raise DataError(out, None, "the output folder is not empty")
    if key_path.exists():
        raise DataError(
            key_path, None, "a review key already exists here (pass --key to keep another)"
        )
    if key_path.resolve().is_relative_to(out.resolve()):
        raise DataError(key_path, None, "the key must be kept apart from the reviewer's folder")
    loaded = Study.open(study)
    readings = study_readings(loaded.root) if second_reading else {}
    rows = loaded.measurements if readings else {}
    pool = candidates(loaded)
    chosen = draw(pool, runs, seed, stratify, unread_first)
    clean_stale(key_path)
    with staged_folder(out) as staging:  # the reviewer's folder appears whole or not at all
        mapping, strata = _write_pages(staging, loaded, chosen, readings, rows)
        with naming(key_path.parent):
            key_path.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "study": str(Path(study).resolve()),
            "out": str(out.resolve()),
            "seed": seed,
            "stratify": list(stratify),
            "second_reading": second_reading,
            **({"unread_first": True} if unread_first else {}),
            "runs": mapping,
        }
        atomic_write(key_path, sealed_json(record, indent=1, sort_keys=False))  # last
    return {
        "exported": len(chosen),
        "population": len(pool),
        "strata": dict(sorted(strata.items())),
        "second_readings": sum(mapping[r] in readings for r in mapping),
        "unread": sum(1 for c in chosen if c.unread),
        "out": str(out),
        "key": str(key_path),
    }
