"""``sscbench plan CONFIG``: what a study would run and spend, without calling any model.

The plan is built exactly as ``sscbench run`` builds it (worlds, cases, units, shared
clean runs); nothing is written and no endpoint is contacted. Model requests are
bounded from the step limits: an agent asks its model once per agent turn (at most the
run's step limit), an LLM user once for its first message and once per agent text
turn (at most the step limit again); each answered request may take up to
``max_retries`` more attempts. With a price table and per-request token bounds
(``max_tokens`` for completions, ``context_tokens`` for prompts) the price is bounded
too; without them the bound is stated as unknown, never guessed. A model served on this
machine (an endpoint on 127.0.0.1, ``localhost`` or ``::1``, such as ``sscbench
serve-local``) with no price entry costs nothing to call: it is counted at $0 and named
as such, since a local proxy to a paid API would need a price entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING

from sscbench.llm.endpoint import EndpointConfig
from sscbench.run.builders import build_study_cases, check_replay_plan
from sscbench.run.plan_caps import plan_caps
from sscbench.run.planning import make_plan
from sscbench.study.config import StudyConfig
from sscbench.study.cost import Prices
from sscbench.study.cost_words import cost_words, is_local_endpoint
from sscbench.study.worlds import build_worlds
from sscbench.terminal import count

if TYPE_CHECKING:
    from sscbench.admission.batch import Admission


@dataclass
class RoleBound:
    """Upper bounds of one role's requests and tokens under one configuration."""

    model: str | None
    local: bool = False  # served on this machine (a loopback endpoint)
    requests: int = 0
    attempts: int = 0
    prompt_tokens: int | None = 0  # None: no context_tokens given, not bounded
    completion_tokens: int | None = 0  # None: no max_tokens given, not bounded

    def add(self, requests: int, endpoint: EndpointConfig | None) -> None:
        """Add ``requests`` answered requests at most, with their retries and tokens."""
        if endpoint is None or requests == 0:
            return
        self.requests += requests
        self.attempts += requests * (1 + endpoint.max_retries)
        context, completion = endpoint.context_tokens, endpoint.max_tokens
        self.prompt_tokens = (
            None
            if context is None or self.prompt_tokens is None
            else (self.prompt_tokens + requests * context)
        )
        self.completion_tokens = (
            None
            if completion is None or self.completion_tokens is None
            else self.completion_tokens + requests * completion
        )


@dataclass
class ConfigPlan:
    """One agent configuration's part of the plan."""

    config_id: str
    clean_runs: int = 0
    faulted_runs: int = 0
    agent: RoleBound = field(default_factory=lambda: RoleBound(None))
    user: RoleBound = field(default_factory=lambda: RoleBound(None))


@dataclass
class PlanReport:
    """The dry run of a study: runs, request bounds and, with prices, a cost bound."""

    cases: int
    tasks: int
    per_case_clean_runs: int  # what the plan held before clean runs were shared
    configs: dict[str, ConfigPlan]
    review: str | None = None  # ``[cases] review`` applied: what it rejected and replaced
    caps: list[str] = field(default_factory=list)  # what caps the plan (run/plan_caps.py)

    @property
    def clean_runs(self) -> int:
        """Shared clean runs planned."""
        return sum(c.clean_runs for c in self.configs.values())

    @property
    def faulted_runs(self) -> int:
        """Faulted runs planned (each runs only when its clean run qualifies it)."""
        return sum(c.faulted_runs for c in self.configs.values())

    def requests(self) -> int:
        """Answered model requests at most (agent and user, every run qualifying)."""
        return sum(c.agent.requests + c.user.requests for c in self.configs.values())

    def attempts(self) -> int:
        """HTTP attempts at most, retries included."""
        return sum(c.agent.attempts + c.user.attempts for c in self.configs.values())

    def _called(self) -> list[RoleBound]:
        return [
            role
            for plan in self.configs.values()
            for role in (plan.agent, plan.user)
            if role.requests
        ]

    def free_local_models(self, prices: Prices) -> list[str]:
        """Models called on a loopback endpoint with no price entry (counted at $0)."""
        return sorted(
            {
                str(role.model)
                for role in self._called()
                if role.local and (role.model is None or prices.get(role.model) is None)
            }
        )

    def price_bound(self, prices: Prices) -> tuple[float | None, str]:
        """The cost upper bound in dollars, or None and what is missing for one; an
        unpriced model on a loopback endpoint adds $0 (see :meth:`free_local_models`)."""
        total = 0.0
        for role in self._called():
            price = prices.get(role.model) if role.model is not None else None
            if price is None and role.local:
                continue
            if price is None:
                return None, f"no [prices.{role.model!r}] entry"
            if role.prompt_tokens is None or role.completion_tokens is None:
                return None, (
                    f"{role.model}: set the endpoint's context_tokens and max_tokens to "
                    "bound each request's tokens"
                )
            total += role.prompt_tokens * price.prompt_per_mtok / 1e6
            total += role.completion_tokens * price.completion_per_mtok / 1e6
        return total, ""


