"""``sscbench measure`` and ``sscbench calibrate``: measurements of a study's runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from sscbench.cli_options import StudyFolder, fail
from sscbench.errors import DataError
from sscbench.jsonl import iter_jsonl
from sscbench.reading import loads_json
from sscbench.terminal import plain

if TYPE_CHECKING:
    from sscbench.measure.on_ray import OnRay


def measure(
    study: StudyFolder,
    classifier: str = typer.Option("rule", help="rule (offline) | llm"),
    base_url: str | None = typer.Option(None, help="llm classifier: OpenAI-compatible base URL"),
    model: str | None = typer.Option(None, help="llm classifier: model name"),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="llm classifier: key variable name"),
    out: Path | None = typer.Option(
        None, help="output file (default STUDY/measurements.jsonl; name another to keep both)"
    ),
    workers: int | None = typer.Option(
        None,
        min=1,
        help="processes measuring runs (rule classifier; default 1), or Ray workers "
        "(default: \\[study.ray] workers); the same file for any N",
    ),
    executor: str | None = typer.Option(
        None,
        "--executor",
        help="where runs are measured: local (this machine, --workers processes) or ray "
        "(default: ray when the study's \\[study] executor is ray, else local)",
    ),
    address: str | None = typer.Option(
        None,
        "--address",
        help="the Ray cluster: auto, ray://HOST:PORT or HOST:PORT (default: \\[study.ray] "
        "address, else a private local cluster)",
    ),
) -> None:
    """Reconstruct T_F, T_E, T_S, T_U, Z_S, A and Y_end for every run: measurements.jsonl."""
    from collections import Counter

    from sscbench.measure.study import measure_study

    judge = None
    if classifier == "llm":
        if not base_url or not model:
            fail(DataError("--classifier llm", "base-url/model", "both are required"))
        from sscbench.llm.endpoint import endpoint_from_options
        from sscbench.measure.classifier import LLMClassifier

        try:
            endpoint = endpoint_from_options(
                base_url=base_url, model=model, api_key_env=api_key_env
            )
        except DataError as exc:
            fail(exc)
        judge = LLMClassifier(endpoint)
    elif classifier != "rule":
        fail(DataError("--classifier", classifier, "expected rule or llm"))
    try:
        on_ray = _on_ray(study, executor, address, workers)
        path, count = measure_study(study, judge, out=out, workers=workers or 1, on_ray=on_ray)
    except (DataError, OSError) as exc:
        fail(exc)
    finally:
        if judge is not None:
            judge.close()
    if on_ray is not None and on_ray.remeasured:
        print(f"{on_ray.remeasured} chunks of runs measured again after their worker was lost")
    strata: Counter[str] = Counter()
    for row in iter_jsonl(path, loads_json):  # streamed: the file has a line per run
        if row["kind"] == "faulted":
            strata[row.get("Z_S")] += 1
    print(plain(f"wrote {path}: {count} rows"))
    print("faulted runs by arrival: " + ", ".join(f"{k} {v}" for k, v in sorted(strata.items())))


def _on_ray(
    study: Path, executor: str | None, address: str | None, workers: int | None
) -> OnRay | None:
    """Where to measure on Ray (``--executor``/``--address``/``--workers``, else the
    study's own ``[study]`` settings, resolved as ``run`` resolves them), or None to
    measure on this machine."""
    from sscbench.measure.on_ray import OnRay
    from sscbench.study.folder import StudyDir
    from sscbench.study.placement import chosen_executor, ray_workers, recorded_study_settings

    if executor not in (None, "local", "processes", "ray"):
        raise DataError("--executor", None, f"{executor!r} is not 'local', 'processes' or 'ray'")
    if executor in ("local", "processes"):
        return None  # the study's config is not read: this machine was asked for
    settings = recorded_study_settings(StudyDir(study))
    executor, address = chosen_executor(settings, executor, address)
    if executor != "ray":
        return None
    return OnRay(ray_workers(settings.ray, workers), address)


def calibrate(
    study: StudyFolder,
    show: int = typer.Option(20, help="how many disagreements to list"),
) -> None:
    """Compare measurements with the scripted profiles' calibration labels."""
    from sscbench.measure.calibrate import labelled_runs

    try:
        comparisons = list(labelled_runs(study))
    except (DataError, OSError) as exc:
        fail(exc)
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


__all__ = ["calibrate", "measure"]
