"""Property tests: ordering of events, no-use runs, and independence from evaluator-only order."""

from __future__ import annotations

import asyncio
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sscbench.agents.scripted import scripted_agent_factory
from sscbench.core.agent import RunContext
from sscbench.core.ledger import CalibrationLabels, HarnessError, RunStart
from sscbench.faults.operators.base import case_from
from sscbench.faults.registry import get_operator
from sscbench.measure.study import measure_run
from sscbench.run.episode import run_episode
from sscbench.study.profiles import PROFILES
from sscbench.users.scripted import scripted_user_factory
from sscbench.world.load import load_world

OPERATORS = ("ReturnDate", "ItemOption", "PaySource", "WriteEffect")


@cache
def cases(name: str):
    operator = get_operator(name)
    world = load_world("generated", operator.domain)
    valid = [c for c in operator.enumerate(world) if not operator.validate(c, world)]
    return world, [case_from(operator, c, world) for c in valid[:12]]


def run(name: str, index: int, profile: str, seed: int):
    world, all_cases = cases(name)
    case = all_cases[index % len(all_cases)]
    task = world.task(case.task_id)
    context = RunContext(world, task, world.policy, world.tool_schemas(), seed, seed % 3)
    result = asyncio.run(
        run_episode(
            world,
            task,
            scripted_agent_factory(profile)(context),
            scripted_user_factory(context),
            system_prompt=world.policy,
            injections=get_operator(name).injections(case, world),
            max_steps=case.max_steps,
        )
    )
    return case, result


runs = st.tuples(
    st.sampled_from(OPERATORS),
    st.integers(0, 11),
    st.sampled_from(sorted(PROFILES)),
    st.integers(0, 10_000),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs)
def test_event_order_and_no_use(spec):
    case, result = run(*spec)
    m = measure_run(case, result.ledger, result.evaluator).columns()
    if not m.get("triggered"):
        return
    t_f, t_s, t_u = m["T_F"], m["T_S"], m["T_U"]
    if all(isinstance(v, int) for v in (t_f, t_s, t_u)):
        assert t_f < t_s <= t_u
    if isinstance(t_s, int):
        assert t_f < t_s
    if t_s == "inf":
        assert m["Z_S"] == "no-use"
    if m["Z_S"] == "no-use":
        assert t_s == "inf"
    if m["A"] == 1:
        assert t_u not in ("inf", "not-applicable")
    if m["A"] == 0:
        assert t_u == "not-applicable"  # located only in adopting runs, never ∞


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs, st.randoms(use_true_random=False))
def test_evaluator_order_and_later_records_change_nothing(spec, rnd):
    case, result = run(*spec)
    before = measure_run(case, result.ledger, result.evaluator).columns()
    shuffled = list(result.evaluator)
    rnd.shuffle(shuffled)
    extra = [
        RunStart(
            run_id="x",
            case_id="y",
            config_id="z",
            repetition=9,
            kind="faulted",
            world="w",
            task_id="t",
            max_steps=1,
            seed=1,
        ),
        CalibrationLabels(labels={"uses": [{"step": 1, "fact": "f"}]}),
        HarnessError(where="after", message="appended after the end"),
    ]
    assert measure_run(case, result.ledger, shuffled + extra).columns() == before


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs)
def test_calibration_labels_are_never_read(spec):
    case, result = run(*spec)
    without = [e for e in result.evaluator if not isinstance(e, CalibrationLabels)]
    assert measure_run(case, result.ledger, without) == measure_run(
        case, result.ledger, result.evaluator
    )
