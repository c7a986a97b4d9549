"""The page's building blocks: sections, tables whose cells may link to runs, figures.

A section either applies (tables, figures, notes) or carries a one-line ``reason`` why
not. A table cell is a list of pieces, each text with an optional link; a count links
to the run browser's list of exactly the runs behind it (:class:`RunSets`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sscbench.analysis.populations import interval_label
from sscbench.analysis.stats import Interval
from sscbench.errors import naming

Piece = dict[str, str]
Cell = list[Piece]


class RunSets:
    """Numbered sets of run ids; a count's link opens the run list filtered to its set."""

    def __init__(self) -> None:
        self.sets: list[list[str]] = []
        self._seen: dict[tuple[str, ...], int] = {}

    def href(self, run_ids: list[str]) -> str:
        key = tuple(run_ids)
        if key not in self._seen:
            self._seen[key] = len(self.sets)
            self.sets.append(list(run_ids))
        return f"runs/index.html#set={self._seen[key]}"

    def count(self, run_ids: list[str]) -> Cell:
        """A count linking to its runs (plain text when there are none)."""
        if not run_ids:
            return [{"t": "0"}]
        return [{"t": str(len(run_ids)), "href": self.href(run_ids), "cls": "count"}]


def text(value: Any) -> Cell:
    """A plain cell."""
    if value is None:
        return [{"t": "–"}]
    if isinstance(value, float):
        return [{"t": f"{value:.3g}"}]
    return [{"t": str(value)}]


def rate(interval: Interval, sets: RunSets, counted: list[str], evaluable: list[str]) -> Cell:
    """``k/n (rate, CI, method)`` with k and n linking to their runs; caveat flagged."""
    label = interval_label(interval)
    rest = label.split(" ", 1)[1] if interval.observed else "unobserved"
    cls = "unobserved" if not interval.observed else ("caveat" if "⚠" in label else "")
    return [
        *sets.count(counted),
        {"t": "/"},
        *sets.count(evaluable),
        {"t": f" {rest}", "cls": cls},
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

    def add(self, *cells: Cell | Any, key: str = "") -> None:
        self.rows.append([c if isinstance(c, list) else text(c) for c in cells])
        self.keys.append(key)


@dataclass
class Figure:
    """A figure drawn as PNG and SVG; the page inlines the PNG."""

    name: str
    caption: str
    alt: str
    png: str  # base64


@dataclass
class Section:
    """One section of the page with a stable id."""

    id: str
    title: str
    intro: str = ""
    reason: str = ""  # set when the section does not apply: one line saying why
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[Cell] = field(default_factory=list)  # each note a cell of pieces
    cards: list[dict[str, Any]] = field(default_factory=list)


def write_csv(path: Path, rows: list[dict[str, Any]], columns: list[str] | None = None) -> None:
    """A CSV file with a header (also when there are no rows and columns are known)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = columns or (list(rows[0]) if rows else [])
    with naming(path), path.open("w", newline="", encoding="utf-8") as handle:
        if not columns:
            return
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
