"""The page's building blocks: sections, tables whose cells may link to runs, figures.

A section either applies (tables, figures, notes) or carries a one-line ``reason`` why
not. A table cell is a list of pieces, each text with an optional link; a count links
to the run browser's list of exactly the runs behind it (:class:`RunSets`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.analysis.effective import CAVEAT_TEXT, CLUSTERED_TEXT
from sscbench.analysis.stats import Interval, method_name
from sscbench.core.files import atomic_text_writer
from sscbench.reading import write_csv_rows
from sscbench.report.entries import Entry

Piece = dict[str, str]
Cell = list[Piece]


class RunSets:
    """Numbered sets of run ids; a count's link opens the run list filtered to its set."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._seen: dict[tuple[str, ...], int] = {}  # each set once, numbered in order
        # one copy of each run id (the measurement rows'): a set made from the plan or the
        # index holds those, not a string per run of its own
        self._names = {name: name for name in names}

    def name(self, run_id: str) -> str:
        """The one copy of ``run_id`` these sets keep (the measurement row's), or
        ``run_id`` itself: what a reader holding ids until it counts them keeps instead
        of the string it read (a plan or index line's, one more string per run)."""
        return self._names.get(run_id, run_id)

    @property
    def sets(self) -> list[list[str]]:
        """The sets in their numbers' order (made when asked: each set is kept once)."""
        return [list(key) for key in self._seen]

    def each(self) -> Iterator[tuple[str, ...]]:
        """The sets in their numbers' order, as kept (nothing copied)."""
        return iter(self._seen)

    def href(self, run_ids: list[str]) -> str:
        """The run list's link to exactly these runs (a set numbered on first use)."""
        names = self._names
        key = tuple([names.get(i, i) for i in run_ids])
        number = self._seen.setdefault(key, len(self._seen))
        return f"runs/index.html#set={number}"

    def count(self, run_ids: list[str]) -> Cell:
        """A count linking to its runs (plain text when there are none)."""
        if not run_ids:
            return [{"t": "0"}]
        return [{"t": str(len(run_ids)), "href": self.href(run_ids), "cls": "count"}]


def text(value: object) -> Cell:
    """A plain cell."""
    if value is None:
        return [{"t": "–"}]
    if isinstance(value, float):
        return [{"t": f"{value:.3g}"}]
    return [{"t": str(value)}]


def caveat_piece(caveats: Sequence[str]) -> Cell:
    """A short ⚠ marker naming the caveats (``⚠ few clusters``), empty without any; the
    sentences behind them are printed once under the table (:meth:`Table.all_notes`)."""
    if not caveats:
        return []
    return [{"t": f" ⚠ {', '.join(caveats)}", "cls": "caveat", "caveats": "|".join(caveats)}]


def interval_cell(interval: Interval) -> Cell:
    """An interval's label (estimate, CI, method) and its caveat marker."""
    return [{"t": interval.label()}, *caveat_piece(interval.caveats)]


def label_cell(label: str, key: str = "") -> Cell:
    """A stored label (``… ⚠ few clusters``, as in the CSVs) split into the interval text
    and its caveat marker; ``key`` becomes the text's ``data-key``."""
    text, _, caveats = label.partition(" ⚠ ")
    piece = {"t": text, "key": key} if key else {"t": text}
    return [piece, *caveat_piece(caveats.split(", ") if caveats else [])]


def rate(interval: Interval, sets: RunSets, counted: list[str], evaluable: list[str]) -> Cell:
    """``k/n (rate, CI, method)`` with k and n linking to their runs; caveats marked."""
    rest = interval.label().split(" ", 1)[1] if interval.observed else "unobserved"
    cls = "unobserved" if not interval.observed else ""
    return [
        *sets.count(counted),
        {"t": "/"},
        *sets.count(evaluable),
        {"t": f" {rest}", "cls": cls},
        *caveat_piece(interval.caveats),
    ]


@dataclass
class Table:
    """A displayed table: caption, population and n stated, cells of pieces."""

    id: str
    caption: str
    population: str
    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)  # optional data-key per row
    notes: list[str] = field(default_factory=list)  # printed once under the table

    def all_notes(self) -> list[str]:
        """The table's notes, what the ``clustered`` method is when a cell uses it, then
        the sentence of every interval caveat its cells mark (once per table, not per
        cell)."""
        pieces = [p for row in self.rows for c in row for p in c]
        marked = {k for p in pieces for k in p.get("caveats", "").split("|")}
        clustered = any(f"{method_name('clustered')}, n_eff" in p["t"] for p in pieces)
        return [
            *self.notes,
            *([f"{CLUSTERED_TEXT}."] if clustered else []),
            *(f"⚠ {k}: {CAVEAT_TEXT[k]}." for k in CAVEAT_TEXT if k in marked),
        ]

    def add(self, *cells: object, key: str = "") -> None:
        """Append a row; a cell that is not already pieces becomes a plain cell."""
        self.rows.append([c if isinstance(c, list) else text(c) for c in cells])
        self.keys.append(key)


@dataclass
class Figure:
    """A figure drawn as PNG and SVG; the page inlines the PNG."""

    name: str
    caption: str
    alt: str
    png: str  # base64
    lines: list[str] = field(default_factory=list)  # one-line definitions under the figure


@dataclass
class Section:
    """One section of the page with a stable id, and the CSV rows of its tables."""

    id: str
    title: str
    intro: str = ""
    reason: str = ""  # set when the section does not apply: one line saying why
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[Cell] = field(default_factory=list)  # each note a cell of pieces
    cards: list[Entry] = field(default_factory=list)  # claim cards, as the page shows them
    csvs: dict[str, Sequence[Entry]] = field(default_factory=dict)
    """The section's tidy rows by CSV name (``tables/<name>.csv``); sections naming the
    same CSV (adoption and reliance: ``cells``) add their rows to it in page order."""


def write_csv(path: Path, rows: Sequence[Entry], columns: list[str] | None = None) -> None:
    """A CSV file with a header (also when there are no rows and columns are known)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = columns or (list(rows[0]) if rows else [])
    with atomic_text_writer(path, newline="") as handle:
        if columns:
            write_csv_rows(handle, columns, rows)
