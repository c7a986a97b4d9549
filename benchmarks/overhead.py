"""Harness overhead against a fixed-delay endpoint, with a breakdown of where it goes.

The endpoint is ``testing/delay_server.py`` in its own process (as a real local server
would be), answering each request a fixed ``--delay`` after it arrived: two tool calls,
then a text, so three model calls per episode. At each concurrency (64 and 256 by
default), ``--rounds`` x the concurrency episodes are run, alternately, by

* a **bare client**: one aiohttp pool POSTing the same three requests per episode
  (the episodes' own bodies, replayed), decoding each answer, nothing else; and
* the **harness**: ``run_episode`` with the OpenAI agent (its transport, flow control
  and retries as in a study) and each run's two files written to a study folder.

Both go through the same endpoint process in the same minute, so the ratio of their wall
times is the harness's overhead with the machine's and the endpoint's own cost taken out
(the ideal, rounds x 3 x delay, is printed beside). Each configuration is run
``--repeat`` times; medians are printed with the load average. The harness's breakdown:
time requests waited for a pooled connection (aiohttp's connection-queued trace), time
writing run files, event-loop lag (a probe that sleeps 5 ms and records how late it
woke), the answers' time beyond the endpoint's delay (the bare client's beside it: both
carry the same request trace, so the probe's own cost is on both sides), and the
harness's CPU per request, split into the event loop's thread and the others (the run
writer's: they share the interpreter lock with the loop).
The probes are in ``benchmarks/overhead_probes.py``.

Usage: python benchmarks/overhead.py [--delay 0.5] [--rounds 4] [--repeat 3]
       [--concurrency 64 256] [--store auto|files|shards]
       [--executor processes [--workers 2]]

``--store`` names where the harness's runs go (default ``auto``: the layout
:func:`~sscbench.study.runfiles.choose_layout` gives a study of the benchmark's runs,
printed before each concurrency's lines).

``--executor processes`` measures a whole study instead, made by one process and by
``--workers`` child processes (``benchmarks/overhead_study.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from overhead_probes import GcProbe, LagProbe, TimedJournal, Trace

from sscbench.agents.openai_agent import openai_agent_factory
from sscbench.core.agent import RunContext
from sscbench.core.ledger import ToolEvent
from sscbench.llm.endpoint import OpenAIAgentConfig
from sscbench.llm.journal import JournalBook
from sscbench.llm.transport import request_bytes
from sscbench.reading import loads_json
from sscbench.run.episode import run_episode
from sscbench.run.heap import runs_heap
from sscbench.run.writer import RunWriter
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.runfiles import choose_layout
from sscbench.testing import text, tool_call
from sscbench.testing.delay_server import DelayServer
from sscbench.world.load import load_world

CALLS = 3
"""Model calls per episode (two tool calls, then a text)."""
OFFLOAD = [True]
"""Whether the harness's writer offloads the run files (``--writes``; a study: yes)."""
STORE = ["auto"]
"""Where the harness's runs go (``--store``): ``files``, ``shards``, or ``auto``, what
:func:`~sscbench.study.runfiles.choose_layout` picks for a study of the benchmark's runs."""


def study_store(out: Path, runs: int, concurrency: int) -> StudyDir:
    """The harness's study folder, its runs kept in the layout ``--store`` names (``auto``:
    the one a study of ``runs`` runs made ``concurrency`` at a time records)."""
    store = StudyDir(out)
    store.runs.mkdir(parents=True, exist_ok=True)
    store.layout = choose_layout(STORE[0], runs, concurrency)
    return store


def airline_world(data: Path):
    """τ-bench's airline world when its data is present, else the generated one."""
    if (data / "airline" / "flights.json").exists():
        return load_world("tau-bench", "airline", data)
    return load_world("generated", "airline")


class StopUser:
    """A user that opens with a request and ends the episode at the first reply."""

    async def first_message(self) -> str:
        """The opening request."""
        return "Please look up my profile. My user id is mia_li_3668."

    async def reply(self, ledger) -> str:
        """Stop at the agent's first reply."""
        return "Thanks. ###STOP###"


def responder(body: dict) -> dict:
    """Two tool calls, then a text reply: three model calls per episode."""
    tools_seen = sum(1 for m in body["messages"] if m["role"] == "tool")
    if tools_seen < 2:
        return tool_call("get_user_details", {"user_id": "mia_li_3668"})
    return text("Your profile is in order.")


