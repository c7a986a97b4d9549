"""``sscbench agreement``: measurement against reference labels on every quantity.

For each labelled quantity of each labelled run — T_F, T_E, T_S, T_U (exact and
within ±1 step), A, Z_S and Y_end — the measured value (``measurements.jsonl``, or
another measurement file such as an LLM classifier's) either equals the reference or
not. Counts and Wilson intervals are given overall, by operator and by stratum (the
reference's Z_S, or the measured one where the reference has none). Every
disagreement is listed with the run, the quantity, both values and the quoted
ledger text at the steps concerned.

Populations: T_U (where the first faulty reliance is) and Y_end (the last stance) are
scored over the *adopting* runs only — those whose reference A is true — as the paper
reports them; on a run that never adopted, T_U is not applicable by definition
(``"not-applicable"``, in measurements and labels alike) and would inflate the agreement.
Every other quantity is scored over all labelled runs. A run labelled on T_U or Y_end
outside that population is counted in ``out_of_population``. Within it, T_U is compared
as written: ``"not-applicable"`` agrees only with ``"not-applicable"``, never with a
step, ∞ or undecidable (a measurement that says the run did not adopt disagrees with a
reference step).

Comparison rules: ``"undecidable"`` is a value that must be matched; a run the
measurement calls not triggered has T_F ``"inf"`` and no other quantity (so every
other labelled quantity of it disagrees, shown as ``None``); a labelled run with no
measurement row disagrees on everything labelled. Null labels are not scored; a labels
file without a single label is an error (an unfilled review file, not zero runs).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from sscbench.analysis.stats import Interval, wilson
from sscbench.core.ledger import LedgerEvent, ToolEvent
from sscbench.errors import DataError
from sscbench.json_types import JsonObject, JsonValue
from sscbench.review.labels import (
    QUANTITIES,
    STEP_QUANTITIES,
    RunLabel,
    check_known,
    labels_by_run,
    read_key,
    read_labels,
)
from sscbench.study.folder import StudyDir
from sscbench.study.rows import MeasurementRow, read_measurements, rows_by_run
from sscbench.study.seal import check_measurements

QUOTE = 240
ALL_RUNS = "all labelled runs"
ADOPTING_RUNS = "reference A = true"
ADOPTING_ONLY = ("T_U", "Y_end")
POPULATIONS = {q: ADOPTING_RUNS if q in ADOPTING_ONLY else ALL_RUNS for q in QUANTITIES}
"""The runs each quantity is scored over (the paper's populations)."""


def in_population(quantity: str, label: RunLabel) -> bool:
    """Whether a labelled run is scored on ``quantity``: T_U and Y_end only when the
    reference says the run adopted v' (A = true); every other quantity always."""
    return quantity not in ADOPTING_ONLY or label.A is True


def measured_value(row: MeasurementRow | None, quantity: str) -> JsonValue:
    """A measurement row's value of a quantity, in the labels' vocabulary."""
    if row is None:
        return None
    if quantity == "T_F":
        return "inf" if row.triggered is False else row.T_F
    if row.triggered is not True:
        return None
    value = getattr(row, quantity)
    if quantity == "A" and isinstance(value, int) and not isinstance(value, bool):
        return bool(value)
    if quantity == "T_U":
        return row.reliance_step()  # rows written before "not-applicable" read as meant
    return value


def within_one(reference: object, measured: object) -> bool:
    """Equal, or both steps at most one apart."""
    if reference == measured:
        return True
    if isinstance(reference, bool) or isinstance(measured, bool):
        return False
    if isinstance(reference, int) and isinstance(measured, int):
        return abs(reference - measured) <= 1
    return False


@dataclass
class Cell:
    """Agreement counts of one quantity in one group."""

    n: int = 0
    exact: int = 0
    near: int = 0  # within ±1 (step quantities)

    def summary(self, steps: bool, population: str = ALL_RUNS) -> JsonObject:
        """Counts and Wilson intervals (exact, and ±1 for steps), with the population."""
        out: JsonObject = {
            "population": population,
            "n": self.n,
            "agree": self.exact,
            "exact": _interval(self.exact, self.n),
        }
        if steps:
            out["within_1"] = _interval(self.near, self.n)
            out["agree_within_1"] = self.near
        return out


def _interval(k: int, n: int) -> JsonObject:
    interval: Interval = wilson(k, n)
    return {
        "estimate": interval.estimate,
        "low": interval.low,
        "high": interval.high,
        "label": interval.label(),
    }


class Quote(TypedDict):
    """A ledger step quoted beside a disagreement (its text cut at ``QUOTE``)."""

    step: int
    role: str
    text: str


class Disagreement(TypedDict):
    """A labelled run whose measurement differs from its label on one quantity."""

    run_id: str
    review_id: str | None
    operator: str
    stratum: str
    quantity: str
    reference: JsonValue
    measured: JsonValue
    within_1: bool
    note: str
    quotes: list[Quote]


class AgreementSummary(TypedDict):
    """:meth:`Agreement.to_dict`: the JSON of ``sscbench agreement --json`` (cells are
    :meth:`Cell.summary` objects, by quantity then group or unread status)."""

    runs: int
    adopting_runs: int
    populations: dict[str, str]
    unlabelled: dict[str, int]
    out_of_population: dict[str, int]
    unmeasured_runs: list[str]
    quantities: dict[str, dict[str, JsonObject]]
    disagreements: list[Disagreement]
    unread_runs: dict[str, int]
    by_unread: dict[str, dict[str, JsonObject]]


@dataclass
class Agreement:
    """The whole comparison: cells by quantity and group, and the disagreements."""

    cells: dict[str, dict[str, Cell]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(Cell))
    )
    disagreements: list[Disagreement] = field(default_factory=list)
    runs: int = 0
    unlabelled: dict[str, int] = field(default_factory=lambda: dict.fromkeys(QUANTITIES, 0))
    unmeasured: list[str] = field(default_factory=list)
    adopting: int = 0  # labelled runs whose reference A is true
    out_of_population: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(ADOPTING_ONLY, 0)
    )
    # the same cells split by the run's unread marks (unread_status), beside the groups
    by_unread: dict[str, dict[str, Cell]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(Cell))
    )
    unread_runs: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def to_dict(self) -> AgreementSummary:
        """JSON-ready: per quantity, per group (``all``, ``operator:X``, ``stratum:Y``),
        each cell naming the population it is scored over."""
        return {
            "runs": self.runs,
            "adopting_runs": self.adopting,
            "populations": POPULATIONS,
            "unlabelled": self.unlabelled,
            "out_of_population": self.out_of_population,
            "unmeasured_runs": self.unmeasured,
            "quantities": {
                q: {g: cell_summary(q, c) for g, c in sorted(self.cells[q].items())}
                for q in QUANTITIES
                if q in self.cells
            },
            "disagreements": self.disagreements,
            "unread_runs": dict(sorted(self.unread_runs.items(), key=_unread_order)),
            "by_unread": {
                q: {
                    g: cell_summary(q, c)
                    for g, c in sorted(self.by_unread[q].items(), key=_unread_order)
                }
                for q in QUANTITIES
                if q in self.by_unread
            },
        }


