"""Reset and reward time of the airline world against a τ-bench-style baseline.

Baseline (what τ-bench does): reset re-parses the JSON files; reward reloads the
data, replays the task's ground truth and hashes the whole state twice (the run's
final state and the replayed one). Ours: reset drops a copy-on-write overlay;
reward compares the records that differ from the shared base with the cached
ground-truth changes (the full τ-bench hash stays available and identical).

Usage: python benchmarks/world.py [--data ../shared/tau-bench]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from sscbench.world.hashing import data_hash
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parents[2] / "shared" / "tau-bench"
    parser.add_argument("--data", type=Path, default=default)
    args = parser.parse_args()
    folder = args.data / "airline"
    world = load_taubench_world(args.data, "airline")
    tasks = [t for t in world.tasks if t.actions and not ground_truth(world, t).errors]
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

    def dirty_then_reset() -> None:
        for action in task.actions:
            env.execute(action.name, dict(action.kwargs))
        env.reset()

    def dirty_only() -> None:
        for action in task.actions:
            env.execute(action.name, dict(action.kwargs))
        env.state._overlay = {name: {} for name in env.state._overlay}

    ours_reset = max(best_of(dirty_then_reset, 5, 2000) - best_of(dirty_only, 5, 2000), 1e-9)
    plain_reset = best_of(env.reset, 5, 20000)

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
    print(f"reset   baseline (re-parse JSON) {baseline_reset * 1e3:9.3f} ms")
    print(
        f"reset   ours (after a task's writes) {ours_reset * 1e6:9.3f} µs   "
        f"(clean reset {plain_reset * 1e6:.3f} µs)"
    )
    print(f"reset   ratio {baseline_reset / ours_reset:,.0f}x  (goal >= 1,000x)")
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