def serve(delay: float) -> None:
    """Run the endpoint in this process until standard input closes (the benchmark's
    child). Each line read from standard input is answered with the CPU seconds used."""
    with DelayServer(responder, delay=delay) as server:
        print(server.base_url, flush=True)
        for _line in sys.stdin:
            print(time.process_time(), flush=True)


class Endpoint:
    """The fixed-delay endpoint in a child process: its base URL and its CPU seconds."""

    def __init__(self, delay: float):
        self.child = subprocess.Popen(
            [sys.executable, __file__, "--serve", "--delay", str(delay)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.child.stdout is not None
        self.base_url = self.child.stdout.readline().strip()

    def cpu(self) -> float:
        """The endpoint process's CPU seconds so far."""
        assert self.child.stdin is not None and self.child.stdout is not None
        self.child.stdin.write("cpu\n")
        self.child.stdin.flush()
        return float(self.child.stdout.readline())

    def close(self) -> None:
        """Stop the endpoint."""
        assert self.child.stdin is not None
        self.child.stdin.close()
        self.child.wait(timeout=30)


def episode_bodies(agent: Any, ledger: list) -> list[bytes]:
    """The request bodies an agent sent in an episode: one per assistant turn, rebuilt
    from the ledger prefix it saw (what the bare client replays)."""
    from sscbench.core.ledger import AssistantEvent

    return [
        request_bytes(agent.request(agent.messages(ledger[:i])))
        for i, event in enumerate(ledger)
        if isinstance(event, AssistantEvent)
    ]


async def bare(
    base_url: str, bodies: list[bytes], episodes: int, concurrency: int, trace: Trace
) -> tuple[float, float]:
    """Wall and CPU seconds of ``episodes`` bare-client episodes (each POSTs ``bodies`` in turn and
    decodes the answers) at ``concurrency``, after a warm-up filling the pool. Its requests
    carry the same ``trace`` as the harness's (the probe's cost is on both sides)."""
    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench"}
    url = base_url + "/chat/completions"
    semaphore = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(
        connector=connector, headers=headers, trace_configs=[trace.config()]
    ) as session:

        async def one() -> None:
            async with semaphore:
                for body in bodies:
                    async with session.post(url, data=body) as answer:
                        loads_json(await answer.read(), max_depth=None)

        await asyncio.gather(*(one() for _ in range(concurrency)))
        trace.reset()
        start, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one() for _ in range(episodes)))
        return time.perf_counter() - start, time.process_time() - cpu


@dataclass
class HarnessRun:
    """One measured harness run: wall and CPU seconds and the breakdown."""

    wall_s: float
    cpu_s: float
    loop_cpu_s: float
    endpoint_cpu_s: float
    write_s: float
    pool_wait_s: float
    beyond_delay_s: float
    lag: dict[str, float]
    bodies: list[bytes]


