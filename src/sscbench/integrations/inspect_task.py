"""``sscbench/arrival``: SSCBench as an Inspect AI task (the ``inspect`` extra).

    inspect eval sscbench/arrival --model openai/gpt-4o -T operators=ReturnDate,WriteEffect

Samples are admitted cases. A sample's solver is sscbench's own pipeline for one
(case, repetition): the clean run, then — when the clean task was solved — the
faulted run, each by ``run_episode`` with the same injections at the one execution
point and the same simulated user as ``sscbench run``; the agent is Inspect's model
(``get_model()``). Inspect's epochs are the study's repetitions (epoch e is repetition
e − 1). The scorer is sscbench's measurement of the faulted run; the metrics are
adoption and arrival over sscbench's primary population (repetition 0: the epoch
reducer keeps each sample's first repetition). Every run also lands in the study
folder ``-T out=DIR``, which ``sscbench measure`` and ``sscbench report`` read unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.hooks import Hooks, TaskStart, hooks
from inspect_ai.model import ChatCompletionChoice, ModelOutput, get_model
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Target,
    Value,
    metric,
    score_reducer,
    scorer,
)
from inspect_ai.solver import Generate, TaskState, solver

from sscbench.errors import DataError
from sscbench.faults.operators import DEFAULT_OPERATORS
from sscbench.integrations.inspect_messages import ledger_to_messages
from sscbench.integrations.inspect_scores import measurement_score
from sscbench.integrations.inspect_study import StudyBinding, binding_for
from sscbench.integrations.populations import population_metrics
from sscbench.measure.study import measure_entries
from sscbench.run.builders import build_cases
from sscbench.study.config import StudyConfig, load_config
from sscbench.study.ledgers import read_ledger
from sscbench.study.rows import MeasurementRow
from sscbench.study.worlds import build_worlds

DEFAULT_OPERATOR_LIST = ",".join(DEFAULT_OPERATORS)
"""The default ``operators`` argument: the one default list (``faults.operators``)."""


def _names(value: str | list[str] | None) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def template_config(
    *,
    config: str | None,
    world: str,
    data: str | None,
    domains: str | list[str] | None,
    operators: str | list[str] | None,
    per_operator: int,
    cases: str | None,
    seed: int,
    world_seed: int,
    user: str,
    repetitions: int,
) -> StudyConfig:
    """The study configuration the task arguments name, with a placeholder agent.

    ``config`` is a study TOML whose world, cases, user and seeds are used as they are;
    otherwise the arguments build one. Bad arguments name the task argument at fault.
    """
    if config is not None:
        loaded, _ = load_config(config)
        return loaded
    data_table: dict[str, Any] = {
        "study": {"name": "inspect", "seed": seed, "repetitions": repetitions},
        "world": {"source": world, "seed": world_seed},
        "user": {"kind": user},
        "cases": {"per_operator": per_operator},
        "agents": [{"id": "placeholder", "profile": "trusting"}],
    }
    if data is not None:
        data_table["world"]["data"] = data
    if domains is not None:
        data_table["world"]["domains"] = _names(domains)
    if cases is not None:
        data_table["cases"]["file"] = cases
    else:
        data_table["cases"]["operators"] = _names(operators)
    try:
        return StudyConfig.model_validate(data_table)
    except Exception as exc:  # pydantic's message names the field
        raise DataError("<task args>", None, str(exc)) from exc


@task
def arrival(
    world: str = "generated",
    data: str | None = None,
    domains: str | None = None,
    operators: str = DEFAULT_OPERATOR_LIST,
    per_operator: int = 2,
    cases: str | None = None,
    seed: int = 0,
    world_seed: int = 0,
    user: str = "scripted",
    repetitions: int = 1,
    limit: int | None = None,
    config: str | None = None,
    out: str = "sscbench-inspect",
) -> Task:
    """SSCBench's arrival-aware fault injection, as an Inspect task.

    Args:
        world: ``generated`` (embedded) or ``tau-bench`` (packaged, or ``data``).
        data: τ-bench data folder or checkout (``world=tau-bench``; default: packaged).
        domains: comma-separated domains (default: airline,retail).
        operators: comma-separated fault operators whose admitted cases are the samples.
        per_operator: admitted cases per operator.
        cases: a ``cases.jsonl`` file instead of admission.
        seed: the study seed (injections, scripted user).
        world_seed: the generated world's seed.
        user: ``scripted`` (or ``llm`` via ``config``).
        repetitions: epochs when ``--epochs`` is not given.
        limit: keep the first N cases.
        config: a study TOML to take world, cases, user and seeds from.
        out: the study folder the runs are written to (resumed when it holds this study).
    """
    template = template_config(
        config=config,
        world=world,
        data=data,
        domains=domains,
        operators=operators,
        per_operator=per_operator,
        cases=cases,
        seed=seed,
        world_seed=world_seed,
        user=user,
        repetitions=repetitions,
    )
    worlds = build_worlds(template)
    admitted = build_cases(template, worlds)
    if limit is not None:
        admitted = admitted[:limit]
    if not admitted:
        raise DataError("<task args>", "operators", "no case was admitted; nothing to run")
    binding = StudyBinding(template, worlds, admitted, Path(out))
    samples = [
        Sample(
            id=case.case_id,
            input=f"{case.operator} on task {case.task_id} ({case.domain}); cluster {case.cluster}",
            metadata={
                "case_id": case.case_id,
                "operator": case.operator,
                "domain": case.domain,
                "task_id": case.task_id,
                "control": case.control,
            },
        )
        for case in admitted
    ]
    out_path = str(binding.store.root.resolve())
    return Task(
        dataset=MemoryDataset(samples, name="sscbench-cases"),
        solver=sscbench_episode(out_path),
        scorer=sscbench_measurement(out_path),
        epochs=Epochs(template.study.repetitions, reducer=first_repetition()),
    )


class RunMissing(RuntimeError):
    """A run of the sample did not finish (a harness error: the model failed, not the
    agent): the sample is an Inspect error, never a scored outcome. The run is recorded
    missing in the study folder, as ``sscbench run`` records it."""

    def __init__(self, run_id: str, reason: str | None):
        super().__init__(f"run {run_id} is missing: {reason or 'no reason recorded'}")


def _binding(out: str) -> StudyBinding:
    binding = binding_for(out)
    if binding is None:
        raise DataError(out, None, "no sscbench/arrival task writes this study in this process")
    return binding


@solver
def sscbench_episode(out: str):
    """Run the sample's case through sscbench's clean-then-faulted pipeline with Inspect's
    model as the agent; the sample's messages become the model-visible ledger."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        binding = _binding(out)
        model = get_model()
        runner = await binding.prepare(model)
        unit = binding.unit(str(state.sample_id), state.epoch)
        async with binding.writing():
            await runner.run_unit(unit)
        line = unit.plan_line()
        clean = runner.finished[line["clean_run_id"]]
        faulted = runner.finished[line["faulted_run_id"]]
        for entry in (clean, faulted):
            if entry.status == "missing":
                raise RunMissing(entry.run_id, entry.reason)
        shown = faulted if faulted.ledger_sha256 is not None else clean
        ledger = read_ledger(binding.store, shown.run_id) if shown.ledger_sha256 else []
        state.messages = ledger_to_messages(ledger, shown.run_id)
        last = next((m for m in reversed(state.messages) if m.role == "assistant"), None)
        if last is not None:
            state.output = ModelOutput(
                model=str(model), choices=[ChatCompletionChoice(message=last)]
            )
        state.metadata["sscbench"] = {
            "study": str(binding.store.root),
            "shown_run_id": shown.run_id,
            "clean": clean.model_dump(mode="json"),
            "faulted": faulted.model_dump(mode="json"),
        }
        state.completed = True
        return state

    return solve


