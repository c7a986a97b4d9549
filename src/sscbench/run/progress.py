"""A rich progress bar for studies: runs done, not qualified and missing."""

from __future__ import annotations

from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


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
        return (
            f"done {s['completed']} · not qualified {s['not-qualified']} · "
            f"[red]missing {s['missing']}[/red]"
        )

    def update(self) -> None:
        """Refresh after a run finished."""
        if self._progress is not None:
            self._progress.update(
                self._task, completed=self.summary.finished_runs, description=self._describe()
            )

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
