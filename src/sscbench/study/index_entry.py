"""One line of a study's ``index.jsonl``: a finished run, one not qualified, or one missing.

Every reader of a study's runs reads these (:meth:`~sscbench.study.folder.StudyDir.read_index`);
the executor and the exporters build them. Kept apart from the folder's other work, which
:mod:`sscbench.study.folder` does (and re-exports these names, where they always were).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from sscbench.core.agent import RunKind
from sscbench.llm.usage import RunUsage
from sscbench.names import PathName

INDEX_FIELDS = ("run_id", "case_id", "config_id", "repetition", "kind", "status", "ledger_sha256")


RunStatus = Literal["completed", "not-qualified", "missing"]
"""How a run ended: completed, not qualified (its clean run failed the task), or missing
(the harness lost it: never an outcome)."""


class IndexEntry(BaseModel):
    """One finished run (or one not qualified, or missing) in ``index.jsonl``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: PathName
    case_id: str
    config_id: PathName
    repetition: int
    kind: RunKind
    status: RunStatus
    ledger_sha256: str | None = None
    evaluator_sha256: str | None = None
    reward: float | None = None
    triggered: bool | None = None
    termination: str | None = None
    agent_turns: int | None = None
    reason: str | None = None
    # shared clean runs: a clean run names its task and every case it qualifies; a
    # faulted run names the clean run that qualified it (or not). Older studies: None.
    task: str | None = None
    cases: tuple[str, ...] | None = None
    clean_run_id: PathName | None = None
    usage: RunUsage | None = None  # endpoint requests, tokens and wall time of a run that ran

    def served_cases(self) -> tuple[str, ...]:
        """The cases a clean run qualifies (an older study's clean run: its own case)."""
        return self.cases if self.cases else (self.case_id,)


__all__ = ["INDEX_FIELDS", "IndexEntry", "RunStatus"]
