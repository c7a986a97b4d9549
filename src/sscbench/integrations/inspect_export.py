"""``sscbench export inspect``: a study as an Inspect eval log (the ``inspect`` extra).

One sample per run (id = run id, epoch = repetition + 1): the model-visible ledger
as the sample's messages, in order; the evaluator-only log (interventions, writes,
calibration labels, harness errors, ...) as ``info`` events and under the sample's
metadata key ``evaluator`` — never in the messages; sscbench's measurement as the
sample's score. A missing run (harness error) is a sample with an error and no score.
The log's results hold adoption and arrival over sscbench's primary population.
Written with ``inspect_ai.log.write_eval_log``; ``read_eval_log`` reads it back.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from sscbench.core.files import atomic_path, clean_stale
from sscbench.core.ledger import AssistantEvent, HarnessError
from sscbench.errors import DataError, naming
from sscbench.integrations.populations import METRIC_NAMES, population_metrics
from sscbench.integrations.study_runs import StudyRun, read_study_runs
from sscbench.json_types import JsonObject
from sscbench.jsonl import visible_surrogates

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample
from sscbench.reading import read_json
from sscbench.study.folder import StudyDir

TASK_NAME = "sscbench/arrival"
SCORER_NAME = "sscbench_measurement"


def _uuid(*parts: str) -> str:
    """A stable UUID from the parts (so an export of the same study is the same log)."""
    return str(uuid.UUID(bytes=hashlib.sha256("\x1f".join(parts).encode()).digest()[:16]))


def study_created(store: StudyDir) -> datetime:
    """When the study started: its marker's modification time (seconds, UTC)."""
    return datetime.fromtimestamp(int(store.marker.stat().st_mtime), UTC)


def _record(event: BaseModel) -> JsonObject:
    """An evaluator record as JSON data Inspect can write (lone surrogates made visible)."""
    return visible_surrogates(event.model_dump(mode="json"))


def run_sample(run: StudyRun, when: datetime) -> EvalSample:
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


def study_eval_log(root: str | Path) -> EvalLog:
    """The study at ``root`` as an ``EvalLog`` (samples, spec, results)."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalResults,
        EvalScore,
        EvalSpec,
        EvalStats,
    )

    from sscbench.integrations.inspect_scores import SCORE_NAME

    store, runs = read_study_runs(root)
    config = read_json(store.config_json)
    created = study_created(store)
    samples = [run_sample(run, created + timedelta(seconds=i)) for i, run in enumerate(runs)]
    configs = sorted({run.entry.config_id for run in runs})
    rows = [run.measurement for run in runs if run.entry.status != "missing"]
    metrics = population_metrics(rows)
    study = config.get("config", {}).get("study", {})
    spec = EvalSpec(
        eval_id=_uuid(str(store.root.resolve()), "eval"),
        run_id=_uuid(config.get("config_hash", ""), "run"),
        created=created.isoformat(),
        task=TASK_NAME,
        task_id=config.get("config_hash", "")[:22],
        task_args={"study": str(store.root)},
        dataset=EvalDataset(
            name=study.get("name", "study"), location=str(store.cases), samples=len(samples)
        ),
        model=f"sscbench/{configs[0]}" if len(configs) == 1 else "sscbench/multiple",
        config=EvalConfig(epochs=most_repetitions(config.get("config", {}))),
        metadata={"sscbench_config_hash": config.get("config_hash"), "config_ids": configs},
    )
    results = EvalResults(
        total_samples=len(samples),
        completed_samples=sum(1 for s in samples if s.error is None),
        scores=[
            EvalScore(
                name=SCORE_NAME,
                scorer=SCORER_NAME,
                scored_samples=len(rows),
                unscored_samples=len(samples) - len(rows),
                metrics={name: EvalMetric(name=name, value=metrics[name]) for name in METRIC_NAMES},
            )
        ],
    )
    return EvalLog(
        eval=spec,
        status="success",
        samples=samples,
        results=results,
        stats=EvalStats(started_at=created.isoformat(), completed_at=created.isoformat()),
    )


def export_inspect(root: str | Path, out: str | Path) -> tuple[Path, int]:
    """Write the study at ``root`` as an Inspect log at ``out`` (``.eval`` or ``.json``);
    returns the path and the number of samples."""
    from inspect_ai.log import write_eval_log

    out = Path(out)
    if out.suffix not in (".eval", ".json"):
        raise DataError(out, None, "the log file must end in .eval or .json")
    if out.is_dir():
        raise DataError(out, None, "--out must name a file, and this is a folder")
    log = study_eval_log(root)
    with naming(out.parent):
        out.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(out)
    with atomic_path(out) as tmp:  # a full disk leaves the previous log, never half of one
        write_eval_log(log, str(tmp), format="eval" if out.suffix == ".eval" else "json")
    return out, len(log.samples or [])


def most_repetitions(config: dict[str, Any]) -> int:
    """Inspect's epochs for a recorded study config: the most repetitions any of its
    configurations runs (an agent's own ``repetitions``, else the study's)."""
    study = int(config.get("study", {}).get("repetitions", 1))
    counts = [a.get("repetitions") or study for a in config.get("agents", [])]
    return max(counts, default=study)