UNREAD_STATUSES = ("marked", "unmarked", "not checked", "unmeasured")
"""A labelled run's unread status: it carries marks, it carries none, its row predates
the marks (or has no measurement of its own), or it has no row at all."""


def unread_status(row: MeasurementRow | None) -> str:
    """Whether a run's measurement carries unread marks (``marked``), none
    (``unmarked``), was not checked for them (``not checked``: a row measured before the
    marks existed) or is missing (``unmeasured``)."""
    if row is None:
        return "unmeasured"
    count = row.unread_count()
    if count is None:
        return "not checked"
    return "marked" if count else "unmarked"


def _unread_order(item: tuple[str, object]) -> int:
    return UNREAD_STATUSES.index(item[0])


def cell_summary(quantity: str, cell: Cell | None = None) -> JsonObject:
    """The summary of ``cell`` (an empty one by default: ``0/0``, unobserved) of a quantity."""
    return (cell or Cell()).summary(quantity in STEP_QUANTITIES, POPULATIONS[quantity])


def _quote(ledger: list[LedgerEvent], step: object) -> Quote | None:
    if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step < len(ledger):
        return None
    event = ledger[step]
    text = getattr(event, "content", None) or ""
    calls = getattr(event, "tool_calls", ()) or ()
    if calls:
        text = (text + " " if text else "") + " ".join(f"{c.name}({c.arguments})" for c in calls)
    if isinstance(event, ToolEvent):
        text = f"[{event.name}] {text}"
    return {"step": step, "role": getattr(event, "type", "?"), "text": text[:QUOTE]}


