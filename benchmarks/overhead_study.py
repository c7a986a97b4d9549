"""Harness overhead of a whole study, made in this process or in N child processes.

``benchmarks/overhead.py --executor processes --workers 2`` measures this: the harness
side is a real study (``execute_study``: plan, qualification, the one writer, the index)
whose agent is an OpenAI-compatible configuration pointed at the fixed-delay endpoint
(two tool calls, then a text). Most clean runs do not qualify their cases (reward 0); those
that do are followed by their faulted runs, so the study has chains of two episodes. The
same study is run by the local executor (one process, one event loop) and by the process
executor (``--workers`` children), each into a fresh folder, through the same endpoint
process in the same minute. For each the time from the first run started to the last
recorded (``runs_wall_s``: setup and the children's start are left out) is printed with
the CPU per request of this process (the parent: planning and recording) and of the
children it waited for (making the episodes; their start, measured alone once before,
left out).

The baseline is the study's own schedule (``benchmarks/overhead_schedule.py``): the plan's
units in order on the same number of workers, each clean run made once and waited for by
the units needing it, a faulted run after its clean run when the study made one. Its
ideal (each episode exactly its requests' delays) and the bare client making it (one
harness episode's request bodies per episode) are printed beside, when the study's
episodes make 3 requests each, as they do with this endpoint.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STUDY = """
[study]
name = "overhead"
repetitions = {repetitions}
concurrency = {concurrency}
store = "{store}"
[study.processes]
workers = {workers}
[world]
{world}
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = {cases}
max_steps = {{ ReturnDate = 3 }}
[[agents]]
id = "bench"
kind = "openai"
[agents.endpoint]
base_url = "{url}"
model = "bench"
max_retries = 0
"""


def study_text(
    data: Path, url: str, episodes: int, shape: tuple[int, int], store: str = "auto"
) -> str:
    """The study's config: ``episodes`` clean runs or a few more (whole repetitions of
    its tasks; ``max_steps`` 3: two tool calls and a text, the bare client's chain);
    ``shape``: concurrency and workers; ``store``: ``[study] store``."""
    from sscbench.run.builders import build_cases
    from sscbench.run.planning import make_plan
    from sscbench.study.config import parse_config
    from sscbench.study.worlds import build_worlds

    tau = (data / "airline" / "flights.json").exists()
    world = f'source = "tau-bench"\ndata = "{data}"' if tau else 'source = "generated"'
    concurrency, workers = shape
    fields = {"concurrency": concurrency, "workers": workers, "world": world, "url": url}
    fields["store"] = store
    one = parse_config(STUDY.format(repetitions=1, cases=20, **fields), "overhead.toml")
    tasks = make_plan(one, build_cases(one, build_worlds(one))).clean_count()
    return STUDY.format(repetitions=math.ceil(episodes / tasks), cases=20, **fields)


def children_cpu() -> float:
    """CPU seconds of the child processes this process has waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start_cpu(config: Any, text: str) -> float:
    """CPU seconds the children spend starting (spawn, imports, rebuilding the study):
    left out of their CPU per request, which is about making episodes."""
    from sscbench.run.builders import build_cases
    from sscbench.run.processes import ProcessEpisodes
    from sscbench.study.worlds import build_worlds

    cases = build_cases(config, build_worlds(config))
    before = children_cpu()
    source = ProcessEpisodes.start(config, text, cases)
    asyncio.run(source.aclose())
    return children_cpu() - before


def run_study(text: str, out: Path, executor: str) -> dict[str, float]:
    """One study through ``executor``; its wall, requests and CPU split (the children's
    without their start)."""
    from sscbench.run.executor import execute_study
    from sscbench.study.config import parse_config

    config = parse_config(text, out.parent / "study.toml", base_dir=out.parent)
    starting = start_cpu(config, text) if executor == "processes" else 0.0
    cpu, children = time.process_time(), children_cpu()
    summary = execute_study(config, text, out, progress=False, executor=executor)
    cpu, children = time.process_time() - cpu, children_cpu() - children - starting
    rows = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    made = [r for r in rows if r["status"] == "completed"]
    requests = sum(r["usage"]["agent"]["requests"] for r in made)
    chains = {r["usage"]["agent"]["requests"] for r in made}
    return {
        "wall_s": summary.runs_wall_s,
        "episodes": len(made),
        "faulted": sum(r["kind"] == "faulted" for r in made),
        "requests": requests,
        "chain": max(chains) if len(chains) == 1 else -1,
        "parent_cpu_ms": cpu / requests * 1000,
        "children_cpu_ms": children / requests * 1000,
    }


