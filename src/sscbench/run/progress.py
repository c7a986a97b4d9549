"""A rich progress bar for studies: runs done, not qualified and missing (by reason)."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


def describe_missing(reasons: Any, top: int = 3) -> str:
    """The most frequent reason groups of missing runs, e.g. ``agent timed out 4, ...``."""
    ranked = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ", ".join(f"{group} {n}" for group, n in ranked[:top])
    if len(ranked) > top:
        text += f", {len(ranked) - top} more"
    return text


class StudyProgress:
    """Context manager showing a study's progress; silent when disabled."""

    def __init__(self, summary: Any, enabled: bool = True):
        self.summary = summary
        self.enabled = enabled
        self._progress: Progress | None = None
        self._task: Any = None

    def __enter__(self) -> StudyProgress:
        if self.enabled:
            self._progress = Progress(
                TextColumn("[bold]runs"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
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
        return (
            f"done {s['completed']} · not qualified {s['not-qualified']} · "
            f"[red]missing {s['missing']}{why}[/red]"
        )

    def update(self) -> None:
        """Refresh after a run finished."""
        if self._progress is not None:
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
