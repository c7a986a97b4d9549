"""The LLM use classifier over a local OpenAI-compatible server."""

from __future__ import annotations

import asyncio

from sscbench.agents.scripted import scripted_agent_factory
from sscbench.core.agent import RunContext
from sscbench.faults.operators.base import case_from
from sscbench.faults.registry import get_operator
from sscbench.llm.endpoint import EndpointConfig
from sscbench.measure.classifier import LLMClassifier
from sscbench.measure.study import measure_run
from sscbench.run.episode import run_episode
from sscbench.testing import Fail, OpenAIServer, text
from sscbench.users.scripted import scripted_user_factory
from sscbench.world.load import load_world


def _faulted_run():
    operator = get_operator("WriteEffect")
    world = load_world("generated", "airline")
    candidate = next(c for c in operator.enumerate(world) if not operator.validate(c, world))
    case = case_from(operator, candidate, world)
    task = world.task(case.task_id)
    context = RunContext(world, task, world.policy, world.tool_schemas(), 0, 0)
    result = asyncio.run(
        run_episode(
            world,
            task,
            scripted_agent_factory("tell_then_readback")(context),
            scripted_user_factory(context),
            system_prompt=world.policy,
            injections=operator.injections(case, world),
            max_steps=60,
        )
    )
    return case, result


def test_llm_labels_are_used_and_see_the_numbered_trajectory():
    case, result = _faulted_run()
    rule = measure_run(case, result.ledger, result.evaluator).columns()
    with OpenAIServer(lambda body: text('{"label": "verification", "reason": "checks"}')) as server:
        judge = LLMClassifier(EndpointConfig(base_url=server.base_url, model="judge"))
        try:
            llm = measure_run(case, result.ledger, result.evaluator, judge).columns()
        finally:
            judge.close()
        prompt = server.requests[0]["messages"][1]["content"]
    assert rule["A"] == 1
    # a check is a dependent use (Def. 3.2), never reliance (Def. 3.3): T_S, not T_U
    first = llm["evidence"]["uses"][0]["step"]
    assert llm["A"] == 0 and llm["T_S"] == first and llm["T_U"] == "not-applicable"
    assert llm["Z_S"] in ("pre", "late", "absent")
    assert all(
        u["label"] == "verification" and u["reason"].startswith("llm:")
        for u in llm["evidence"]["uses"]
    )
    assert "[0] system" in prompt and "Contract:" in prompt
    assert "intervention" not in prompt  # only the model-visible trajectory is shown


def test_unparseable_answer_is_undecidable_and_failure_is_missing():
    case, result = _faulted_run()
    with OpenAIServer(lambda body: text("I think it is fine")) as server:
        judge = LLMClassifier(EndpointConfig(base_url=server.base_url, model="judge"))
        try:
            row = measure_run(case, result.ledger, result.evaluator, judge).columns()
        finally:
            judge.close()
    assert row["A"] == "undecidable" and row["T_S"] == "undecidable"
    with OpenAIServer(lambda body: Fail(503)) as server:
        judge = LLMClassifier(
            EndpointConfig(
                base_url=server.base_url, model="judge", max_retries=1, backoff_initial=0.01
            )
        )
        try:
            row = measure_run(case, result.ledger, result.evaluator, judge).columns()
        finally:
            judge.close()
    assert row["Z_S"] == "measurement-missing" and "classifier" in row["error"]
