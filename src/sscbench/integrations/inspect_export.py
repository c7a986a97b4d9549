"""``sscbench export inspect``: a study as an Inspect eval log (the ``inspect`` extra).

One sample per run (id = run id, epoch = repetition + 1): the model-visible ledger
as the sample's messages, in order; the evaluator-only log (interventions, writes,
calibration labels, harness errors, ...) as ``info`` events and under the sample's
metadata key ``evaluator`` — never in the messages; sscbench's measurement as the
sample's score. A missing run (harness error) is a sample with an error and no score.
The log's results hold adoption and arrival over sscbench's primary population.
An ``.eval`` log is written sample by sample while the runs stream from the study
(:mod:`inspect_log_file`, Inspect's own recorder), so memory does not grow with the
runs; a ``.json`` log goes through ``inspect_ai.log.write_eval_log`` whole.
``read_eval_log`` reads either back.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sscbench.analysis.populations import primary_rows
from sscbench.core.files import atomic_path, clean_stale
from sscbench.core.ledger import AssistantEvent, HarnessError
from sscbench.errors import DataError, naming
from sscbench.integrations.inspect_log_file import LogEnding, write_eval_file
from sscbench.integrations.populations import METRIC_NAMES, population_metrics
from sscbench.integrations.study_runs import StudyRun, study_runs
from sscbench.json_types import JsonObject
from sscbench.jsonl import visible_surrogates
from sscbench.reading import read_json
from sscbench.study.folder import StudyDir
from sscbench.study.rows import MeasurementRow

TASK_NAME = "sscbench/arrival"
SCORER_NAME = "sscbench_measurement"


def _uuid(*parts: str) -> str:
    """A stable UUID from the parts (so an export of the same study is the same log)."""
    return str(uuid.UUID(bytes=hashlib.sha256("\x1f".join(parts).encode()).digest()[:16]))


def study_created(store: StudyDir) -> datetime:
    """When the study started: its marker's modification time (seconds, UTC)."""
    return datetime.fromtimestamp(int(store.marker.stat().st_mtime), UTC)


def _record(event: Any) -> JsonObject:
    """An evaluator record as JSON data Inspect can write (lone surrogates made visible)."""
    return visible_surrogates(event.model_dump(mode="json"))


def run_sample(run: StudyRun, when: datetime) -> Any:
    """One run as an ``EvalSample``."""
    from inspect_ai.event import InfoEvent
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ChatCompletionChoice, ModelOutput

    from sscbench.integrations.inspect_messages import ledger_to_messages
    from sscbench.integrations.inspect_scores import SCORE_NAME, measurement_score

    entry = run.entry
    messages = ledger_to_messages(run.ledger, entry.run_id)
    first_assistant = next(
        (i for i, e in enumerate(run.ledger) if isinstance(e, AssistantEvent)), len(messages)
    )
    evaluator = [_record(e) for e in run.evaluator]
    events = [
        InfoEvent(
            source=f"sscbench/evaluator/{record.get('type')}",
            data=record,
            timestamp=when,
            uuid=_uuid(entry.run_id, "evaluator", str(i)),
        )
        for i, record in enumerate(evaluator)
    ]
    last = next((m for m in reversed(messages) if m.role == "assistant"), None)
    output = (
        ModelOutput(model=entry.config_id, choices=[ChatCompletionChoice(message=last)])
        if last is not None
        else ModelOutput(model=entry.config_id)
    )
    metadata = {
        "case_id": entry.case_id,
        "config_id": entry.config_id,
        "repetition": entry.repetition,
        "kind": entry.kind,
        "status": entry.status,
        "operator": run.case.operator if run.case else None,
        "reward": entry.reward,
        "termination": entry.termination,
        "reason": entry.reason,
        "evaluator": evaluator,
    }
    error = None
    if entry.status == "missing":
        errors = [e for e in run.evaluator if isinstance(e, HarnessError)]
        message = errors[0].reason() if errors else (entry.reason or "missing run")
        error = EvalError(message=f"missing run: {message}", traceback="", traceback_ansi="")
    scores = None if error is not None else {SCORE_NAME: measurement_score(run.measurement)}
    return EvalSample(
        id=entry.run_id,
        epoch=entry.repetition + 1,
        input=messages[:first_assistant] or "",
        target="",
        messages=messages,
        output=output,
        scores=scores,
        metadata=metadata,
        events=events,
        uuid=_uuid(entry.run_id),
        error=error,
    )


class _Tally:
    """What the log's results need, gathered while the samples stream past: counts and
    the primary population's rows (repetition 0 of the faulted runs, the only rows
    :func:`population_metrics` reads; their number does not grow with repetitions)."""

    def __init__(self) -> None:
        self.samples = 0
        self.completed = 0
        self.scored = 0
        self.primary: list[MeasurementRow] = []

    def add(self, run: StudyRun, sample: Any) -> None:
        """Count one run's sample."""
        self.samples += 1
        self.completed += sample.error is None
        if run.entry.status != "missing":
            self.scored += 1
            self.primary.extend(primary_rows([run.measurement]))


