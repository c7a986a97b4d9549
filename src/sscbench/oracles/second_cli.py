"""``sscbench second-read STUDY [--config FILE]`` (mounted by the main CLI).

The judge model is the study config's (``[second_reader.endpoint]``, else
``[oracles.endpoint]``; ``--config`` defaults to the study's own ``config.toml``). Exit
codes: 0 when every marked run sent was answered (or none was marked); 1 when some
abstained (a failed call, an unparsable answer, not sent: each line says why); 2 on a
bad input or no judge model, and when the endpoint never answered (the file is written
first, every unsent run recorded with that reason).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from sscbench.cli_options import StudyFolder, fail
from sscbench.errors import DataError
from sscbench.terminal import plain


def second_read_command(
    study: StudyFolder,
    config: Path | None = typer.Option(
        None, "--config", help="study config with the judge model (default: STUDY/config.toml)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
) -> None:
    """Send the runs the rules marked unread (unread > 0) to the study's judge model with
    the L1 oracle prompt; write its proposed T_S, T_U and A with their quoted evidence to
    STUDY/second_reading.jsonl, beside the rule reading, which stays as it is."""
    from sscbench.oracles.second_read import second_read
    from sscbench.study.config_oracles import read_judge_settings

    path = config if config is not None else Path(study) / "config.toml"
    try:
        endpoint, max_runs = read_judge_settings(path)
        result = second_read(study, endpoint, max_runs)
    except (DataError, OSError) as exc:
        fail(exc)
    abstained = [r for r in result.readings if not r.answered]
    summary = {
        "file": str(result.path),
        "marked": len(result.readings),
        "answered": result.answered,
        "abstained": len(abstained),
        "not_checked": result.unchecked,
        "calls": result.calls,
        "standings": result.standings,
    }
    if as_json:
        print(json.dumps(summary, indent=1))
    else:
        print(
            plain(
                f"wrote {result.path}: {summary['marked']} marked runs, {result.answered} "
                f"answered, {len(abstained)} abstained ({result.calls} calls); "
                f"{result.unchecked} faulted rows carry no unread count (not checked)"
            )
        )
        for quantity, counts in result.standings.items():
            words = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            print(plain(f"  {quantity}: {words}"))
        for reading in abstained:
            print(plain(f"  {reading.run_id}: {reading.abstention}"))
    if result.stopped is not None:
        fail(result.stopped)
    raise typer.Exit(1 if abstained else 0)


__all__ = ["second_read_command"]
