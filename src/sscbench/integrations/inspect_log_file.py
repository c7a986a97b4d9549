"""An Inspect ``.eval`` log written sample by sample: the one user of Inspect's recorder.

inspect_ai's public writer, ``inspect_ai.log.write_eval_log``, takes a whole
``EvalLog``: every sample in memory at once. Its ``.eval`` writer is the recorder
Inspect's own eval loop logs through (``inspect_ai.log._recorders``, the ``Recorder``
interface: ``log_init``, ``log_start``, ``log_sample``, ``flush``, ``log_finish``), and
``write_eval_log`` is those same calls over the log's list of samples. Here they are
made over an iterator: each sample is logged when it is made and the buffered ones are
written into the zip every :data:`FLUSH_EVERY` samples, so at most that many samples
are held, whatever the number of runs. The file is the one ``write_eval_log`` writes
(same members: ``header.json``, ``samples/*.json``, ``summaries.json``, the
``_journal/``), read back the same by ``read_eval_log`` and ``inspect view``.

The recorder lives in a private package of inspect_ai (0.3.285 when this was written),
so nothing else in sscbench touches it; ``tests/integrations/test_inspect_log_file.py``
pins the behaviour relied on (a file written here reads back equal to
``write_eval_log``'s of the same log). What still grows with the samples is Inspect's
own list of sample summaries (``summaries.json`` is one JSON member written at the
end): a few hundred bytes a sample.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FLUSH_EVERY = 200
"""Samples held before the buffered ones are written into the log (the recorder's
``flush``, which also copies the log so far to its destination)."""


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
    flush_every: int = FLUSH_EVERY,
) -> int:
    """Write ``samples`` (``EvalSample``s, consumed one at a time) as the ``.eval`` log
    at ``path`` with the eval ``spec``; ``ending`` is called after the last sample (it
    may summarize what the samples' producer saw). Returns the samples written. Why: an
    Inspect log of any size in the memory of :data:`FLUSH_EVERY` samples."""
    return asyncio.run(_write(path, spec, samples, ending, max(1, flush_every)))


async def _write(
    path: Path,
    spec: Any,
    samples: Iterable[Any],
    ending: Callable[[], LogEnding],
    flush_every: int,
) -> int:
    """The recorder's calls, in the order ``write_eval_log`` makes them."""
    from inspect_ai.log import EvalPlan, condense_sample
    from inspect_ai.log._recorders import create_recorder_for_format

    recorder = create_recorder_for_format("eval", str(path.parent))
    await recorder.log_init(spec, str(path), clean=True)  # type: ignore[call-arg]
    await recorder.log_start(spec, EvalPlan())
    count = 0
    for sample in samples:
        await recorder.log_sample(spec, condense_sample(sample))
        count += 1
        if count % flush_every == 0:
            await recorder.flush(spec)
    end = ending()
    await recorder.log_finish(spec, end.status, end.stats, end.results, None)  # type: ignore[arg-type]
    return count
