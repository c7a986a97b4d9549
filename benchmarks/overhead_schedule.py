"""The whole-study baseline of ``benchmarks/overhead_study.py``: the study's own schedule.

A study is not a pile of independent episodes. ``StudyRunner.run_unit`` takes the plan's
units in order on ``concurrency`` workers; a unit first needs its task's clean run (made
once, by the first unit that needs it; a unit needing a clean run another unit is making
waits for it, holding its worker), then makes its faulted run when the clean run
qualified it. A study with qualifying clean runs therefore has chains of two episodes
and workers waiting on each other, which a bare client making the same number of
independent episodes does not have: comparing the two charges that structure to the
harness.

So the study is compared with the same schedule made without the harness:

* :func:`ideal_wall`, the schedule's wall when each episode takes exactly its requests'
  delays and nothing else (a simulation of the workers, in the plan's order); and
* :func:`bare_study`, the schedule made by the bare client (one aiohttp pool POSTing one
  harness episode's request bodies per episode, decoding each answer, nothing else)
  through the same endpoint, in the same minute.

Both read the schedule the study made (:func:`study_units`): the plan's units in order,
each with its clean run's id and whether its faulted run was made (its index line says
``completed``; a not-qualified unit makes none).
"""

from __future__ import annotations

import asyncio
import heapq
import json
import time
from pathlib import Path

import aiohttp

from sscbench.reading import loads_json

Unit = tuple[str, bool]
"""A plan unit as the baseline makes it: its clean run's id, whether its faulted run was made."""


def study_units(text: str, study: Path) -> list[Unit]:
    """The plan's units of the study config ``text`` in the order the study takes them,
    each with its clean run's id and whether the study made its faulted run (read from
    the study folder's index)."""
    from sscbench.run.builders import build_cases
    from sscbench.run.planning import make_plan
    from sscbench.study.config import parse_config
    from sscbench.study.worlds import build_worlds

    config = parse_config(text, study.parent / "study.toml", base_dir=study.parent)
    plan = make_plan(config, build_cases(config, build_worlds(config)))
    made = set()
    for line in (study / "index.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["kind"] == "faulted" and row["status"] == "completed":
            made.add(row["run_id"])
    return [(unit.clean_run_id, unit.faulted_run_id in made) for unit in plan]


def ideal_wall(units: list[Unit], concurrency: int, episode_s: float) -> float:
    """The schedule's wall when every episode takes ``episode_s`` and nothing else does:
    ``concurrency`` workers take the units in order, each as soon as it is free (the
    lowest-numbered free worker first, as the event loop wakes them); a unit whose clean
    run another worker started waits for its end."""
    free = [(0.0, worker) for worker in range(concurrency)]
    clean_end: dict[str, float] = {}
    wall = 0.0
    for clean_id, faulted in units:
        start, worker = heapq.heappop(free)
        if clean_id in clean_end:
            ready = max(start, clean_end[clean_id])
        else:
            ready = clean_end[clean_id] = start + episode_s
        end = ready + episode_s if faulted else ready
        wall = max(wall, end)
        heapq.heappush(free, (end, worker))
    return wall


async def bare_study(
    base_url: str, bodies: list[bytes], units: list[Unit], concurrency: int, trace_config
) -> float:
    """Wall seconds of the bare client making ``units`` on ``concurrency`` workers as the
    study does (shared clean runs made once, waited for by the units needing them; a
    faulted run after its clean run), after a warm-up filling the pool. Its requests carry
    ``trace_config`` (an aiohttp trace, as the harness's requests do)."""
    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench"}
    url = base_url + "/chat/completions"
    async with aiohttp.ClientSession(
        connector=connector, headers=headers, trace_configs=[trace_config]
    ) as session:

        async def episode() -> None:
            for body in bodies:
                async with session.post(url, data=body) as answer:
                    loads_json(await answer.read(), max_depth=None)

        await asyncio.gather(*(episode() for _ in range(concurrency)))
        cleans: dict[str, asyncio.Future] = {}
        queue = iter(units)

        async def worker() -> None:
            for clean_id, faulted in queue:
                if clean_id not in cleans:
                    cleans[clean_id] = asyncio.ensure_future(episode())
                await asyncio.shield(cleans[clean_id])
                if faulted:
                    await episode()
                await asyncio.sleep(0)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - start
