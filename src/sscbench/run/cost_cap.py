"""``--max-cost USD`` (or ``[study] max_cost_usd``): stop starting runs before the bound
could be crossed.

Before a plan unit starts (its clean run, if not yet run, and its faulted run) the cap
projects what the study would have spent: the dollars spent so far (the finished runs'
usage priced from ``[prices]``, resumed runs included) plus, for this unit and every
unit in flight, two runs at the mean price of the runs that ran so far. While that
projection stays within the bound the unit starts; when it would cross it, the unit
waits for the units in flight to finish (their real cost replaces the estimate) and,
with none in flight, the study stops: no new run starts, every finished run is kept,
and the same command with a higher bound continues. Until the first run has finished
there is no estimate, so one unit runs at a time.

A model called without a ``[prices]`` entry makes the cap uncheckable: the command is
refused before anything is created (a model on a loopback endpoint without a price is
counted at $0, as ``sscbench plan`` counts it).
"""

from __future__ import annotations

from typing import Literal

from sscbench.errors import DataError
from sscbench.llm.endpoint import EndpointConfig
from sscbench.study.config import StudyConfig
from sscbench.study.cost import CostTally
from sscbench.study.cost_words import is_local_endpoint

CAPPED_EXIT = 3
"""The exit code of ``sscbench run`` stopped by its cost cap (documented in
docs/running-a-study.md and docs/cost.md)."""

Verdict = Literal["start", "wait", "stop"]


def unpriced_models(config: StudyConfig) -> list[str]:
    """Models the study calls at a non-loopback endpoint without a ``[prices]`` entry."""
    endpoints: list[EndpointConfig | None] = [a.endpoint for a in config.agents]
    if config.user.kind == "llm":
        endpoints.append(config.user.endpoint)
    return sorted(
        {
            e.model
            for e in endpoints
            if e is not None and not is_local_endpoint(e) and config.prices.get(e.model) is None
        }
    )


def cost_bound(config: StudyConfig, given: float | None) -> float | None:
    """The bound in dollars: ``--max-cost`` else ``[study] max_cost_usd`` (None: no cap);
    refused (DataError) when a called model has no price, since the cap could not be
    checked."""
    bound = given if given is not None else config.study.max_cost_usd
    if bound is None:
        return None
    field = "--max-cost" if given is not None else "study.max_cost_usd"
    if not bound >= 0:
        raise DataError(field, None, f"{bound} is not a dollar amount >= 0")
    missing = unpriced_models(config)
    if missing:
        tables = ", ".join(f'[prices."{m}"]' for m in missing)
        raise DataError(
            field,
            None,
            f"the cost cap cannot be checked: {', '.join(missing)} has no price; add "
            f"{tables} (prompt_per_mtok, completion_per_mtok) to the study config",
        )
    return bound


class CostCap:
    """Decides before each plan unit whether it may start under the bound (see module)."""

    def __init__(self, bound: float, tally: CostTally):
        self.bound = bound
        self.tally = tally
        self.stopped = False  # the cap stopped the study: units were left unstarted

    def spent(self) -> float:
        """Dollars spent by the finished runs (resumed ones included)."""
        return self.tally.study().price_usd

    def per_run(self) -> float | None:
        """The mean price of the runs that ran so far (None: none ran yet)."""
        study = self.tally.study()
        return study.price_usd / study.runs if study.runs else None

    def verdict(self, in_flight: int) -> Verdict:
        """``start`` the next unit, ``wait`` for the units in flight, or ``stop``."""
        per_run = self.per_run()
        if per_run is None:
            if self.bound <= 0 or self.spent() > self.bound:
                return self.stop()
            return "start" if in_flight == 0 else "wait"
        if self.spent() + 2 * per_run * (in_flight + 1) <= self.bound:
            return "start"
        return "wait" if in_flight else self.stop()

    def stop(self) -> Verdict:
        """Mark the study stopped by the cap."""
        self.stopped = True
        return "stop"


def cap_line(config: StudyConfig, bound: float) -> str:
    """The line ``run`` prints at start: the bound and how it is kept."""
    from sscbench.study.cost import calls_a_model

    if not calls_a_model(config):
        return f"cost cap: ${bound:.2f}; no model is called, so nothing is spent"
    return (
        f"cost cap: ${bound:.2f}; no new run starts once the spend so far plus the next "
        "runs' estimate (the mean price of the runs so far) could cross it"
    )