def _related_steps(quantity: str, label: RunLabel, row: MeasurementRow | None) -> list[int]:
    """The steps whose text explains a disagreement on ``quantity``."""
    names: tuple[str, ...]
    if quantity in STEP_QUANTITIES:
        names = (quantity,)
    elif quantity == "A":
        names = ("T_U", "T_S")
    elif quantity == "Z_S":
        names = ("T_E", "T_S")
    else:  # Y_end: the last use the measurement read a stance from
        uses = row.evidence.uses if row is not None and row.evidence is not None else []
        return [uses[-1].step] if uses else []
    steps: list[int] = []
    for name in names:
        for value in (getattr(label, name), measured_value(row, name)):
            if isinstance(value, int) and value not in steps:
                steps.append(value)
    return sorted(steps)


def _groups(label: RunLabel, row: MeasurementRow | None) -> tuple[str, str, str]:
    """The groups a run counts in: ``all``, its operator and its stratum (the reference's
    Z_S, or the measured one where the reference has none)."""
    operator = (row.operator if row is not None else None) or "unknown"
    stratum = label.Z_S or (row.Z_S if row is not None else None) or "unknown"
    return ("all", f"operator:{operator}", f"stratum:{stratum}")


def _disagreement(
    run_id: str,
    label: RunLabel,
    row: MeasurementRow | None,
    quantity: str,
    near: bool,
    ledger: list[LedgerEvent],
) -> Disagreement:
    """One disagreement: the run, the quantity, both values and the quoted steps."""
    quotes = [_quote(ledger, s) for s in _related_steps(quantity, label, row)]
    _, operator, stratum = _groups(label, row)
    return {
        "run_id": run_id,
        "review_id": label.review_id,
        "operator": operator.removeprefix("operator:"),
        "stratum": stratum.removeprefix("stratum:"),
        "quantity": quantity,
        "reference": getattr(label, quantity),
        "measured": measured_value(row, quantity),
        "within_1": near,
        "note": label.note,
        "quotes": [q for q in quotes if q is not None],
    }


LedgerReader = Callable[[str], list[LedgerEvent] | None]
"""A run's ledger by run id (None: it cannot be read)."""


def _score_run(
    result: Agreement,
    run_id: str,
    label: RunLabel,
    row: MeasurementRow | None,
    ledger_of: LedgerReader,
) -> None:
    """Add one labelled run's quantities to ``result`` (each over its population)."""
    labelled = label.labelled()
    groups = _groups(label, row)
    ledger = None
    for quantity in QUANTITIES:
        if quantity not in labelled:
            result.unlabelled[quantity] += 1
            continue
        if not in_population(quantity, label):
            result.out_of_population[quantity] += 1
            continue
        reference, measured = labelled[quantity], measured_value(row, quantity)
        exact = reference == measured and row is not None
        near = row is not None and quantity in STEP_QUANTITIES and within_one(reference, measured)
        status = unread_status(row)
        for cell in [result.cells[quantity][g] for g in groups] + [
            result.by_unread[quantity][status]
        ]:
            cell.n += 1
            cell.exact += exact
            cell.near += near or exact
        if exact:
            continue
        if ledger is None:
            ledger = ledger_of(run_id) or []
        result.disagreements.append(_disagreement(run_id, label, row, quantity, bool(near), ledger))


