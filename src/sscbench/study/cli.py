"""``sscbench store``: the study's run store (``convert``: per-file runs into shards)."""

from __future__ import annotations

import typer

from sscbench.cli_options import StudyFolder, fail
from sscbench.errors import DataError
from sscbench.terminal import plain

store_app = typer.Typer(no_args_is_help=True, help="The study's run store: files or shards.")


@store_app.command("convert")
def convert(study: StudyFolder) -> None:
    """Move a study's per-run ledger and evaluator files into shards (checked first; the
    old files are removed only once the shards and the new marker are in place)."""
    from sscbench.study.convert import convert_to_shards

    try:
        done = convert_to_shards(study)
    except (DataError, OSError) as exc:
        fail(exc)
    for line in done.lines(study):
        typer.echo(plain(line))


__all__ = ["store_app"]
