"""What a study's runs cost: per run, per configuration and per study, and the clean-task
pass^k of each configuration (its qualification figure).

Everything is summed from ``index.jsonl`` rows (each run that ran carries its
:class:`~sscbench.llm.usage.RunUsage`), so the totals of the configurations add up to
the study's and each configuration's to its runs'. Prices come from the study config's
optional ``[prices."model"]`` table; a model that spent tokens without a price is named,
never priced at 0.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from sscbench.errors import DataError
from sscbench.llm.usage import COUNTERS, RoleUsage, RunUsage
from sscbench.reading import read_toml
from sscbench.study.config import ModelPrice, StudyConfig, load_config
from sscbench.study.cost_words import cost_words
from sscbench.study.folder import IndexEntry
from sscbench.terminal import count

Prices = Mapping[str, ModelPrice]


class CostedRun(Protocol):
    """What the cost and pass^k figures read of a run: an :class:`IndexEntry`, or a slim
    copy of its fields (a reader holding one per run, such as the report's cost section)."""

    @property
    def run_id(self) -> str: ...
    @property
    def case_id(self) -> str: ...
    @property
    def config_id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def reward(self) -> float | None: ...
    @property
    def task(self) -> str | None: ...
    @property
    def usage(self) -> RunUsage | None: ...


def role_price(role: RoleUsage, prices: Prices) -> tuple[float, str | None]:
    """Dollars one role's tokens cost, and the model left unpriced (None: all priced)."""
    if role.prompt_tokens == 0 and role.completion_tokens == 0:
        return 0.0, None
    price = prices.get(role.model) if role.model else None
    if price is None:
        return 0.0, role.model or "(unnamed model)"
    dollars = (
        role.prompt_tokens * price.prompt_per_mtok
        + role.completion_tokens * price.completion_per_mtok
    ) / 1e6
    return dollars, None


@dataclass
class CostTotals:
    """Sums over runs: runs that ran, their requests, retries, 429s, tokens, wall time and
    estimated price (``unpriced``: models that spent tokens without a price)."""

    runs: int = 0
    requests: int = 0
    retries: int = 0
    rate_limited: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0
    price_usd: float = 0.0
    unpriced: set[str] = field(default_factory=set)
    unpriced_calls: Counter[str] = field(default_factory=Counter)  # per model without a price

    def add(self, usage: RunUsage, prices: Prices, wall_s: float = 0.0) -> None:
        """Add one run's usage (and its wall time, from ``timings.jsonl``)."""
        self.runs += 1
        for name in COUNTERS:
            setattr(self, name, getattr(self, name) + usage.total(name))
        self.wall_s += wall_s
        for role in (usage.agent, usage.user):
            dollars, unpriced = role_price(role, prices)
            self.price_usd += dollars
            if unpriced:
                self.unpriced.add(unpriced)
                self.unpriced_calls[unpriced] += role.requests

    def merge(self, other: CostTotals) -> None:
        """Add another total (configuration totals into the study's)."""
        for name in ("runs", *COUNTERS, "wall_s", "price_usd"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.unpriced |= other.unpriced
        self.unpriced_calls.update(other.unpriced_calls)

    @property
    def price_label(self) -> str:
        """What the runs spent, in the one wording (:func:`cost_words`)."""
        return self.words()

    def words(self, local: Iterable[str] = (), model_called: bool = True) -> str:
        """What the runs spent in the one wording; ``local`` models (a loopback endpoint
        without a price) count at $0 and are named instead of unpriced."""
        free = set(local)
        unpriced = {m: n for m, n in self.unpriced_calls.items() if m not in free}
        unpriced |= {m: 0 for m in self.unpriced - free - set(unpriced)}
        used = sorted(free & self.unpriced)
        return cost_words(
            self.price_usd, spent=True, model_called=model_called, unpriced=unpriced, local=used
        )

    def row(self) -> dict[str, str | int | float]:
        """The totals as a flat row (CSV, JSON)."""
        return {
            "runs": self.runs,
            **{name: getattr(self, name) for name in COUNTERS},
            "wall_s": round(self.wall_s, 3),
            "price_usd": round(self.price_usd, 6),
            "unpriced_models": ";".join(sorted(self.unpriced)),
        }


def cost_by_config(
    entries: Iterable[CostedRun], prices: Prices, timings: Mapping[str, float] | None = None
) -> tuple[dict[str, CostTotals], CostTotals]:
    """Per-configuration totals of the runs that ran, and the study's (their sum);
    ``timings`` gives each run's wall time (``StudyDir.read_timings``)."""
    timings = timings or {}
    by_config: dict[str, CostTotals] = defaultdict(CostTotals)
    for entry in entries:
        if entry.usage is not None:
            by_config[entry.config_id].add(entry.usage, prices, timings.get(entry.run_id, 0.0))
    study = CostTotals()
    for totals in by_config.values():
        study.merge(totals)
    return dict(sorted(by_config.items())), study


@dataclass(frozen=True)
class PassHatK:
    """τ-bench's pass^k of one configuration's clean runs: for each task with n completed
    clean runs of which c solved it, C(c, k) / C(n, k), averaged over the tasks with
    n >= k (``tasks``)."""

    k: int
    value: float
    tasks: int


PASS_KS_SHOWN_WHOLE = 10
"""Up to this many repetitions every pass^k is printed; above it, a few (see :func:`shown_pass_k`)."""


def shown_pass_k(figures: list[PassHatK]) -> list[PassHatK]:
    """The pass^k figures a person reads: all of them up to :data:`PASS_KS_SHOWN_WHOLE`,
    else k = 1, 2, 3, 4, the powers of two and the largest k, so that a study of 861
    repetitions prints 12 figures, not 861 (``pass_k.csv`` keeps every k)."""
    if len(figures) <= PASS_KS_SHOWN_WHOLE:
        return figures
    most = figures[-1].k
    return [p for p in figures if p.k <= 4 or p.k & (p.k - 1) == 0 or p.k == most]


def pass_hat_k(entries: Iterable[CostedRun]) -> dict[str, list[PassHatK]]:
    """Clean-task pass^k per configuration, for k = 1 .. the most repetitions of a task.

    A missing clean run is no trial (a harness error is no outcome); a task is counted
    for k only when it has at least k completed clean runs.
    """
    trials: Trials = defaultdict(dict)
    for entry in entries:
        count_trial(trials, entry)
    return pass_figures(trials)


Trials = dict[str, dict[str, list[int]]]
"""Per configuration and task: [completed clean runs, of them solved] (pass^k needs no more)."""


def count_trial(trials: Trials, entry: CostedRun) -> None:
    """Count a completed clean run as a trial of its task (solved when its reward is 1)."""
    if entry.kind == "clean" and entry.status == "completed":
        task = entry.task or entry.case_id  # an older study: one clean run per case
        counts = trials.setdefault(entry.config_id, {}).setdefault(task, [0, 0])
        counts[0] += 1
        counts[1] += entry.reward == 1.0


def pass_figures(trials: Trials) -> dict[str, list[PassHatK]]:
    """pass^k of each configuration from its tasks' trial counts."""
    out: dict[str, list[PassHatK]] = {}
    for config_id, tasks in sorted(trials.items()):
        if not tasks:
            continue
        most = max(n for n, _ in tasks.values())
        figures = []
        for k in range(1, most + 1):
            ratios = [math.comb(c, k) / math.comb(n, k) for n, c in tasks.values() if n >= k]
            figures.append(PassHatK(k, sum(ratios) / len(ratios), len(ratios)))
        out[config_id] = figures
    return out


class CostTally:
    """The cost lines' sums, added to one run at a time: a study's summary costs the
    memory of its configurations and tasks, never of its runs."""

    def __init__(self, prices: Prices, local: Iterable[str] = ()):
        self.prices = prices
        self.local = frozenset(local)  # loopback models without a price: counted at $0
        self.by_config: dict[str, CostTotals] = defaultdict(CostTotals)
        self.trials: Trials = defaultdict(dict)

    def add(self, entry: IndexEntry, wall_s: float = 0.0) -> None:
        """Add one finished run (its wall time from ``timings.jsonl`` or as just run)."""
        if entry.usage is not None:
            self.by_config[entry.config_id].add(entry.usage, self.prices, wall_s)
        count_trial(self.trials, entry)

    def study(self) -> CostTotals:
        """The study's totals so far (the configurations' sum)."""
        study = CostTotals()
        for totals in self.by_config.values():
            study.merge(totals)
        return study

    def lines(self, model_called: bool = True) -> list[str]:
        """The console summary of the runs added: the study's cost and qualification figure,
        one line each; ``model_called`` False (no configuration calls a model) says so
        instead of 0 requests at an estimated $0."""
        return _lines(
            dict(sorted(self.by_config.items())),
            self.study(),
            pass_figures(self.trials),
            model_called,
            self.local,
        )


def read_prices(path: Path) -> dict[str, ModelPrice]:
    """The ``[prices]`` table of a study's stored ``config.toml`` (empty when absent);
    a bad entry names the file and the field."""
    if not path.exists():
        return {}
    raw = read_toml(path)
    table = raw.get("prices", {})
    if not isinstance(table, dict):
        raise DataError(path, "prices", "expected a table of model -> prices")
    prices = {}
    for model, value in table.items():
        try:
            prices[model] = ModelPrice.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise DataError(path, f"prices.{model}.{where}".rstrip("."), first["msg"]) from exc
    return prices


def calls_a_model(config: StudyConfig) -> bool:
    """True when some configuration's agent or the simulated user talks to a model endpoint
    (the roles ``sscbench plan`` bounds); scripted and replayed roles call none."""
    return config.user.kind == "llm" or any(a.endpoint is not None for a in config.agents)


def stored_local_free_models(path: Path) -> set[str]:
    """:func:`~sscbench.study.cost_words.local_free_models` of a study's stored
    ``config.toml`` (empty when it cannot be read)."""
    from sscbench.study.cost_words import local_free_models

    try:
        config, _ = load_config(path)
    except DataError:
        return set()
    return local_free_models(config)


def stored_config_calls_a_model(path: Path) -> bool:
    """:func:`calls_a_model` of a study's stored ``config.toml``; True when it cannot be read
    (the cost lines then show the counts, never claim that no model was called)."""
    try:
        config, _ = load_config(path)
    except DataError:
        return True
    return calls_a_model(config)


def _lines(
    by_config: dict[str, CostTotals],
    study: CostTotals,
    passes: dict[str, list[PassHatK]],
    model_called: bool,
    local: frozenset[str] = frozenset(),
) -> list[str]:
    words = study.words(local, model_called)
    if model_called:
        lines = [
            f"cost: {words}: {count(study.runs, 'run')} ran, {count(study.requests, 'model request')}, "
            f"{study.retries} retries ({study.rate_limited} answered 429), "
            f"{study.prompt_tokens} prompt + {study.completion_tokens} completion tokens, "
            f"{study.wall_s:.1f} s of run time"
        ]
    else:
        lines = [f"cost: {words}: {count(study.runs, 'run')} ran, {study.wall_s:.1f} s of run time"]
    for config_id, totals in by_config.items():
        figures = ", ".join(
            f"pass^{p.k} {p.value:.3f} ({_tasks(p.tasks)})"
            for p in shown_pass_k(passes.get(config_id, []))
        )
        spent = (
            f"{totals.requests} requests, "
            f"{totals.prompt_tokens + totals.completion_tokens} tokens, {totals.words(local)}"
            if model_called
            else "no model called"
        )
        lines.append(f"  {config_id}: {spent}; clean tasks {figures or 'none completed'}")
    return lines


def _tasks(tasks: int) -> str:
    """'1 task' / 'n tasks': pass^k's population, which shrinks as k passes a task's trials."""
    return count(tasks, "task")
