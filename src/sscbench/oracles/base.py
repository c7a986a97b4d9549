"""The oracle protocol: an automated judge of one run's adoption and first faulty reliance.

An oracle reads one run's :class:`OracleContext` — what the run's agent saw (the
model-visible ledger), the case and its fault contract, the world's tool schemas and
domain policy, and (for oracles that compare) the clean runs of the same task in the
study — and returns a :class:`Verdict`: adoption ``True`` / ``False``, or an
abstention with its reason, and optionally the T_U step. A step-only oracle returns
only a step and is excluded from adoption metrics (``gives_adoption = False``).

The context never carries the evaluator-only log. Only its ``measurement`` row (today's
measurement, for the ``rules`` oracle) says whether the run is a faulted run or a
clean control; an oracle that judges the trajectory must not read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sscbench.core.ledger import LedgerEvent
from sscbench.faults.case import Case
from sscbench.json_types import JsonObject
from sscbench.llm.endpoint import EndpointConfig
from sscbench.study.rows import MeasurementRow

if TYPE_CHECKING:
    from sscbench.world.world import World


class Verdict(BaseModel):
    """One oracle's answer for one run.

    ``adopted`` is ``True`` / ``False`` for a verdict and ``None`` for an abstention
    (then ``abstention`` says why: a failed call, an unparsable answer, nothing to
    compare with, ...). ``t_u`` is the ledger step of the first faulty reliance the
    oracle located, when it located one. A step-only oracle leaves ``adopted`` None and
    ``abstention`` None and gives ``t_u`` (or abstains when it finds no step). ``calls``
    is the number of model calls the verdict took (None for an oracle that makes none).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str
    adopted: bool | None = None
    t_u: int | None = Field(None, ge=0)
    abstention: str | None = None
    reason: str = ""
    calls: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _abstention_has_no_verdict(self) -> Verdict:
        if self.abstention is not None and (self.adopted is not None or self.t_u is not None):
            raise ValueError("an abstention carries no adoption verdict and no step")
        return self

    @property
    def abstained(self) -> bool:
        """True when the oracle gave no verdict for this run."""
        return self.abstention is not None


@dataclass(frozen=True)
class CleanRun:
    """One clean run of the same task: its id, configuration, repetition and ledger."""

    run_id: str
    config_id: str
    repetition: int
    case_id: str
    ledger: list[LedgerEvent]


@dataclass
class OracleContext:
    """Everything an oracle may read about one run (nothing of the evaluator-only log).

    ``measurement`` is the run's row of ``measurements.jsonl`` (today's rule-based
    measurement, which knows the run's condition; only the ``rules`` oracle reads it; None:
    not measured). ``clean_runs`` are the completed clean
    runs of the same task in the study, the judged run itself left out; ``paired_clean``
    is the one of them with the judged run's case, configuration and repetition, if
    any. ``world`` lets an oracle replay clean runs' tool calls in a fresh env.
    """

    run_id: str
    case: Case
    ledger: list[LedgerEvent]
    tool_schemas: list[JsonObject]
    policy: str
    measurement: MeasurementRow | None = None
    clean_runs: list[CleanRun] = field(default_factory=list)
    paired_clean: CleanRun | None = None
    world: World | None = None


class OracleSettings(BaseModel):
    """What an oracle factory may be configured with (from the command line).

    ``endpoint`` is the OpenAI-compatible endpoint of LLM oracles (None when the user
    gave none; an LLM oracle then refuses to start).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    endpoint: EndpointConfig | None = None


@runtime_checkable
class Oracle(Protocol):
    """A trajectory oracle.

    ``name`` is its registered name; ``context`` says in one or two sentences what it
    reads (shown in the report and in ``oracles/<name>.json``); ``gives_adoption`` is
    False for step-only oracles (excluded from adoption metrics).
    """

    name: str
    context: str
    gives_adoption: bool

    def judge(self, run: OracleContext) -> Verdict:
        """The verdict on one run; an oracle that cannot judge returns an abstention."""
        ...

    def close(self) -> None:
        """Release what the oracle holds (clients, caches)."""
        ...


def abstain(run_id: str, why: str, calls: int | None = None) -> Verdict:
    """An abstention with its reason (and the model calls it took before giving up)."""
    return Verdict(run_id=run_id, abstention=why, calls=calls)
