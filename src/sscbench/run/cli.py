"""``sscbench run``: execute a study, resuming an interrupted one, then hand it on.

The command is built by :func:`run_command` with the step that follows the runs
(measure and report, which live in higher layers) and, optionally, the factory of a
per-run callback (live OTel traces): the top-level ``sscbench/cli.py``
passes :func:`sscbench.report.cli.measure_and_report`, so this module imports nothing
above ``run``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import shlex
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from sscbench.cli_options import console, fail
from sscbench.core.files import atomic_write
from sscbench.errors import DataError, os_error_text
from sscbench.json_types import JsonObject
from sscbench.progress import suppressed
from sscbench.run.cli_executor import ExecutorName, RayAddress, Workers, check_executor
from sscbench.run.cli_model import (
    BaseUrl,
    KeepAgents,
    Models,
    OperatorNames,
    Preflight,
    Repetitions,
    RetryMissing,
    Temperature,
    UserModel,
    WorldChoice,
    model_args,
    model_options,
)
from sscbench.run.hooks import (
    AfterRuns,
    CampaignCheck,
    CampaignWatch,
    ConfigCheck,
    LiveRuns,
    RunHooks,
    RunWatch,
    abort_watch,
    containment_record,
)
from sscbench.study.model_flags import ModelOptions
from sscbench.terminal import count, error_text, plain

if TYPE_CHECKING:  # named in annotations only: the command imports them when it runs
    from sscbench.run.executor import StudySummary
    from sscbench.study.config import StudyConfig


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _interrupted(
    config: Path | None, out: Path, detail: str, extra: list[str] | None = None
) -> NoReturn:
    """Say how to resume an interrupted study and exit 130 (the shell's code for SIGINT)."""
    command = ["sscbench", "run", *([str(config)] if config else []), *(extra or [])]
    command += ["--out", str(out)]
    console.print(error_text(detail, label="interrupted:"), highlight=False, soft_wrap=True)
    console.print(
        plain(f"the runs written so far are kept; resume with: {shlex.join(command)}"),
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    raise typer.Exit(130)


def _record(
    out: Path, record: JsonObject, watch: RunWatch | None, previous: JsonObject | None
) -> None:
    """Write ``STUDY/containment.json``: the check, the abort when the metric crossed,
    and the abort a resumed campaign had been stopped by."""
    record = record | {"abort_enforced": watch is not None}
    if watch is not None and watch.abort is not None:
        record["abort"] = watch.abort
    if previous is not None:
        record["resumed_after_abort"] = previous
    atomic_write(out / "containment.json", json.dumps(record, indent=2))


def _say(line: str) -> None:
    console.print(plain(line), markup=False, highlight=False, soft_wrap=True)


ConfigArgument = Annotated[
    Path | None, typer.Argument(help="study config (TOML); default: the embedded study")
]
StudyOut = Annotated[Path, typer.Option("--out", help="study directory")]
Restart = Annotated[bool, typer.Option(help="delete an existing study in --out and start anew")]
ShowProgress = Annotated[bool, typer.Option(help="show a progress bar")]
WriteReport = Annotated[bool, typer.Option(help="measure the runs and write the report afterwards")]
ContainmentPolicy = Annotated[
    Path | None,
    typer.Option(
        "--containment",
        help="release policy whose \\[containment] plan the campaign must fit; checked "
        "before any run starts (a policy without a plan is refused); its abort metric is "
        "enforced as the runs finish",
    ),
]
ResumeAborted = Annotated[
    bool,
    typer.Option(
        "--resume-aborted",
        help="resume a campaign its containment abort metric stopped (refused otherwise)",
    ),
]


MaxCost = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        metavar="USD",
        help="stop starting runs once the spend could cross USD (default: \\[study] "
        "max_cost_usd); finished runs are kept, exit 3, the same command with a higher "
        "bound continues; refused when a called model has no \\[prices] entry",
    ),
]


@dataclass(frozen=True)
class RunOptions:
    """The arguments and options of one ``sscbench run`` invocation."""

    config: Path | None
    out: Path
    restart: bool
    progress: bool
    report: bool
    executor: str | None
    address: str | None
    containment: Path | None
    resume_aborted: bool
    models: ModelOptions = field(default_factory=ModelOptions)
    retry_missing: bool = False
    preflight: bool = True
    max_cost: float | None = None
    workers: int | None = None


@dataclass
class _Executed:
    """What executing the study left for the summary: the config, the runs' summary, the
    containment record (None without ``--containment``), the abort watch and the abort an
    earlier campaign in the folder had been stopped by."""

    study: StudyConfig
    summary: StudySummary
    record: JsonObject | None
    watch: RunWatch | None
    earlier: JsonObject | None