async def harness(
    world: Any, endpoint: Endpoint, delay: float, episodes: int, concurrency: int, out: Path
) -> HarnessRun:
    """``episodes`` endpoint-driven episodes at ``concurrency`` through the harness, after a
    warm-up of one round. Each run is recorded as a study records it: a line per answer
    in the process's journal book (``runs/journal-*.book.jsonl``), the run's end told to
    the book, then one job on the study's writer (its text, timing line, index line, the
    journals told) asked for before the episode lets its concurrency slot go, written
    behind; the wall ends when every run is recorded."""
    store = study_store(out, episodes, concurrency)
    writer = RunWriter(store, offload=OFFLOAD[0], pending=concurrency, hold_files=True)
    book = JournalBook(store.runs)
    task = world.tasks[0]
    factory = openai_agent_factory(
        OpenAIAgentConfig(base_url=endpoint.base_url, model="bench", max_retries=0)
    )
    trace, probe, collector = Trace(), LagProbe(), GcProbe()
    factory.clients.get().trace_configs.append(trace.config())
    semaphore = asyncio.Semaphore(concurrency)
    writes: list[float] = []
    bodies: list[bytes] = []

    async def one(i: int) -> None:
        async with semaphore:
            run_id = f"run{i}"
            journal = TimedJournal(book, run_id)
            tools = world.tool_schemas()
            context = RunContext(world, task, world.policy, tools, i, 0, journal=journal)
            agent = factory(context)
            result = await run_episode(
                world, task, agent, StopUser(), system_prompt=world.policy, max_steps=10
            )
            assert result.end is not None and result.end.status == "completed"
            assert sum(isinstance(e, ToolEvent) for e in result.ledger) == 2
            journal.ended()
            began = time.perf_counter()

            def entry_of(digests: tuple[str, str]) -> IndexEntry:
                return IndexEntry(
                    run_id=run_id,
                    case_id="bench",
                    config_id="bench",
                    repetition=0,
                    kind="clean",
                    status="completed",
                    ledger_sha256=digests[0],
                    evaluator_sha256=digests[1],
                )

            def then(entry: IndexEntry) -> None:
                writes.append(time.perf_counter() - began)

            # as the executor's worker: the record asked for, the slot let go before it is
            # written (after waiting for room when `concurrency` records are pending)
            await writer.record_run(
                run_id, result.ledger, result.evaluator, 0.0, entry_of, run_id, then
            )
            if not bodies:
                bodies.extend(episode_bodies(agent, result.ledger))

    try:
        await asyncio.gather(*(one(-1 - i) for i in range(concurrency)))
        await writer.drain()
        writes.clear()
        TimedJournal.spent[0] = 0.0
        trace.reset()
        probe.start()
        collector.start()
        server_before, start, cpu = endpoint.cpu(), time.perf_counter(), time.process_time()
        loop_cpu = time.thread_time()
        await asyncio.gather(*(one(i) for i in range(episodes)))
        await writer.drain()  # as the executor's drain: every run recorded
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        loop_cpu = time.thread_time() - loop_cpu
        probe.stop()
        collector.stop()
        server_cpu = endpoint.cpu() - server_before
    finally:
        await factory.aclose()
        await writer.aclose()
        book.close()
    beyond = sum(max(0.0, s - delay) for s in trace.answer_s)
    lag = probe.summary() | {
        "journal_s": TimedJournal.spent[0],
        "gc_s": sum(collector.paused),
        "gc2_s": collector.paused[2],
        "gc2_count": collector.counts[2],
    }
    return HarnessRun(
        wall, cpu, loop_cpu, server_cpu, sum(writes), trace.pool_wait_s, beyond, lag, bodies
    )


def episode_bodies_for_chain(data: Path, endpoint: Endpoint, chain: int) -> list[bytes]:
    """The bare client's request bodies of one episode (one harness episode's), when an
    episode makes ``chain`` = 3 requests; else none (no like-for-like baseline)."""
    if chain != CALLS:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        run = asyncio.run(harness(airline_world(data), endpoint, 0.0, 1, 1, Path(tmp)))
    return run.bodies


def measure(world: Any, delay: float, rounds: int, concurrency: int) -> dict[str, float]:
    """One harness run and one bare-client run at ``concurrency`` through one endpoint
    process; their walls, the overhead and the harness's breakdown."""
    episodes = rounds * concurrency
    requests = episodes * CALLS
    endpoint = Endpoint(delay)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            run = asyncio.run(harness(world, endpoint, delay, episodes, concurrency, Path(tmp)))
        traced = Trace()
        baseline, bare_cpu = asyncio.run(
            bare(endpoint.base_url, run.bodies, episodes, concurrency, traced)
        )
    finally:
        endpoint.close()
    return {
        "baseline_s": baseline,
        "harness_s": run.wall_s,
        "overhead_pct": (run.wall_s / baseline - 1) * 100,
        "vs_ideal_pct": (run.wall_s / (rounds * CALLS * delay) - 1) * 100,
        "baseline_vs_ideal_pct": (baseline / (rounds * CALLS * delay) - 1) * 100,
        "pool_wait_ms": run.pool_wait_s / requests * 1000,
        "beyond_delay_ms": run.beyond_delay_s / requests * 1000,
        "bare_beyond_delay_ms": sum(max(0.0, s - delay) for s in traced.answer_s) / requests * 1000,
        "write_ms": run.write_s / episodes * 1000,
        "journal_ms": run.lag["journal_s"] / requests * 1000,
        "write_total_s": run.write_s,
        "cpu_ms": run.cpu_s / requests * 1000,
        "loop_cpu_ms": run.loop_cpu_s / requests * 1000,
        "bare_cpu_ms": bare_cpu / requests * 1000,
        "endpoint_cpu_ms": run.endpoint_cpu_s / requests * 1000,
        **run.lag,
    }


