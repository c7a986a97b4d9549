"""Reset and reward time of the airline world against a τ-bench-style baseline.

Baseline (what τ-bench does): reset re-parses the JSON files; reward reloads the
data, replays the task's ground truth and hashes the whole state twice (the run's
final state and the replayed one). Ours: reset drops a copy-on-write overlay;
reward compares the records that differ from the shared base with the cached
ground-truth changes (the full τ-bench hash stays available and identical).

Both resets give a fresh initial state. Ours is timed one call at a time with
``time.perf_counter_ns`` right after a task's ground-truth writes (the writes are not
timed), cycling over every airline task that writes, and reported as the median and
90th percentile of those samples; the timer's own cost (an empty timed region, a few
tens of ns) is measured and stated, not subtracted, so our figure is if anything too
high and the ratio too low.

Usage: python benchmarks/world.py [--data DIR]   (default: the packaged τ-bench data)
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from sscbench.world.hashing import data_hash
from sscbench.world.packaged import packaged_taubench
from sscbench.world.reward import compute_reward, ground_truth
from sscbench.world.state import BaseData, WorldState
from sscbench.world.taubench import load_taubench_world

TABLES = ("flights", "reservations", "users")


def best_of(fn, repeat: int, number: int) -> float:
    """Smallest mean time per call over ``repeat`` batches of ``number`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def reset_samples(env, tasks, samples: int) -> list[int]:
    """Nanoseconds of single ``env.reset()`` calls, each right after a task's writes."""
    out = []
    for index in range(samples):
        task = tasks[index % len(tasks)]
        for action in task.actions:
            env.execute(action.name, dict(action.kwargs))
        start = time.perf_counter_ns()
        env.reset()
        out.append(time.perf_counter_ns() - start)
    return out


def timer_overhead(samples: int) -> int:
    """Median nanoseconds of an empty timed region (the cost of the timing itself)."""
    out = []
    for _ in range(samples):
        start = time.perf_counter_ns()
        out.append(time.perf_counter_ns() - start)
    return int(statistics.median(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args()
    data = args.data if args.data is not None else packaged_taubench()
    folder = data / "airline"
    world = load_taubench_world(data, "airline")
    tasks = [t for t in world.tasks if t.actions and not ground_truth(world, t).errors]
    writers = [
        t for t in tasks if any(world.tools.specs[a.name].kind == "write" for a in t.actions)
    ]
    world._expected.clear()

    def parse() -> dict:
        out = {}
        for table in TABLES:
            with (folder / f"{table}.json").open() as handle:
                out[table] = json.load(handle)
        return out

    # ---- reset -----------------------------------------------------------------------
    baseline_reset = best_of(parse, repeat=3, number=5)
    env = world.new_env()
    task = tasks[0]
    reset_samples(env, writers, 200)  # warm-up
    samples = reset_samples(env, writers, 5000)
    ours_reset = statistics.median(samples) / 1e9
    ours_p90 = statistics.quantiles(samples, n=10)[-1] / 1e9
    overhead = timer_overhead(5000)
    clean_batch = best_of(env.reset, 5, 20000)  # reset of an already clean env, in batches

    # ---- reward ----------------------------------------------------------------------
    def baseline_reward(task=task) -> bool:
        final = WorldState(BaseData(parse()))
        for action in task.actions:
            final_env_execute(final, action)
        h1 = data_hash(final.to_dict())
        replay = WorldState(BaseData(parse()))
        for action in task.actions:
            final_env_execute(replay, action)
        return h1 == data_hash(replay.to_dict())

    def final_env_execute(state: WorldState, action) -> None:
        spec = world.tools.specs[action.name]
        if not spec.ends_episode:
            spec.func(state, **action.kwargs)

    baseline = best_of(baseline_reward, repeat=3, number=2)
    for action in task.actions:
        env.execute(action.name, dict(action.kwargs))
    world._expected.clear()
    start = time.perf_counter()
    assert compute_reward(world, task, env.state, []).state_matches
    cold = time.perf_counter() - start
    warm = best_of(lambda: compute_reward(world, task, env.state, []), 5, 2000)
    assert env.db_hash() == data_hash(env.state.to_dict())

    print(
        f"airline world: {len(world.base.tables['flights'])} flights, "
        f"{len(world.base.tables['reservations'])} reservations, task {task.task_id}"
    )
    print(f"reset   baseline (re-parse JSON, as τ-bench's reset) {baseline_reset * 1e3:9.3f} ms")
    print(
        f"reset   ours after a task's writes: median {ours_reset * 1e6:.3f} µs, "
        f"p90 {ours_p90 * 1e6:.3f} µs over {len(samples)} resets of {len(writers)} tasks "
        f"(timer overhead {overhead} ns included; an already clean env: "
        f"{clean_batch * 1e6:.3f} µs)"
    )
    print(
        f"reset   ratio {baseline_reset / ours_reset:,.0f}x at the median, "
        f"{baseline_reset / ours_p90:,.0f}x at p90  (goal >= 1,000x)"
    )
    print(f"reward  baseline (reload, replay, hash twice) {baseline * 1e3:9.3f} ms")
    print(
        f"reward  ours warm (ground truth cached) {warm * 1e6:9.3f} µs; cold first call "
        f"{cold * 1e3:.3f} ms"
    )
    print(
        f"reward  ratio warm {baseline / warm:,.0f}x, cold {baseline / cold:,.0f}x  (goal >= 200x)"
    )


if __name__ == "__main__":
    main()