def _start_and_execute(hooks: RunHooks, options: RunOptions) -> _Executed:
    """Load and check the config, refuse what the containment plan refuses, and execute the
    study; the checks run before any run starts."""
    from sscbench.run.cost_cap import cap_line, cost_bound
    from sscbench.run.executor import execute_study
    from sscbench.run.preflight import check_study_endpoints, user_line
    from sscbench.study.aborted import recorded_abort
    from sscbench.study.config import load_config

    config, out = options.config, options.out
    study, text = load_config(config, options.models)
    if hooks.check_config is not None:
        hooks.check_config(study, config if config is not None else "<default study>")
    record = containment_record(hooks.check_campaign, study, options.containment)
    earlier = None if options.restart else recorded_abort(out)
    resume = options.restart or options.resume_aborted
    watch = abort_watch(hooks.watch_campaign, options.containment, out, resume)
    check_executor(options.executor)
    if options.models.given() or any(a.kind == "openai" for a in study.agents):
        _say(user_line(study))
    bound = cost_bound(study, options.max_cost)  # an uncheckable cap creates nothing
    if options.preflight:  # before anything is created: a refused key creates no study
        check_study_endpoints(study, _say)
    if bound is not None:
        _say(cap_line(study, bound))
    live = hooks.on_run(study, out) if hooks.on_run is not None else None
    with contextlib.nullcontext() if options.progress else suppressed():
        summary = execute_study(
            study,
            text,
            out,
            restart=options.restart,
            progress=options.progress,
            on_run=live,
            executor=options.executor,
            address=options.address,
            stop_when=watch,
            retry_missing=options.retry_missing,
            max_cost=bound,
            workers=options.workers,
        )
    return _Executed(study, summary, record, watch, earlier)


def _execute(hooks: RunHooks, options: RunOptions) -> _Executed:
    """:func:`_start_and_execute` with SIGTERM stopping like Ctrl-C, and each failure turned
    into its one-line message and exit code (2 for bad input, 130 when interrupted)."""
    from sscbench.run.executor import StudyInterrupted

    config, out = options.config, options.out
    extra = model_args(options.models)
    main = threading.current_thread() is threading.main_thread()
    # SIGTERM stops like Ctrl-C (signal handlers can only be set in the main thread)
    previous = signal.signal(signal.SIGTERM, _interrupt) if main else None
    try:
        return _start_and_execute(hooks, options)
    except DataError as exc:
        fail(exc)
    except OSError as exc:  # no space left, a too-long --out: one line naming the file
        hint = "; finished runs are kept: free space and run the same command again"
        fail(Exception(os_error_text(exc) + (hint if exc.errno == errno.ENOSPC else "")))
    except StudyInterrupted as stop:
        partial = stop.summary
        _interrupted(
            config,
            out,
            f"{stop}: {partial.finished_runs}/{partial.planned_runs} runs finished "
            f"({partial.executed_now} now); runs in flight that call a model keep their "
            "answers (runs/journal-*.book.jsonl) and continue from them, the others run again",
            extra,
        )
    except KeyboardInterrupt:
        _interrupted(config, out, "stopped before the runs started", extra)
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


def _summary_lines(summary: StudySummary) -> list[str]:
    """The lines that tell what the runs did: a taken-over lock, the counts by status,
    the runs continued from their journals, and the cost."""
    lines = []
    if summary.took_over:
        lines.append(f"took over the stale lock of {summary.took_over} (no longer running)")
    statuses = summary.statuses
    verb = "resumed" if summary.resumed else "ran"
    rerun = (
        f"; {count(summary.rerun, 'run')} whose files failed the check ran again"
        if summary.rerun
        else ""
    )
    if summary.requeued:
        rerun += (
            f"; {count(summary.requeued, 'run')} re-run from scratch after their worker was lost"
        )
    if summary.retried:
        rerun += f"; {count(summary.retried, 'missing run')} taken up again (--retry-missing)"
    lines.append(
        f"{verb} study in {summary.out}: {summary.finished_runs}/{summary.planned_runs} "
        f"runs finished ({summary.executed_now} now): {statuses['completed']} completed, "
        f"{statuses['not-qualified']} not qualified, {statuses['missing']} missing{rerun}"
    )
    if continued := summary.journals["runs"]:
        runs, reused = "run" if continued == 1 else "runs", summary.journals["responses"]
        lines.append(
            f"continued {continued} {runs} in flight from their journals: "
            f"{reused} model answer{'s' * (reused != 1)} reused, not asked again"
        )
    lines.extend(summary.cost_lines)
    lines.extend(summary.caps)
    return lines


def _missing_lines(options: RunOptions) -> tuple[list[str], str | None]:
    """Why runs are missing (one line, None when none is) and, when every run of the
    study is missing, the cause (the command then exits 1)."""
    from sscbench.study.folder import StudyDir
    from sscbench.study.missing import all_missing_cause, missing_line

    store = StudyDir(options.out)
    entries = list(store.read_index()) if store.index.exists() else []
    config = [str(options.config)] if options.config else []
    command = ["sscbench", "run", *config, *model_args(options.models)]
    command += ["--out", str(options.out), "--retry-missing"]
    line = missing_line(entries, shlex.join(command))
    return ([line] if line else []), all_missing_cause(entries)


