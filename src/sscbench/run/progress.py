"""A rich progress bar for studies: runs done, not qualified and missing (by reason), and
under it the runs in flight that call a model: their agent turn and model calls so far."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Protocol

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from sscbench.terminal import plain


class Summary(Protocol):
    """What the bar reads of a study's summary (``missing_reasons`` and ``spend`` too,
    when it has them)."""

    @property
    def planned_runs(self) -> int:
        """Runs the study plans."""
        ...

    @property
    def finished_runs(self) -> int:
        """Runs finished so far."""
        ...

    @property
    def statuses(self) -> Mapping[str, int]:
        """Runs by status (``completed``, ``not-qualified``, ``missing``)."""
        ...


class RunCalls(Protocol):
    """What the bar reads of a run in flight (its response journal's counts)."""

    calls: int
    agent_calls: int
    replayed: int


def describe_missing(reasons: Mapping[str, int], top: int = 3) -> str:
    """The most frequent reason groups of missing runs, e.g. ``agent timed out 4, ...``."""
    ranked = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ", ".join(f"{group} {n}" for group, n in ranked[:top])
    if len(ranked) > top:
        text += f", {len(ranked) - top} more"
    return text


SHOWN_IN_FLIGHT = 4
"""How many runs in flight get a line of their own (the others are counted)."""


def in_flight_lines(in_flight: Mapping[str, RunCalls], shown: int = SHOWN_IN_FLIGHT) -> list[str]:
    """One line per run in flight that calls a model (its journal's counts), e.g.
    ``run X: turn 7, 12 model calls (5 from its journal)``; the rest as ``... N more``."""
    journals = list(in_flight.items())  # a copy: the runs' loop adds and removes them
    lines = []
    for run_id, journal in journals[:shown]:
        calls = journal.calls
        line = f"run {run_id}: turn {journal.agent_calls}, {calls} model call{'s' * (calls != 1)}"
        if journal.replayed:
            line += f" ({journal.replayed} from its journal)"
        lines.append(line)
    if len(journals) > shown:
        lines.append(f"... and {len(journals) - shown} more runs in flight")
    return lines


class _RunsProgress(Progress):
    """The runs bar, followed by a dim line per run in flight."""

    def __init__(self, *columns: str | ProgressColumn, in_flight: Mapping[str, RunCalls]):
        self.in_flight = in_flight
        super().__init__(*columns, console=Console(stderr=True))  # stdout keeps the summary

    def get_renderables(self) -> Iterable[RenderableType]:
        yield from super().get_renderables()
        for line in in_flight_lines(self.in_flight):
            yield Text(line, style="dim")


class StudyProgress:
    """Context manager showing a study's progress; silent when disabled. ``in_flight``
    maps the runs being made that call a model to their response journals."""

    def __init__(
        self,
        summary: Summary,
        enabled: bool = True,
        in_flight: Mapping[str, RunCalls] | None = None,
    ):
        from sscbench.progress import enabled as shown_here

        self.summary = summary
        # a redirected stderr gets no bar (rich would print its last frame into the file)
        self.enabled = enabled and shown_here()
        self.in_flight = in_flight if in_flight is not None else {}
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def note(self, text: str) -> None:
        """Print one line above the bar (e.g. why a run's journal could not be used)."""
        console = self._progress.console if self._progress is not None else Console(stderr=True)
        console.print(Text(plain(text)), soft_wrap=True)

    def __enter__(self) -> StudyProgress:
        if self.enabled:
            self._progress = _RunsProgress(
                TextColumn("[bold]runs"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                in_flight=self.in_flight,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(
                self._describe(),
                total=self.summary.planned_runs,
                completed=self.summary.finished_runs,
            )
        return self

    def _describe(self) -> str:
        s = self.summary.statuses
        reasons = getattr(self.summary, "missing_reasons", None)
        why = f" ({escape(describe_missing(reasons))})" if reasons else ""
        spend = getattr(self.summary, "spend", "")
        return (
            f"done {s['completed']} · not qualified {s['not-qualified']} · "
            f"[red]missing {s['missing']}{why}[/red]" + (f" · {escape(spend)}" if spend else "")
        )

    def update(self) -> None:
        """Refresh after a run finished."""
        if self._progress is not None and self._task is not None:
            self._progress.update(
                self._task, completed=self.summary.finished_runs, description=self._describe()
            )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, traceback)
