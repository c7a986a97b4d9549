"""``sscbench report``, and the measure-then-report step that ends ``sscbench run``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from sscbench.cli_options import console, fail
from sscbench.errors import DataError
from sscbench.terminal import count, plain

if TYPE_CHECKING:  # read when the command runs
    from sscbench.study.config import StudyConfig


def report(
    study: Path = typer.Argument(
        ..., help="study directory (measured first when it has no measurements.jsonl)"
    ),
    claims: Path | None = typer.Option(None, help="TOML file of user-defined claims"),
    paired: Path | None = typer.Option(None, help="a second measured study to compare pairwise"),
    policy: Path | None = typer.Option(None, help="gate policy (TOML): add the gate verdict"),
    review: Path | None = typer.Option(
        None,
        help="review folder: adjudicated reference.jsonl and agreement.json (default: "
        "STUDY/review/ when it holds them)",
    ),
    run_pages: str | None = typer.Option(
        None,
        "--run-pages",
        help="which runs get a page in the run browser: all, sample (every outcome group, "
        "at most 2,000 pages) or none (the run list only); default: all up to 2,000 runs, "
        "sample above",
    ),
) -> None:
    """Write STUDY/report/ as one set: report.html, tables/*.csv, figures, claims.json and
    the run browser (runs/); measures the study first when it has no measurements.jsonl
    (as ``sscbench run`` does), and refuses measurements older than the study's index."""
    from sscbench.measure.study import measure_study
    from sscbench.report.build import build_report
    from sscbench.report.run_sample import RUN_PAGES
    from sscbench.study.lock import StudyLock
    from sscbench.study.verify import require_study, verify_study

    if run_pages is not None and run_pages not in RUN_PAGES:
        fail(ValueError(f"--run-pages: {run_pages!r} is not one of {', '.join(RUN_PAGES)}"))
    try:
        require_study(study)  # before the lock: a foreign folder gets no lock file
        if not (study / "measurements.jsonl").exists():  # e.g. a study Inspect ran
            measured, rows = measure_study(study)
            print(plain(f"measured {count(rows, 'run')}: {measured}"))
        with StudyLock(study):  # no run, measure or other report writes it meanwhile
            verify_study(study, keep_entries=False)
            if paired is not None:
                verify_study(paired, keep_entries=False)
            path = build_report(
                study,
                claims_file=claims,
                paired=paired,
                policy=policy,
                review=review,
                run_pages=run_pages,
            )
    except (DataError, OSError) as exc:
        fail(exc)
    print(plain(f"wrote {path}"))


def measure_and_report(out: Path, config: StudyConfig | None = None) -> None:
    """Measure every run of the study in ``out``, score the ``[oracles]`` settings of its
    ``config`` (when given) and write its report (``sscbench run``'s last step); an
    interrupt here leaves complete runs (and every oracle setting written) and exits 130."""
    from sscbench.measure.study import measure_study
    from sscbench.oracles.run_scoring import score_configured
    from sscbench.report.build import build_report

    try:
        measure_study(out)
        if config is not None:
            for name, state in score_configured(out, config).items():
                note = "scored" if state == "scored" else "unchanged inputs, kept"
                console.print(
                    plain(f"oracle {name}: {note} ({out / 'oracles' / name}.json)"),
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
        console.print(
            plain(f"report: {build_report(out)}"), markup=False, highlight=False, soft_wrap=True
        )
    except (DataError, OSError) as exc:
        fail(exc)
    except KeyboardInterrupt:
        console.print(
            "interrupted while measuring or scoring oracles; the study's runs (and the "
            "oracle settings already written) are kept: run sscbench run again to finish",
            markup=False,
        )
        raise typer.Exit(130) from None


__all__ = ["measure_and_report", "report"]
