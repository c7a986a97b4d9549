"""The ``sscbench`` command line."""

from __future__ import annotations

import json
import shlex
import signal
import threading
from pathlib import Path

import typer
from rich.console import Console

from sscbench.errors import DataError
from sscbench.run.plan_command import plan_command
from sscbench.terminal import error_text, plain, print_error

app = typer.Typer(
    help="Arrival-aware fault-injection evaluation of tool-using agents.",
    no_args_is_help=True,
    add_completion=False,
)
world_app = typer.Typer(help="Inspect worlds.", no_args_is_help=True)
app.add_typer(world_app, name="world")


def _mount_lab() -> None:
    from sscbench.lab.cli import lab_app

    app.add_typer(lab_app, name="lab", help="Laboratories on the typed fault framework.")


_mount_lab()


def _mount_release() -> None:
    from sscbench.release.cli import gate_command, release

    app.command("release")(release)
    app.command("gate")(gate_command)


_mount_release()


def _mount_local() -> None:
    from sscbench.local.cli import serve_local

    app.command("serve-local")(serve_local)


_mount_local()


def _mount_review() -> None:
    from sscbench.review.cli import agreement_command, review_app

    app.add_typer(review_app, name="review", help="Review runs by hand.")
    app.command("agreement")(agreement_command)


_mount_review()
console = Console()


