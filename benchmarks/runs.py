"""Episode throughput and harness overhead.

1. Faulted airline episodes per second on one core: scripted agent (``readback``) and
   scripted user, a SuppressWrite fault on each task's first write, reward included,
   ledgers serialised (goal >= 300 per second).
2. Harness overhead against a local OpenAI-compatible endpoint that answers after a
   fixed delay, at concurrency 16, 64 and 256 (``--concurrency``; ``--rounds`` x the
   concurrency episodes each, the endpoint's flow control on as in a study), ledgers
   written to disk: measured wall time against the ideal (rounds x model calls per
   episode x delay); goal within 5% at each. The endpoint is ``testing/delay_server.py``
   in its own process; the CPU the harness and the endpoint spend per request, and the
   load average before each point, are printed beside it.

Usage: python benchmarks/runs.py [--data ../shared/tau-bench] [--delay 0.5] [--rounds 4]
       [--concurrency 16 64 256]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sscbench.agents.openai_agent import openai_agent_factory
from sscbench.agents.scripted import scripted_agent_factory
from sscbench.core.agent import RunContext
from sscbench.core.ledger import ToolEvent
from sscbench.faults.builtin import SuppressWrite
from sscbench.llm.endpoint import OpenAIAgentConfig
from sscbench.run.episode import run_episode
from sscbench.study.folder import StudyDir
from sscbench.testing import text, tool_call
from sscbench.testing.delay_server import DelayServer
from sscbench.users.scripted import scripted_user_factory
from sscbench.world.load import load_world


def airline_world(data: Path):
    """τ-bench's airline world when its data is present, else the generated one."""
    if (data / "airline" / "flights.json").exists():
        return load_world("tau-bench", "airline", data)
    return load_world("generated", "airline")


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


class StopUser:
    """A user that opens with a request and ends the episode at the first reply."""

    async def first_message(self) -> str:
        return "Please look up my profile. My user id is mia_li_3668."

    async def reply(self, ledger) -> str:
        return "Thanks. ###STOP###"


def responder(body: dict) -> dict:
    """Two tool calls, then a text reply: three model calls per episode."""
    tools_seen = sum(1 for m in body["messages"] if m["role"] == "tool")
    if tools_seen < 2:
        return tool_call("get_user_details", {"user_id": "mia_li_3668"})
    return text("Your profile is in order.")


def serve(delay: float) -> None:
    """Run the endpoint in this process until standard input closes (the benchmark's child):
    the cheap asyncio fixed-delay server, so its CPU is neither the client's nor large.
    Each line read from standard input is answered with the CPU seconds used so far."""
    with DelayServer(responder, delay=delay) as server:
        print(server.base_url, flush=True)
        for _line in sys.stdin:
            print(time.process_time(), flush=True)


def _server_cpu(child: subprocess.Popen) -> float:
    """The endpoint process's CPU seconds so far."""
    child.stdin.write("cpu\n")
    child.stdin.flush()
    return float(child.stdout.readline())


async def overhead(
    world, delay: float, episodes: int, out: Path, concurrency: int = 16
) -> tuple[float, float, float, float]:
    """Measured and ideal wall time of ``episodes`` endpoint-driven episodes at ``concurrency``,
    and the CPU seconds the harness (this process) and the endpoint spent meanwhile.

    The endpoint runs in its own process, as a real local server would.
    """
    store = StudyDir(out)
    store.runs.mkdir(parents=True, exist_ok=True)
    task = world.tasks[0]
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--delay", str(delay)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = child.stdout.readline().strip()
        factory = openai_agent_factory(
            OpenAIAgentConfig(base_url=base_url, model="bench", max_retries=0)
        )
        semaphore = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with semaphore:
                context = RunContext(world, task, world.policy, world.tool_schemas(), i, 0)
                result = await run_episode(
                    world,
                    task,
                    factory(context),
                    StopUser(),
                    system_prompt=world.policy,
                    max_steps=10,
                )
                assert result.end is not None and result.end.status == "completed"
                assert sum(isinstance(e, ToolEvent) for e in result.ledger) == 2
                store.write_run(f"run{i}", result.ledger, result.evaluator)

        # warm up: imports, and the client's pool of keep-alive connections
        await asyncio.gather(*(one(-1 - i) for i in range(concurrency)))
        server_before, start, cpu = _server_cpu(child), time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(i) for i in range(episodes)))
        elapsed = time.perf_counter() - start
        client_cpu, server_cpu = time.process_time() - cpu, _server_cpu(child) - server_before
        await factory.aclose()
    finally:
        child.stdin.close()
        child.wait(timeout=30)
    ideal = -(-episodes // concurrency) * 3 * delay
    return elapsed, ideal, client_cpu, server_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parents[2] / "shared" / "tau-bench"
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=4, help="episodes = rounds x concurrency")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.delay)
        return
    world = airline_world(args.data)
    count, elapsed = asyncio.run(throughput(world, args.seconds))
    rate = count / elapsed
    print(
        f"{world.name}: {count} faulted episodes in {elapsed:.2f} s = {rate:,.0f} episodes/s "
        f"(goal >= 300/s): ratio {rate / 300:.2f}x of goal"
    )
    for concurrency in args.concurrency:
        episodes = args.rounds * concurrency
        with tempfile.TemporaryDirectory() as tmp:
            load = os.getloadavg()[0]
            measured, ideal, client_cpu, server_cpu = asyncio.run(
                overhead(world, args.delay, episodes, Path(tmp), concurrency)
            )
        requests = episodes * 3
        print(json.dumps({"episodes": episodes, "concurrency": concurrency, "delay_s": args.delay}))
        print(
            f"endpoint-driven at concurrency {concurrency}, delay {args.delay:g} s: measured "
            f"{measured:.3f} s vs ideal {ideal:.3f} s: ratio {measured / ideal:.3f}, overhead "
            f"{(measured / ideal - 1) * 100:+.2f}% (goal within 5%); CPU per request: harness "
            f"{client_cpu / requests * 1000:.2f} ms, endpoint {server_cpu / requests * 1000:.2f} "
            f"ms ({(client_cpu + server_cpu) / measured:.2f} cores busy of 2); load average "
            f"{load:.2f} before"
        )


if __name__ == "__main__":
    main()
