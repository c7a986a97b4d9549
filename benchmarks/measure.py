"""Measurements per second on 60-step ledgers (goal >= 2,000 per second on one core).

Faulted runs of the four operators are produced with scripted profiles on the
generated world; each ledger is brought to 60 events with additional reads of the
user's profile after the fault (real observations), then measured repeatedly.
The baseline is the goal rate itself: the ratio printed is measured / 2,000.

Usage: python benchmarks/measure.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from sscbench.agents.scripted import scripted_agent_factory
from sscbench.core.agent import RunContext
from sscbench.core.ledger import AssistantEvent, ToolCall, ToolEvent
from sscbench.faults.operators.base import case_from
from sscbench.faults.registry import get_operator
from sscbench.measure.study import measure_run
from sscbench.run.episode import run_episode
from sscbench.users.scripted import scripted_user_factory
from sscbench.world.load import load_world

LENGTH = 60


def padded(ledger: list, world, user_id: str) -> list:
    """The ledger with profile reads inserted before its last event, to LENGTH events."""
    observation = world.new_env().execute("get_user_details", {"user_id": user_id}).observation
    head, tail = ledger[:-1], ledger[-1:]
    while len(head) + len(tail) + 2 <= LENGTH:
        step = len(head)
        call = ToolCall(
            id=f"pad{step}", name="get_user_details", arguments=json.dumps({"user_id": user_id})
        )
        head.append(AssistantEvent(step=step, tool_calls=(call,)))
        head.append(
            ToolEvent(step=step + 1, tool_call_id=call.id, name=call.name, content=observation)
        )
    return [e.model_copy(update={"step": i}) for i, e in enumerate(head + tail)]


def corpus() -> list[tuple]:
    """(case, ledger, evaluator) of faulted scripted runs, 60 events each."""
    out = []
    for name in ("ReturnDate", "ItemOption", "PaySource", "WriteEffect"):
        operator = get_operator(name)
        world = load_world("generated", operator.domain)
        valid = [c for c in operator.enumerate(world) if not operator.validate(c, world)][:5]
        for candidate in valid:
            case = case_from(operator, candidate, world)
            task = world.task(case.task_id)
            for profile in ("trusting", "readback", "tell_then_readback", "product_lookup"):
                context = RunContext(world, task, world.policy, world.tool_schemas(), 1, 0)
                result = asyncio.run(
                    run_episode(
                        world,
                        task,
                        scripted_agent_factory(profile)(context),
                        scripted_user_factory(context),
                        system_prompt=world.policy,
                        injections=operator.injections(case, world),
                        max_steps=60,
                    )
                )
                if len(result.ledger) <= LENGTH:
                    ledger = padded(list(result.ledger), world, task.user_id)
                    out.append((case, ledger, result.evaluator))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    runs = corpus()
    assert all(len(ledger) == LENGTH for _, ledger, _ in runs)
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        case, ledger, evaluator = runs[count % len(runs)]
        measure_run(case, ledger, evaluator)
        count += 1
    rate = count / (time.perf_counter() - start)
    print(f"{len(runs)} distinct {LENGTH}-step faulted ledgers, {count} measurements")
    print(f"measurements per second: {rate:,.0f} (goal >= 2,000): ratio {rate / 2000:.2f}x of goal")


if __name__ == "__main__":
    main()