def run_study(hooks: RunHooks, options: RunOptions) -> None:
    """What ``sscbench run`` does: execute the study, record the containment check, say
    what the runs did, then measure and report; exit 1 when the abort metric stopped it."""
    from sscbench.study.aborted import abort_lines

    done = _execute(hooks, options)
    summary, watch = done.summary, done.watch
    if done.record is not None:
        _record(options.out, done.record, watch, done.earlier)
    for line in _summary_lines(summary):
        _say(line)
    missing, everything = _missing_lines(options) if summary.statuses["missing"] else ([], None)
    for line in missing:
        _say(line)
    if everything is not None:  # nothing to measure: the harness lost every run
        console.print(
            error_text(f"every run of the study is missing: {everything}"),
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(1)
    aborted = watch.abort if watch is not None else None
    for line in (
        abort_lines(aborted, summary.finished_runs, summary.planned_runs) if aborted else []
    ):
        _say(line)
    if summary.capped:
        _say(_capped_line(summary, options))
    if options.report:
        with contextlib.nullcontext() if options.progress else suppressed():
            hooks.after_runs(options.out, done.study)
    if aborted:
        raise typer.Exit(1)
    if summary.capped:
        from sscbench.run.cost_cap import CAPPED_EXIT

        raise typer.Exit(CAPPED_EXIT)


def _capped_line(summary: StudySummary, options: RunOptions) -> str:
    """The one line of a study its cost cap stopped: what it spent, what is kept, and
    the command that continues it."""
    config = [str(options.config)] if options.config else []
    command = ["sscbench", "run", *config, *model_args(options.models)]
    command += ["--out", str(options.out), "--max-cost", "USD"]
    return (
        f"stopped at the cost cap: ${summary.spent_usd:.4f} spent of ${summary.max_cost:.2f}; "
        f"the next runs could cross it; {summary.finished_runs}/{summary.planned_runs} runs "
        f"finished and kept; continue with a higher bound: {shlex.join(command)}"
    )


def run_command(
    after_runs: AfterRuns,
    on_run: LiveRuns | None = None,
    check_campaign: CampaignCheck | None = None,
    check_config: ConfigCheck | None = None,
    watch_campaign: CampaignWatch | None = None,
) -> Callable[..., None]:
    """The ``run`` command, calling ``after_runs(out, config)`` when ``--report`` is on
    (``config`` the study config: its ``[oracles]`` are scored there); ``check_config(config,
    path)`` (the oracles layer's check of ``[oracles]``) refuses, raising DataError, a config
    that could not be carried through before any run; ``on_run``
    (from a higher layer, e.g. the live OTel traces) makes the per-run callback for a
    study config, or None; ``check_campaign(config, policy)`` (the release layer's
    containment check) refuses a campaign with ``--containment POLICY`` before any run,
    raising DataError, or returns the record written to ``STUDY/containment.json``;
    ``watch_campaign(policy, out)`` (the release layer's abort watch) is asked after each
    run whether the plan's abort metric crossed, which stops the campaign. Their shapes
    are the Protocols of :mod:`sscbench.run.hooks`."""
    hooks = RunHooks(after_runs, on_run, check_campaign, check_config, watch_campaign)

    def run(
        config: ConfigArgument = None,
        out: StudyOut = Path("sscbench-out"),
        restart: Restart = False,
        progress: ShowProgress = True,
        report: WriteReport = True,
        executor: ExecutorName = None,
        address: RayAddress = None,
        containment: ContainmentPolicy = None,
        resume_aborted: ResumeAborted = False,
        model: Models = None,
        base_url: BaseUrl = None,
        user_model: UserModel = None,
        operators: OperatorNames = None,
        world: WorldChoice = None,
        repetitions: Repetitions = None,
        temperature: Temperature = None,
        keep_agents: KeepAgents = False,
        retry_missing: RetryMissing = False,
        preflight: Preflight = True,
        max_cost: MaxCost = None,
        workers: Workers = None,
    ) -> None:
        """Execute a study (clean then faulted runs), resuming an interrupted one; then measure
        every run and write the report (STUDY/report/: report.html, tables, figures, runs).
        ``--model PROVIDER/NAME`` evaluates a model on the study (default: the embedded one)."""
        models = model_options(
            model, base_url, user_model, operators, world, repetitions, temperature, keep_agents
        )
        options = RunOptions(
            config,
            out,
            restart,
            progress,
            report,
            executor,
            address,
            containment,
            resume_aborted,
            models,
            retry_missing,
            preflight,
            max_cost,
            workers,
        )
        run_study(hooks, options)

    return run


__all__ = ["run_command"]