def _fail(exc: Exception) -> None:
    print_error(console, exc)
    raise typer.Exit(2)


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _interrupted(config: Path | None, out: Path, detail: str) -> None:
    """Say how to resume an interrupted study and exit 130 (the shell's code for SIGINT)."""
    command = ["sscbench", "run", *([str(config)] if config else []), "--out", str(out)]
    console.print(error_text(detail, label="interrupted:"), highlight=False, soft_wrap=True)
    console.print(
        plain(f"the runs written so far are kept; resume with: {shlex.join(command)}"),
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    raise typer.Exit(130)


@world_app.command("describe")
def world_describe(
    world: str = typer.Argument(
        "generated", help="generated | tau-bench, optionally /airline or /retail"
    ),
    data: Path | None = typer.Option(None, help="τ-bench data folder or checkout"),
    seed: int = typer.Option(0, help="seed of the generated world"),
) -> None:
    """Print the number of records and tasks of a world."""
    from sscbench.world.load import load_world, parse_world_name

    source, domains = parse_world_name(world)
    try:
        for domain in domains:
            loaded = load_world(source, domain, data, seed)
            counts = loaded.counts()
            tasks = counts.pop("tasks")
            records = ", ".join(f"{count} {name}" for name, count in counts.items())
            print(f"{loaded.name}: {records}; {tasks} tasks; {len(loaded.tools.specs)} tools")
    except DataError as exc:
        _fail(exc)


@world_app.command("check")
def world_check(
    world: str = typer.Argument(
        "generated", help="generated | tau-bench, optionally /airline or /retail"
    ),
    data: Path | None = typer.Option(None, help="τ-bench data folder or checkout"),
    seed: int = typer.Option(0, help="seed of the generated world"),
) -> None:
    """Suite self-check: every task's ground truth must earn reward 1."""
    from sscbench.world.load import load_world, parse_world_name
    from sscbench.world.selfcheck import check_world

    source, domains = parse_world_name(world)
    failed = False
    try:
        for domain in domains:
            report = check_world(load_world(source, domain, data, seed))
            for task_id, reason in report.not_replayable.items():
                print(plain(f"{report.world} {task_id}: ground truth does not replay: {reason}"))
            for task_id, reason in report.failed.items():
                print(plain(f"{report.world} {task_id}: reward 0: {reason}"))
            print(
                f"{report.world}: {len(report.passed)}/{report.total} tasks earn reward 1, "
                f"{len(report.not_replayable)} do not replay, {len(report.failed)} fail"
            )
            failed = (
                failed
                or bool(report.failed)
                or (source == "generated" and bool(report.not_replayable))
            )
    except DataError as exc:
        _fail(exc)
    raise typer.Exit(1 if failed else 0)


@app.command("conformance")
def conformance(
    episodes: Path = typer.Argument(..., help="episodes.jsonl recorded from τ-bench's tools"),
    data: Path = typer.Option(..., help="τ-bench data folder or checkout"),
    show: int = typer.Option(20, help="how many differences to list"),
) -> None:
    """Replay recorded episodes and report identical observations and final hashes."""
    from sscbench.world.conformance import run_conformance
    from sscbench.world.load import load_world

    worlds: dict = {}

    def world_for(domain: str):
        if domain not in worlds:
            worlds[domain] = load_world("tau-bench", domain, data)
        return worlds[domain]

    try:
        report = run_conformance(episodes, world_for)
    except (DataError, OSError) as exc:
        _fail(exc)
    for diff in report.differences[:show]:
        where = f"step {diff.step}" if diff.step is not None else "end"
        print(f"line {diff.episode} ({diff.source}) {where}, {diff.what}:")
        print(plain(f"  expected: {diff.expected[:300]}"))
        print(plain(f"  got:      {diff.got[:300]}"))
    for where in report.restored:
        print(
            f"{where}: book_reservation arguments restored to what τ-bench received "
            "(its later writes had appended to the recorded payment list)"
        )
    if len(report.differences) > show:
        print(f"... and {len(report.differences) - show} more differences")
    print(report.summary())
    raise typer.Exit(0 if report.passed else 1)


app.command("plan")(plan_command)


@app.command("run")
def run(
    config: Path | None = typer.Argument(
        None, help="study config (TOML); default: the embedded study"
    ),
    out: Path = typer.Option(Path("sscbench-out"), "--out", help="study directory"),
    restart: bool = typer.Option(False, help="delete an existing study in --out and start anew"),
    progress: bool = typer.Option(True, help="show a progress bar"),
    report: bool = typer.Option(True, help="measure the runs and write the report afterwards"),
) -> None:
    """Execute a study (clean then faulted runs), resuming an interrupted one; then measure
    every run and write the report (STUDY/report/: report.html, tables, figures, runs)."""
    from sscbench.run.config import load_config
    from sscbench.run.executor import StudyInterrupted, execute_study

    main = threading.current_thread() is threading.main_thread()
    # SIGTERM stops like Ctrl-C (signal handlers can only be set in the main thread)
    previous = signal.signal(signal.SIGTERM, _interrupt) if main else None
    try:
        study, text = load_config(config)
        summary = execute_study(study, text, out, restart=restart, progress=progress)
    except DataError as exc:
        _fail(exc)
    except StudyInterrupted as stop:
        s = stop.summary
        _interrupted(
            config,
            out,
            f"{stop}: {s.finished_runs}/{s.planned_runs} runs finished "
            f"({s.executed_now} now); runs in flight were dropped and will run again",
        )
    except KeyboardInterrupt:
        _interrupted(config, out, "stopped before the runs started")
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
    if summary.took_over:
        console.print(
            plain(f"took over the stale lock of {summary.took_over} (no longer running)"),
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    s = summary.statuses
    verb = "resumed" if summary.resumed else "ran"
    rerun = (
        f"; {summary.rerun} runs whose files failed the check ran again" if summary.rerun else ""
    )
    console.print(
        plain(
            f"{verb} study in {summary.out}: {summary.finished_runs}/{summary.planned_runs} runs "
            f"finished ({summary.executed_now} now): {s['completed']} completed, "
            f"{s['not-qualified']} not qualified, {s['missing']} missing{rerun}"
        ),
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    for line in summary.cost_lines:
        console.print(plain(line), markup=False, highlight=False, soft_wrap=True)
    if report:
        from sscbench.measure.study import measure_study
        from sscbench.report.build import build_report

        try:
            measure_study(out)
            console.print(
                plain(f"report: {build_report(out)}"), markup=False, highlight=False, soft_wrap=True
            )
        except (DataError, OSError) as exc:
            _fail(exc)
        except KeyboardInterrupt:
            console.print(
                "interrupted while measuring; the study's runs are complete: run "
                "sscbench measure and sscbench report on it",
                markup=False,
            )
            raise typer.Exit(130) from None


def _operator_worlds(world: str, data: Path | None, seed: int, operators: str):
    from sscbench.faults.operators.base import FaultOperator
    from sscbench.faults.registry import get_operator
    from sscbench.world.load import load_world

    chosen = []
    for name in [n.strip() for n in operators.split(",") if n.strip()]:
        try:
            operator = get_operator(name)
        except KeyError as exc:
            raise DataError("--operators", name, str(exc.args[0])) from exc
        if not isinstance(operator, FaultOperator):
            raise DataError("--operators", name, "not an SSCBench operator with admission")
        chosen.append(operator)
    worlds = {op.domain: load_world(world, op.domain, data, seed) for op in chosen}
    return chosen, worlds


_OPERATORS = "ReturnDate,ItemOption,PaySource,WriteEffect"


@app.command("candidates")
def candidates(
    world: str = typer.Option("generated", help="generated | tau-bench"),
    data: Path | None = typer.Option(None, help="τ-bench data folder or checkout"),
    seed: int = typer.Option(0, help="seed of the generated world"),
    operators: str = typer.Option(_OPERATORS, help="comma-separated operator names"),
    per_operator: int = typer.Option(
        0, help="write only the first N valid candidates per operator, in screening order (0: all)"
    ),
    out: Path = typer.Option(Path("sscbench-cases"), help="output directory"),
) -> None:
    """Enumerate candidates per operator (frozen order) and write candidates.jsonl."""
    from sscbench.admission.funnel import cluster_cycle
    from sscbench.admission.store import write_jsonl

    try:
        chosen, worlds = _operator_worlds(world, data, seed, operators)
    except DataError as exc:
        _fail(exc)
    rows = []
    for operator in chosen:
        found = operator.enumerate(worlds[operator.domain])
        valid_ones = [c for c in found if not operator.validate(c, worlds[operator.domain])]
        valid = len(valid_ones)
        rows.extend(cluster_cycle(valid_ones)[:per_operator] if per_operator else found)
        paper = f" (paper: {operator.paper_candidates})" if world == "tau-bench" else ""
        print(f"{operator.name}: {len(found)} candidates{paper}, {valid} valid")
    write_jsonl(out / "candidates.jsonl", rows)
    print(plain(f"wrote {out / 'candidates.jsonl'}"))


@app.command("admit")
def admit_cases(
    world: str = typer.Option("generated", help="generated | tau-bench"),
    data: Path | None = typer.Option(None, help="τ-bench data folder or checkout"),
    seed: int = typer.Option(0, help="seed of the generated world"),
    operators: str = typer.Option(_OPERATORS, help="comma-separated operator names"),
    per_operator: int = typer.Option(30, help="cases to admit per operator"),
    out: Path = typer.Option(Path("sscbench-cases"), help="output directory"),
) -> None:
    """Screen candidates for pre-use revealability witnesses; write candidates.jsonl and cases.jsonl."""
    from sscbench.admission.funnel import admit
    from sscbench.admission.store import write_jsonl

    try:
        chosen, worlds = _operator_worlds(world, data, seed, operators)
    except DataError as exc:
        _fail(exc)
    all_candidates, all_cases, drops = [], [], []
    for operator in chosen:
        found, cases, funnel, reasons = admit(operator, worlds[operator.domain], per_operator)
        all_candidates.extend(found)
        all_cases.extend(cases)
        drops.extend({"candidate_id": k, "reason": v} for k, v in reasons.items())
        paper = f" (paper: {funnel.paper_candidates} candidates)" if world == "tau-bench" else ""
        print(
            f"{operator.name}: enumerated {funnel.enumerated}{paper} → valid {funnel.valid} → "
            f"screened {funnel.screened} → witnessed {funnel.witnessed} → admitted "
            f"{funnel.admitted} ({funnel.controls} target-value controls)"
        )
        for reason, count in funnel.invalid_reasons.most_common():
            print(f"    invalid ({count}): {reason}")
        for reason, count in funnel.unresolved_reasons.most_common():
            print(f"    unresolved ({count}): {reason}")
        if funnel.admitted < per_operator:
            print(f"    only {funnel.admitted}/{per_operator} admitted: candidates ran out")
    write_jsonl(out / "candidates.jsonl", all_candidates)
    write_jsonl(out / "cases.jsonl", all_cases)
    write_jsonl(out / "drops.jsonl", drops)
    print(
        plain(f"wrote {out / 'candidates.jsonl'}, {out / 'cases.jsonl'} and {out / 'drops.jsonl'}")
    )


@app.command("measure")
def measure(
    study: Path = typer.Argument(..., help="study directory"),
    classifier: str = typer.Option("rule", help="rule (offline) | llm"),
    base_url: str | None = typer.Option(None, help="llm classifier: OpenAI-compatible base URL"),
    model: str | None = typer.Option(None, help="llm classifier: model name"),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="llm classifier: key variable name"),
    out: Path | None = typer.Option(
        None, help="output file (default STUDY/measurements.jsonl; name another to keep both)"
    ),
) -> None:
    """Reconstruct T_F, T_E, T_S, T_U, Z_S, A and Y_end for every run: measurements.jsonl."""
    from collections import Counter

    from sscbench.measure.study import measure_study

    judge = None
    if classifier == "llm":
        if not base_url or not model:
            _fail(DataError("--classifier llm", "base-url/model", "both are required"))
        from sscbench.agents.endpoint import EndpointConfig
        from sscbench.measure.classifier import LLMClassifier

        judge = LLMClassifier(
            EndpointConfig(base_url=base_url, model=model, api_key_env=api_key_env)
        )
    elif classifier != "rule":
        _fail(DataError("--classifier", classifier, "expected rule or llm"))
    try:
        path, count = measure_study(study, judge, out=out)
    except (DataError, OSError) as exc:
        _fail(exc)
    finally:
        if judge is not None:
            judge.close()
    strata: Counter = Counter()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["kind"] == "faulted":
                strata[row.get("Z_S")] += 1
    print(plain(f"wrote {path}: {count} rows"))
    print("faulted runs by arrival: " + ", ".join(f"{k} {v}" for k, v in sorted(strata.items())))


@app.command("calibrate")
def calibrate(
    study: Path = typer.Argument(..., help="study directory"),
    show: int = typer.Option(20, help="how many disagreements to list"),
) -> None:
    """Compare measurements with the scripted profiles' calibration labels."""
    from sscbench.measure.calibrate import labelled_runs

    try:
        comparisons = list(labelled_runs(study))
    except (DataError, OSError) as exc:
        _fail(exc)
    disagreements = [c for c in comparisons if not c.agrees]
    for c in disagreements[:show]:
        fields = ", ".join(
            f"{f} measured {c.measured.get(f)} vs labelled {c.labelled.get(f)}"
            for f in ("T_E", "T_S", "T_U", "Z_S", "A")
            if c.measured.get(f) != c.labelled.get(f)
        )
        print(plain(f"{c.run_id}: {fields}"))
    agree = len(comparisons) - len(disagreements)
    print(f"calibration: {agree}/{len(comparisons)} runs agree on T_E, T_S, T_U, Z_S and A")
    raise typer.Exit(0 if not disagreements else 1)


@app.command("validate-oracle")
def validate_oracle(
    study: Path = typer.Argument(..., help="study directory"),
    oracle: Path | None = typer.Option(
        None, help="the oracle's verdicts, JSONL with run_id, A, T_U (default: measurements)"
    ),
    reference: str = typer.Option(
        "calibration", help="'calibration' (scripted labels) or a JSONL labels file"
    ),
    as_json: bool = typer.Option(False, "--json", help="print the scores as JSON"),
) -> None:
    """Score an oracle's adoption verdicts (P/R/F1, kappa) and T_U locations (exact, ±1)
    against reference labels, overall and by operator and arrival; abstentions are misses."""
    from sscbench.oracles.validate import (
        calibration_reference,
        read_rows,
        validate,
        with_strata,
    )

    try:
        measurements = read_rows(oracle or study / "measurements.jsonl")
        if reference == "calibration":
            ref = calibration_reference(study)
        else:
            ref = with_strata(read_rows(Path(reference)), read_rows(study / "measurements.jsonl"))
    except (DataError, OSError) as exc:
        _fail(exc)
    scores = validate(measurements, ref)
    if as_json:
        print(json.dumps(scores, indent=2))
        return
    if not scores:
        print("no reference labels for this study")
        raise typer.Exit(1)
    for key, row in scores.items():
        print(
            f"{key}: {row['runs']} runs, {row['abstentions']} abstained; adoption "
            f"P {row['precision']}, R {row['recall']}, F1 {row['f1']}, kappa {row['kappa']}; "
            f"T_U exact {row['t_u_exact']}, within 1 {row['t_u_within_1']}"
        )


@app.command("report")
def report(
    study: Path = typer.Argument(..., help="study directory (measured)"),
    claims: Path | None = typer.Option(None, help="TOML file of user-defined claims"),
    paired: Path | None = typer.Option(None, help="a second measured study to compare pairwise"),
    policy: Path | None = typer.Option(None, help="gate policy (TOML): add the gate verdict"),
) -> None:
    """Write STUDY/report/ as one set: report.html, tables/*.csv, figures, claims.json and
    the run browser (runs/); refuses measurements older than the study's index."""
    from sscbench.report.build import build_report
    from sscbench.run.lock import StudyLock
    from sscbench.run.verify import require_study, verify_study

    try:
        require_study(study)  # before the lock: a foreign folder gets no lock file
        with StudyLock(study):  # no run, measure or other report writes it meanwhile
            verify_study(study)
            if paired is not None:
                verify_study(paired)
            path = build_report(study, claims_file=claims, paired=paired, policy=policy)
    except (DataError, OSError) as exc:
        _fail(exc)
    print(plain(f"wrote {path}"))


def main() -> None:
    """Entry point for ``python -m sscbench``."""
    app()