def _role(endpoint: EndpointConfig | None) -> RoleBound:
    return RoleBound(endpoint.model if endpoint else None, local=is_local_endpoint(endpoint))


def _user_endpoint(config: StudyConfig) -> EndpointConfig | None:
    return config.user.endpoint if config.user.kind == "llm" else None


def plan_report(config: StudyConfig) -> PlanReport:
    """Build the study's plan as ``run`` would and bound what it calls (no model call)."""
    worlds = build_worlds(config)
    cases, admission = build_study_cases(config, worlds)
    plan = make_plan(config, cases)  # made on demand: a plan of 2 M units is never held
    check_replay_plan(config, plan.config_ids(), cases)
    user_endpoint = _user_endpoint(config)
    configs: dict[str, ConfigPlan] = {}
    for agent in config.agents:
        configs[agent.id] = ConfigPlan(
            agent.id,
            agent=_role(agent.endpoint),
            user=_role(user_endpoint),
        )
    settings = {a.id: a for a in config.agents}
    runs = chain(
        ((slot.config_id, slot.max_steps) for slot in plan.clean_slots()),
        ((unit.config_id, unit.case.max_steps) for unit in plan),
    )
    for unit in plan:
        configs[unit.config_id].faulted_runs += 1
    for slot in plan.clean_slots():
        configs[slot.config_id].clean_runs += 1
    for config_id, steps in runs:
        part = configs[config_id]
        part.agent.add(steps, settings[config_id].endpoint)
        part.user.add(steps + 1, user_endpoint)
    return PlanReport(
        cases=len(cases),
        tasks=len({(c.domain, c.task_id) for c in cases}),
        per_case_clean_runs=len(plan),
        configs=configs,
        review=_review_line(admission),
        caps=plan_caps(config, cases, admission),
    )


def _review_line(admission: Admission | None) -> str | None:
    """What the semantic review of ``[cases] review`` did to the admission (None: none)."""
    if admission is None or admission.review is None:
        return None
    funnels = [one.funnel for one in admission.operators]
    rejected = sum(f.rejected_in_review for f in funnels)
    replaced = sum(f.replaced for f in funnels)
    return (
        f"semantic review {admission.review}: {rejected} witnessed candidates rejected, "
        f"{replaced} cases replaced from the same frozen order"
    )


def plan_lines(report: PlanReport, prices: Prices) -> list[str]:
    """The dry run as console lines."""
    lines = [
        f"{count(report.cases, 'case')} on {count(report.tasks, 'task')}, "
        f"{count(len(report.configs), 'configuration')}",
        *([report.review] if report.review else []),
        f"clean runs: {report.clean_runs} (one per task, configuration and repetition; "
        f"one per case would be {report.per_case_clean_runs})",
        f"faulted runs: {report.faulted_runs} (each runs when its task's clean run qualifies it)",
        f"runs in all: {report.clean_runs + report.faulted_runs}",
        f"model requests, upper bound from step limits: {report.requests()} "
        f"({report.attempts()} HTTP attempts with every retry)",
    ]
    for plan in report.configs.values():
        requests = plan.agent.requests + plan.user.requests
        lines.append(
            f"  {plan.config_id}: {plan.clean_runs} clean + {count(plan.faulted_runs, 'faulted run')}, "
            f"<= {count(requests, 'request')}"
        )
    lines.append(f"cost: {plan_cost(report, prices)}")
    lines.extend(report.caps)
    return lines


def plan_cost(report: PlanReport, prices: Prices) -> str:
    """The plan's cost in the one wording (:func:`~sscbench.study.cost_words.cost_words`):
    no model called, an upper bound (local unpriced models at $0, named), or what a
    bound needs."""
    if report.requests() == 0:
        return cost_words(0.0, spent=False, model_called=False)
    free = report.free_local_models(prices)
    bound, missing = report.price_bound(prices)
    return cost_words(bound, spent=False, local=free, missing=missing)