def _spec(store: StudyDir, config: dict[str, Any], total: int, configs: list[str]) -> Any:
    """The log's ``EvalSpec``: stable ids from the study's folder and config hash."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalSpec

    created = study_created(store)
    study = config.get("config", {}).get("study", {})
    return EvalSpec(
        eval_id=_uuid(str(store.root.resolve()), "eval"),
        run_id=_uuid(config.get("config_hash", ""), "run"),
        created=created.isoformat(),
        task=TASK_NAME,
        task_id=config.get("config_hash", "")[:22],
        task_args={"study": str(store.root)},
        dataset=EvalDataset(
            name=study.get("name", "study"), location=str(store.cases), samples=total
        ),
        model=f"sscbench/{configs[0]}" if len(configs) == 1 else "sscbench/multiple",
        config=EvalConfig(epochs=most_repetitions(config.get("config", {}))),
        metadata={"sscbench_config_hash": config.get("config_hash"), "config_ids": configs},
    )


def _ending(store: StudyDir, tally: _Tally) -> LogEnding:
    """The header's status, stats and results once every sample has been tallied."""
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore, EvalStats

    from sscbench.integrations.inspect_scores import SCORE_NAME

    created = study_created(store).isoformat()
    metrics = population_metrics(tally.primary)
    results = EvalResults(
        total_samples=tally.samples,
        completed_samples=tally.completed,
        scores=[
            EvalScore(
                name=SCORE_NAME,
                scorer=SCORER_NAME,
                scored_samples=tally.scored,
                unscored_samples=tally.samples - tally.scored,
                metrics={name: EvalMetric(name=name, value=metrics[name]) for name in METRIC_NAMES},
            )
        ],
    )
    return LogEnding("success", EvalStats(started_at=created, completed_at=created), results)


def _samples(store: StudyDir, runs: Iterator[StudyRun], tally: _Tally) -> Iterator[Any]:
    """Each run's sample, in index order, tallied as it is made."""
    created = study_created(store)
    for i, run in enumerate(runs):
        sample = run_sample(run, created + timedelta(seconds=i))
        tally.add(run, sample)
        yield sample


def _index_configs(store: StudyDir) -> tuple[int, list[str]]:
    """The number of runs in the index and their configuration ids (one streamed pass:
    the spec, written first, names them)."""
    total, configs = 0, set()
    for entry in store.read_index():
        total += 1
        configs.add(entry.config_id)
    return total, sorted(configs)


def export_inspect(root: str | Path, out: str | Path) -> tuple[Path, int]:
    """Write the study at ``root`` as an Inspect log at ``out`` (``.eval`` or ``.json``);
    returns the path and the number of samples. An ``.eval`` log is written sample by
    sample as the runs are read (memory does not grow with the study); a ``.json`` log
    is one JSON document, built whole in memory by Inspect's writer."""
    out = Path(out)
    if out.suffix not in (".eval", ".json"):
        raise DataError(out, None, "the log file must end in .eval or .json")
    if out.is_dir():
        raise DataError(out, None, "--out must name a file, and this is a folder")
    with study_runs(root) as (store, runs):  # verified first: a bad study writes nothing
        with naming(out.parent):
            out.parent.mkdir(parents=True, exist_ok=True)
        clean_stale(out)
        total, configs = _index_configs(store)
        spec = _spec(store, read_json(store.config_json), total, configs)
        tally = _Tally()
        samples = _samples(store, runs, tally)
        with atomic_path(out) as tmp:  # a full disk leaves the previous log, never half of one
            if out.suffix == ".eval":
                count = write_eval_file(tmp, spec, samples, lambda: _ending(store, tally))
            else:
                count = _write_json(tmp, spec, list(samples), _ending(store, tally))
    return out, count


def _write_json(path: Path, spec: Any, samples: list[Any], end: LogEnding) -> int:
    """A ``.json`` log: the whole ``EvalLog`` through ``write_eval_log``."""
    from inspect_ai.log import EvalLog, write_eval_log

    log = EvalLog(
        eval=spec, status=end.status, samples=samples, results=end.results, stats=end.stats
    )
    write_eval_log(log, str(path), format="json")
    return len(samples)


def most_repetitions(config: dict[str, Any]) -> int:
    """Inspect's epochs for a recorded study config: the most repetitions any of its
    configurations runs (an agent's own ``repetitions``, else the study's)."""
    study = int(config.get("study", {}).get("repetitions", 1))
    counts = [a.get("repetitions") or study for a in config.get("agents", [])]
    return max(counts, default=study)