def _rows(scores: list[SampleScore] | list[Score]) -> list[MeasurementRow]:
    """The measurement rows behind the (reduced) scores Inspect hands a metric (a score's
    metadata is its row's columns)."""
    found = [s.score if isinstance(s, SampleScore) else s for s in scores]
    return [MeasurementRow.model_validate(score.metadata) for score in found if score.metadata]


def _population_metric(name: str) -> Metric:
    """The metric ``name`` of :func:`population_metrics` over the scored samples."""

    def compute(scores: list[SampleScore]) -> Value:
        return population_metrics(_rows(scores))[name]

    return compute


@metric
def adoption_triggered() -> Metric:
    """A_T: adoption over triggered faulted runs (propagation)."""
    return _population_metric("adoption_triggered")


@metric
def adoption_P() -> Metric:
    """A_P: adoption over P (triggered, decidable first dependent use)."""
    return _population_metric("adoption_P")


@metric
def adoption_pre() -> Metric:
    """a_pre: adoption under pre-use counterevidence."""
    return _population_metric("adoption_pre")


@metric
def adoption_late() -> Metric:
    """a_late: adoption when counterevidence arrived after the first use."""
    return _population_metric("adoption_late")


@metric
def adoption_absent() -> Metric:
    """a_absent: adoption when counterevidence never arrived."""
    return _population_metric("adoption_absent")


@metric
def arrival_pre() -> Metric:
    """Share of P with a decidable stratum whose counterevidence came before first use."""
    return _population_metric("arrival_pre")


@metric
def arrival_late() -> Metric:
    """Share of P with a decidable stratum whose counterevidence came after first use."""
    return _population_metric("arrival_late")


@metric
def arrival_absent() -> Metric:
    """Share of P with a decidable stratum whose counterevidence never came."""
    return _population_metric("arrival_absent")


@scorer(
    metrics=[
        adoption_triggered(),
        adoption_P(),
        adoption_pre(),
        adoption_late(),
        adoption_absent(),
        arrival_pre(),
        arrival_late(),
        arrival_absent(),
    ],
    name="sscbench",
)
def sscbench_measurement(out: str):
    """sscbench's measurement of the sample's faulted run (read from the study folder:
    the model-visible ledger and the case contract), as ``sscbench measure`` computes it."""

    async def score(state: TaskState, target: Target) -> Score:
        binding = _binding(out)
        record = state.metadata["sscbench"]
        faulted = binding.runner.finished[record["faulted"]["run_id"]]  # type: ignore[union-attr]
        row = next(measure_entries(binding.store, binding.cases, None, [faulted]))
        return measurement_score(row)

    return score


@score_reducer(name="first_repetition")
def first_repetition():
    """Keep each sample's repetition-0 score: sscbench's primary population is the
    faulted runs of repetition 0 (later repetitions stay in the study folder)."""

    def reduce(scores: list[Score]) -> Score:
        for candidate in scores:
            if (candidate.metadata or {}).get("repetition") == 0:
                return candidate
        return scores[0]

    return reduce


@hooks(name="sscbench_epochs", description="Maps Inspect's epochs to sscbench repetitions.")
class EpochsHook(Hooks):
    """Tells an ``sscbench/arrival`` task how many epochs the eval runs (``--epochs``
    may override the task's own), before its first sample sets the study up."""

    async def on_task_start(self, data: TaskStart) -> None:
        """Record the eval's epochs on the binding of the task's study folder."""
        out = (data.spec.task_args or {}).get("out")
        if out is None or not str(data.spec.task).endswith("arrival"):
            return
        binding = binding_for(out)
        if binding is not None and binding.runner is None:
            binding.epochs = data.spec.config.epochs
