"""Model calls planned: one clean run per case (before) vs one per task (after).

For a study config (default: ``examples/taubench-study.toml``, and the embedded default
study), the plan is built as ``sscbench run`` builds it, without running anything:

* before — the old plan formula: a clean run for every (case, configuration,
  repetition) unit, plus its faulted run;
* after — the shared plan: one clean run per (domain, task, configuration,
  repetition), plus the same faulted runs;
* minimum — what the protocol needs, counted independently of the planner: the
  distinct (domain, task, configuration, repetition) of the cases, plus one faulted run
  per unit.

Runs are episodes; requests are the step-limit upper bound of model calls as if every
configuration called a model (one request per agent turn). Goal: after == minimum.

Usage: python benchmarks/plan.py [CONFIG ...]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sscbench.run.builders import build_cases
from sscbench.run.planning import clean_slots, make_plan
from sscbench.study.config import load_config
from sscbench.study.worlds import build_worlds


def measure(path: Path | None) -> dict:
    """Runs and request bounds of one config, before / after / minimum."""
    config, _ = load_config(path)
    cases = build_cases(config, build_worlds(config))
    plan = make_plan(config, cases)
    slots = clean_slots(plan)
    units = [
        (case, agent.id, r)
        for case in cases
        for agent in config.agents
        for r in range(config.repetitions_of(agent))
    ]
    distinct = {(c.domain, c.task_id, a, r) for c, a, r in units}
    longest: dict[tuple, int] = {}
    for c, a, r in units:
        key = (c.domain, c.task_id, a, r)
        longest[key] = max(longest.get(key, 0), c.max_steps)
    faulted_steps = sum(c.max_steps for c, _, _ in units)
    return {
        "config": str(path or "<default study>"),
        "cases": len(cases),
        "tasks": len({(c.domain, c.task_id) for c in cases}),
        "faulted": len(units),
        "before_clean": len(plan),
        "after_clean": len(slots),
        "minimum_clean": len(distinct),
        "before_requests": 2 * faulted_steps,
        "after_requests": sum(s.max_steps for s in slots) + faulted_steps,
        "minimum_requests": sum(longest.values()) + faulted_steps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parents[1]
    parser.add_argument("configs", nargs="*", type=Path)
    args = parser.parse_args()
    configs = args.configs or [root / "examples" / "taubench-study.toml", None]
    for path in configs:
        m = measure(path)
        before = m["before_clean"] + m["faulted"]
        after = m["after_clean"] + m["faulted"]
        minimum = m["minimum_clean"] + m["faulted"]
        print(
            f"{m['config']}: {m['cases']} cases on {m['tasks']} tasks, {m['faulted']} faulted runs"
        )
        print(
            f"  clean runs: before {m['before_clean']}, after {m['after_clean']}, minimum "
            f"{m['minimum_clean']} ({1 - m['after_clean'] / m['before_clean']:.0%} fewer)"
        )
        print(
            f"  runs (model-call episodes): before {before}, after {after}, minimum {minimum}: "
            f"after/minimum = {after / minimum:.3f}, before/minimum = {before / minimum:.3f} "
            f"({1 - after / before:.0%} of the old plan's calls saved)"
        )
        print(
            f"  requests (step-limit bound): before {m['before_requests']}, after "
            f"{m['after_requests']}, minimum {m['minimum_requests']}: after/minimum = "
            f"{m['after_requests'] / m['minimum_requests']:.3f}"
            + ("  [goal after == minimum: met]" if after == minimum else "  [goal NOT met]")
        )


if __name__ == "__main__":
    main()