def report(concurrency: int, delay: float, rows: list[dict[str, float]], load: float) -> str:
    """The medians of ``rows`` as lines of text."""
    m = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    each = ", ".join(f"{row['overhead_pct']:+.1f}%" for row in rows)
    return (
        f"concurrency {concurrency}, delay {delay:g} s ({len(rows)} runs, load average "
        f"{load:.2f} before): baseline (bare client) {m['baseline_s']:.3f} s, harness "
        f"{m['harness_s']:.3f} s: overhead {m['overhead_pct']:+.2f}% (median; each {each}; "
        f"goal <= 5%); vs ideal: harness {m['vs_ideal_pct']:+.2f}%, baseline "
        f"{m['baseline_vs_ideal_pct']:+.2f}%\n"
        f"  breakdown (medians): pool wait {m['pool_wait_ms']:.3f} ms/request; answer beyond "
        f"the delay {m['beyond_delay_ms']:.2f} ms/request (bare client "
        f"{m['bare_beyond_delay_ms']:.2f}); journal lines {m['journal_ms']:.2f} "
        f"ms/request; run record, asked to indexed (behind the slot) {m['write_ms']:.3f} "
        f"ms/run ({m['write_total_s']:.3f} s in all); garbage collection {m['gc_s']:.3f} s in all "
        f"({m['gc2_count']:.0f} full collections, {m['gc2_s']:.3f} s); loop lag {m['lag_total_s']:.3f} s in "
        f"all (p99 {m['lag_p99_ms']:.1f} ms, max {m['lag_max_ms']:.1f} ms); CPU per request: "
        f"harness {m['cpu_ms']:.2f} ms (event-loop thread {m['loop_cpu_ms']:.2f} ms, "
        f"writer threads {m['cpu_ms'] - m['loop_cpu_ms']:.2f} ms), bare client {m['bare_cpu_ms']:.2f} ms, endpoint {m['endpoint_cpu_ms']:.2f} ms"
    )


def main() -> None:
    """Measure and print each concurrency's overhead and breakdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parents[2] / "shared" / "tau-bench"
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=4, help="episodes = rounds x concurrency")
    parser.add_argument("--repeat", type=int, default=3, help="runs per concurrency (median)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--writes", choices=["thread", "inline"], default="thread")
    parser.add_argument(
        "--store",
        choices=["auto", "files", "shards"],
        default="auto",
        help="where the harness's runs go (auto: what a study of the benchmark's runs picks)",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--executor",
        choices=["local", "processes"],
        default="local",
        help="processes: a whole study, made by one process and by --workers children",
    )
    parser.add_argument("--workers", type=int, default=2, help="children (--executor processes)")
    args = parser.parse_args()
    OFFLOAD[0] = args.writes == "thread"
    STORE[0] = args.store
    if args.serve:
        serve(args.delay)
        return
    if args.executor == "processes":
        from overhead_study import Baseline, print_study_overheads

        base = Baseline(Endpoint, episode_bodies_for_chain)
        print_study_overheads(
            base,
            args.data,
            args.delay,
            args.rounds,
            args.concurrency,
            args.repeat,
            args.workers,
            args.store,
        )
        return
    world = airline_world(args.data)
    print_overheads(world, args.delay, args.rounds, args.concurrency, args.repeat)


def print_overheads(
    world: Any, delay: float, rounds: int, concurrencies: list[int], repeat: int
) -> None:
    """Measure and print, per concurrency, the overhead and its breakdown (medians of
    ``repeat`` runs); ``benchmarks/runs.py`` prints the same after its throughput."""
    with runs_heap():  # as a study's runs have it
        for concurrency in concurrencies:
            load = os.getloadavg()[0]
            layout = choose_layout(STORE[0], rounds * concurrency, concurrency)
            how = "--store" if STORE[0] != "auto" else "auto: what a study of these runs picks"
            runs = f"{rounds * concurrency} runs, {concurrency} at once"
            print(f"store: {layout} ({runs}; {how})", flush=True)
            rows = [measure(world, delay, rounds, concurrency) for _ in range(repeat)]
            print(report(concurrency, delay, rows, load), flush=True)


if __name__ == "__main__":
    main()