def compare(
    labels: dict[str, RunLabel],
    rows: dict[str, MeasurementRow],
    ledger_of: LedgerReader,
) -> Agreement:
    """Agreement of measurement rows with labels; ``ledger_of(run_id)`` gives the ledger
    to quote from (or None when it cannot be read). Runs with no label are left out."""
    result = Agreement()
    for run_id, label in sorted(labels.items()):
        if not label.labelled():
            continue
        result.runs += 1
        result.adopting += label.A is True
        row = rows.get(run_id)
        result.unread_runs[unread_status(row)] += 1
        if row is None:
            result.unmeasured.append(run_id)
        _score_run(result, run_id, label, row, ledger_of)
    return result


def check_labelled(labels: list[RunLabel], path: str | Path) -> None:
    """Refuse a labels file without a single label (an unfilled review file): scoring it
    would print an empty table as if the measurement had been checked."""
    if not any(label.labelled() for label in labels):
        what = f"{len(labels)} lines, every quantity null" if labels else "no label lines"
        raise DataError(path, None, f"the file has no labels ({what}): fill it in first")


def find_key(study: str | Path, labels: list[RunLabel]) -> dict[str, str] | None:
    """The key among the study's ``review-keys/*.json`` that holds every review id used."""
    wanted = {lab.review_id for lab in labels if lab.run_id is None and lab.review_id}
    if not wanted:
        return None
    for path in sorted((Path(study) / "review-keys").glob("*.json")):
        key = read_key(path)
        if wanted <= key.keys():
            return key
    return None


def agreement(
    study: str | Path,
    reference: str | Path,
    *,
    key: str | Path | None = None,
    measurements: str | Path | None = None,
) -> Agreement:
    """Compare a study's measurements (or ``measurements``) with a labels file."""
    from sscbench.study.ledgers import read_ledger

    store = StudyDir(study)
    path = Path(measurements) if measurements else store.root / "measurements.jsonl"
    if not path.exists():
        raise DataError(path, None, "no measurements: run `sscbench measure STUDY` first")
    if store.index.exists():  # only what `measure` wrote from this study's runs
        check_measurements(store, path)
    rows = rows_by_run(read_measurements(path))
    labels = read_labels(reference)
    check_labelled(labels, reference)
    mapping = read_key(key) if key is not None else find_key(study, labels)
    by_run = labels_by_run(labels, mapping, reference)

    def ledger_of(run_id: str) -> list[LedgerEvent] | None:
        try:
            return read_ledger(store, run_id)
        except (DataError, OSError):
            return None

    def steps_of(run_id: str) -> int | None:  # only labels with a step need the ledger
        label = by_run[run_id]
        if not any(isinstance(getattr(label, q), int) for q in STEP_QUANTITIES):
            return None
        ledger = ledger_of(run_id)
        return None if ledger is None else len(ledger)

    check_known(by_run, _known_runs(store, rows, by_run.keys()), steps_of, reference)
    return compare(by_run, rows, ledger_of)


def _known_runs(
    store: StudyDir, rows: dict[str, MeasurementRow], labelled: Collection[str]
) -> set[str]:
    """The ``labelled`` runs a label may name: those in the study's index, or without
    one (a measurements file scored alone) the measured runs (the index streamed: only
    the labelled ids it holds are kept, not one id per run)."""
    if not store.index.exists():
        return set(rows)
    return {entry.run_id for entry in store.read_index() if entry.run_id in labelled}


def dumps(result: Agreement) -> str:
    """The agreement as indented JSON."""
    return json.dumps(result.to_dict(), indent=1)
