"""Episode throughput and harness overhead.

1. Faulted airline episodes per second on one core: scripted agent (``readback``) and
   scripted user, a SuppressWrite fault on each task's first write, reward included,
   ledgers serialised (goal >= 300 per second).
2. Harness overhead against a local OpenAI-compatible endpoint that answers after a
   fixed delay, at concurrency 64 and 256 (``--concurrency``): ``benchmarks/overhead.py``
   (the harness against a bare client through the same endpoint process, the runs
   recorded as a study records them, medians of ``--repeat`` runs, and the breakdown:
   pool waits, journal lines, run files, garbage collection, loop lag, CPU); goal
   within 5% at each.

Usage: python benchmarks/runs.py [--data ../shared/tau-bench] [--delay 0.5] [--rounds 4]
       [--repeat 3] [--concurrency 64 256]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from overhead import airline_world, print_overheads

from sscbench.agents.scripted import scripted_agent_factory
from sscbench.core.agent import RunContext
from sscbench.faults.builtin import SuppressWrite
from sscbench.run.episode import run_episode
from sscbench.users.scripted import scripted_user_factory


async def throughput(world, seconds: float) -> tuple[int, float]:
    """Faulted episodes run back to back for about ``seconds``; returns (count, elapsed)."""
    operator = SuppressWrite()
    cases = [c for t in world.tasks for c in operator.cases_for(world, t)]
    agent_factory = scripted_agent_factory("readback")
    env = world.new_env()
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        case = cases[count % len(cases)]
        task = world.task(case.task_id)
        context = RunContext(world, task, world.policy, world.tool_schemas(), count, 0)
        result = await run_episode(
            world,
            task,
            agent_factory(context),
            scripted_user_factory(context),
            system_prompt=world.policy,
            injections=operator.injections(case, world),
            max_steps=60,
            env=env,
        )
        for event in result.ledger:
            event.model_dump_json()
        count += 1
    return count, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parents[2] / "shared" / "tau-bench"
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=4, help="episodes = rounds x concurrency")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--repeat", type=int, default=3, help="runs per concurrency (median)")
    args = parser.parse_args()
    world = airline_world(args.data)
    count, elapsed = asyncio.run(throughput(world, args.seconds))
    rate = count / elapsed
    print(
        f"{world.name}: {count} faulted episodes in {elapsed:.2f} s = {rate:,.0f} episodes/s "
        f"(goal >= 300/s): ratio {rate / 300:.2f}x of goal"
    )
    print_overheads(world, args.delay, args.rounds, args.concurrency, args.repeat)


if __name__ == "__main__":
    main()
