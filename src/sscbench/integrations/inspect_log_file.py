"""An Inspect ``.eval`` log written sample by sample: the one module that knows its layout.

inspect_ai's public writer, ``inspect_ai.log.write_eval_log``, takes a whole
``EvalLog``: every sample in memory at once (1.15 GB for 3,486 runs). Its ``.eval``
recorder (``inspect_ai.log._recorders``, what Inspect's eval loop logs through) can
take samples one at a time, but keeps every sample's summary in memory until the end
(~7 KB of JSON a run here: the score carries the whole measurement row) and copies the
log so far to its file at each flush, so neither its memory nor its work is flat.

So the zip is written here, with Inspect's own pieces: ``condense_sample`` and
``EvalSample.summary()`` (public), and from inspect_ai's private modules its JSON
writer (``to_json_safe``), its zip compression settings and the ``LogStart`` record.
The members are the recorder's, in its order: ``_journal/start.json``, one
``samples/<id>_epoch_<n>.json`` per sample, the summaries journal
(``_journal/summaries/<k>.json``, a batch every :data:`SUMMARY_BATCH` samples, as an
eval that flushes writes them), ``summaries.json`` (streamed from a spool file, never
built in memory) and ``header.json``. Memory holds one sample and one batch of
summaries, whatever the number of runs.

inspect_ai's private modules may change with it (0.3.285 when this was written):
``tests/integrations/test_inspect_log_file.py`` writes a study both ways, here and
with ``write_eval_log``, and requires the same members and ``read_eval_log`` to give
the same header, samples, scores, metadata and summaries.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from zipfile import ZipFile

SUMMARY_BATCH = 200
"""Samples whose summaries are journalled together (``_journal/summaries/<k>.json``)."""


@dataclass(frozen=True)
class LogEnding:
    """What a log's header says once every sample is written: status, stats, results."""

    status: str
    stats: Any  # inspect_ai.log.EvalStats
    results: Any  # inspect_ai.log.EvalResults | None


def write_eval_file(
    path: Path,
    spec: Any,
    samples: Iterable[Any],
    ending: Callable[[], LogEnding],
    batch: int = SUMMARY_BATCH,
) -> int:
    """Write ``samples`` (``EvalSample``s, consumed one at a time) as the ``.eval`` log
    at ``path`` with the eval ``spec``; ``ending`` is called after the last sample (it
    may summarize what the samples' producer saw). Returns the samples written. Why: an
    Inspect log of any size in the memory of one sample."""
    from inspect_ai._util.json import to_json_safe
    from inspect_ai._util.zipfile import zipfile_compress_kwargs
    from inspect_ai.log import EvalLog, EvalPlan, condense_sample
    from inspect_ai.log._recorders.eval import LogStart

    def member(name: str, value: Any) -> None:
        zf.writestr(name, to_json_safe(value, indent=None))

    plan = EvalPlan()
    count, journalled = 0, 0
    pending: list[Any] = []
    with ZipFile(path, "w", **zipfile_compress_kwargs) as zf, tempfile.TemporaryFile() as spool:
        member(
            "_journal/start.json",
            LogStart(version=EvalLog(eval=spec).version, eval=spec, plan=plan),
        )
        for sample in samples:
            condensed = condense_sample(sample)
            member(f"samples/{condensed.id}_epoch_{condensed.epoch}.json", condensed)
            summary = condensed.summary()
            spool.write(to_json_safe(summary, indent=None) + b"\n")
            pending.append(summary)
            count += 1
            if len(pending) >= max(1, batch):
                journalled += 1
                member(f"_journal/summaries/{journalled}.json", pending)
                pending = []
        if pending:
            member(f"_journal/summaries/{journalled + 1}.json", pending)
        with zf.open("summaries.json", "w", force_zip64=True) as out:
            _json_array(spool, out)
        end = ending()
        member(
            "header.json",
            EvalLog(
                eval=spec,
                plan=plan,
                status=end.status,
                stats=end.stats,
                results=end.results,
            ),
        )
    return count


def _json_array(lines: IO[bytes], out: IO[bytes]) -> None:
    """Copy a spool of JSON values (one a line) to ``out`` as one compact JSON array."""
    lines.seek(0)
    out.write(b"[")
    for i, line in enumerate(lines):
        if i:
            out.write(b",")
        out.write(line.rstrip(b"\n"))
    out.write(b"]")