@dataclass(frozen=True)
class Baseline:
    """What ``benchmarks/overhead.py`` lends this module (passed in, so that the two
    scripts do not import each other): its endpoint process and one harness episode's
    request bodies for the bare client to send."""

    endpoint: Callable[[float], Any]
    bodies_for_chain: Callable[[Path, Any, int], list[bytes]]


def measure_executors(
    base: Baseline,
    endpoint: Any,
    data: Path,
    delay: float,
    shape: tuple[int, int, int],
    store: str = "auto",
) -> dict[str, float]:
    """The study made locally and by ``workers`` children, then its schedule made by the
    bare client (``shape``: rounds, concurrency, workers; ``store``: ``[study] store``)."""
    from overhead_probes import Trace
    from overhead_schedule import bare_study, ideal_wall, study_units

    rounds, concurrency, workers = shape

    text = study_text(data, endpoint.base_url, rounds * concurrency, (concurrency, workers), store)
    row: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for executor in ("local", "processes"):
            folder = Path(tmp) / executor
            folder.mkdir()
            got = run_study(text, folder / "study", executor)
            row |= {f"{executor}_{key}": value for key, value in got.items()}
        units = study_units(text, Path(tmp) / "local" / "study")
    chain = int(row["local_chain"])
    row["ideal_s"] = ideal_wall(units, concurrency, chain * delay)
    bodies = base.bodies_for_chain(data, endpoint, chain)
    if bodies:
        trace = Trace().config()
        row["bare_s"] = asyncio.run(
            bare_study(endpoint.base_url, bodies, units, concurrency, trace)
        )
    return row


def report(concurrency: int, delay: float, workers: int, rows: list[dict], load: float) -> str:
    """The medians of ``rows`` as lines of text."""
    m = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    bare = f"bare client {m['bare_s']:.3f} s, " if "bare_s" in m else ""

    def pct(wall: float, base: float) -> str:
        return f"{(wall / base - 1) * 100:+.2f}%"

    lines = [
        f"study at concurrency {concurrency}, delay {delay:g} s ({len(rows)} runs, load "
        f"average {load:.2f} before, {m['local_episodes']:.0f} episodes of "
        f"{m['local_chain']:.0f} requests, {m['local_faulted']:.0f} of them faulted runs after "
        f"their clean run): ideal {m['ideal_s']:.3f} s, {bare}"
    ]
    for executor, name in (("local", "one process"), ("processes", f"{workers} processes")):
        wall = m[f"{executor}_wall_s"]
        versus = f", vs bare client {pct(wall, m['bare_s'])}" if "bare_s" in m else ""
        lines.append(
            f"  {name:<12} {wall:.3f} s: vs ideal {pct(wall, m['ideal_s'])}{versus}; CPU per "
            f"request: parent {m[f'{executor}_parent_cpu_ms']:.2f} ms, children "
            f"{m[f'{executor}_children_cpu_ms']:.2f} ms"
        )
    return "\n".join(lines)


def print_study_overheads(
    base: Baseline,
    data: Path,
    delay: float,
    rounds: int,
    concurrencies: list[int],
    repeat: int,
    workers: int,
    store: str = "auto",
) -> None:
    """Per concurrency, the study's overhead made by one process and by ``workers``, its
    runs kept as ``store`` says (``[study] store``: ``auto`` picks by the study's size and
    concurrency)."""
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    for concurrency in concurrencies:
        load = os.getloadavg()[0]
        rows = []
        for _ in range(repeat):
            endpoint = base.endpoint(delay)
            shape = (rounds, concurrency, workers)
            try:
                rows.append(measure_executors(base, endpoint, data, delay, shape, store))
            finally:
                endpoint.close()
        print(f"study store: {store} ([study] store)", flush=True)
        print(report(concurrency, delay, workers, rows, load), flush=True)
