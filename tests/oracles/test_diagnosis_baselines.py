"""The three trajectory-diagnosis baselines on one hand-made trajectory, each served by
the scripted local endpoint: how their answers become verdicts, and the calls they make."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
from sscbench.llm.endpoint import EndpointConfig
from sscbench.oracles import registry
from sscbench.oracles.base import OracleContext, OracleSettings
from sscbench.oracles.diagnosis_prompts import parse_anomalies, parse_failing_step
from sscbench.oracles.inputs import call_stats, inputs_of
from sscbench.testing import Fail, OpenAIServer, text

LEDGER = [
    SystemEvent(step=0, content="policy"),
    UserEvent(step=1, content="when do I fly back?"),
    AssistantEvent(
        step=2,
        tool_calls=(ToolCall(id="c1", name="get_reservation_details", arguments="{}"),),
    ),
    ToolEvent(step=3, tool_call_id="c1", name="get_reservation_details", content='{"r": 26}'),
    AssistantEvent(step=4, content="You return on the 26th."),
    UserEvent(step=5, content="thanks, change it to the 28th"),
    AssistantEvent(step=6, content="Done."),
]
AGENT_STEPS = [2, 4, 6]


def _run() -> OracleContext:
    case = SimpleNamespace(contract=None)  # the baselines never read the case
    return OracleContext("run-1", case, LEDGER, [{"name": "t"}], "POLICY")  # type: ignore[arg-type]


def _judge(name: str, answer):
    """The named baseline's verdict on the run, ``answer`` a responder or one reply."""
    server = OpenAIServer(answer if callable(answer) else lambda body: answer).start()
    config = EndpointConfig(base_url=server.base_url, model="toy", max_retries=0)
    oracle = registry.make_oracle(name, OracleSettings(endpoint=config))
    try:
        return oracle.judge(_run())
    finally:
        oracle.close()
        server.stop()


def _bodies():
    bodies: list[dict] = []

    def record(answer):
        def responder(body):
            bodies.append(body)
            return answer(body) if callable(answer) else answer

        return responder

    return bodies, record


def test_any_anomaly_is_a_positive_verdict_at_the_earliest_anomaly():
    bodies, record = _bodies()
    listed = {"anomalies": [{"step": 4, "description": "b"}, {"step": 3, "description": "a"}]}
    verdict = _judge("anomaly-judge", record(text(json.dumps(listed))))
    assert (verdict.adopted, verdict.t_u, verdict.calls) == (True, 3, 1)
    assert verdict.reason == "a (+1 more)" and len(bodies) == 1
    assert "[4] assistant: You return on the 26th." in bodies[0]["messages"][1]["content"]
    verdict = _judge("anomaly-judge", text('{"anomalies": []}'))
    assert (verdict.adopted, verdict.t_u, verdict.abstention) == (False, None, None)


def test_an_unparsable_or_failed_answer_is_an_abstention_not_a_negative():
    verdict = _judge("anomaly-judge", text('{"anomalies": [{"step": 99}]}'))
    assert verdict.adopted is None and "no step of the trajectory" in verdict.abstention
    verdict = _judge("attribution-all-at-once", Fail(500, "scripted failure"))
    assert verdict.adopted is None and verdict.abstention.startswith("call failed")
    assert verdict.calls == 1


def test_all_at_once_makes_one_call_over_the_whole_trajectory():
    bodies, record = _bodies()
    verdict = _judge("attribution-all-at-once", record(text('{"failing_step": 4}')))
    assert (verdict.adopted, verdict.t_u, verdict.calls) == (True, 4, 1) and len(bodies) == 1
    assert "[6] assistant: Done." in bodies[0]["messages"][1]["content"]  # the whole run
    verdict = _judge("attribution-all-at-once", text('{"failing_step": null, "reason": "ok"}'))
    assert (verdict.adopted, verdict.t_u, verdict.calls) == (False, None, 1)


def test_step_by_step_stops_at_the_first_yes_and_counts_its_calls():
    bodies, record = _bodies()

    def answer(body):
        review = body["messages"][1]["content"].rsplit("Step under review: [", 1)[1]
        return text(json.dumps({"error": review.startswith("4]"), "reason": "r"}))

    verdict = _judge("attribution-step-by-step", record(answer))
    assert (verdict.adopted, verdict.t_u, verdict.calls) == (True, 4, 2)
    assert len(bodies) == 2  # steps 2 and 4 asked; step 6 never
    first, second = (b["messages"][1]["content"] for b in bodies)
    assert "[3] tool" not in first and "[3] tool" in second  # later steps are not shown
    assert "[5] user" not in second
    verdict = _judge("attribution-step-by-step", text('{"error": false}'))
    assert (verdict.adopted, verdict.calls) == (False, len(AGENT_STEPS))


def test_step_by_step_abstains_with_the_calls_made_when_a_call_fails():
    answers = iter([text('{"error": false}'), Fail(500, "scripted failure")])
    verdict = _judge("attribution-step-by-step", lambda body: next(answers))
    assert verdict.adopted is None and verdict.calls == 2
    assert verdict.abstention.startswith("call failed:") and "(at step 4)" in verdict.abstention


@pytest.mark.parametrize(
    ("name", "calls", "paper"),
    [
        ("anomaly-judge", "one per trajectory", "B1"),
        ("attribution-all-at-once", "one per trajectory", "B3"),
        ("attribution-step-by-step", "one per agent step, up to the first yes", "B3"),
    ],
)
def test_each_baseline_declares_the_l0_inputs_and_its_calls(name, calls, paper):
    config = EndpointConfig(base_url="http://127.0.0.1:9", model="toy")
    oracle = registry.make_oracle(name, OracleSettings(endpoint=config))
    try:
        declared = inputs_of(oracle)
    finally:
        oracle.close()
    assert declared is not None and declared.calls == calls and declared.paper.startswith(paper)
    assert (declared.numbered_trajectory, declared.tool_schema, declared.policy) == (True,) * 3
    assert not declared.relation_contract and not declared.mined_invariants


def test_strict_parsers_refuse_what_is_not_their_answer():
    with pytest.raises(ValueError, match="expected the keys"):
        parse_failing_step('{"adopted": true}', {1})
    with pytest.raises(ValueError, match="step number"):
        parse_anomalies('{"anomalies": [{"step": true}]}', {1})
    assert parse_failing_step('```json\n{"failing_step": 1}\n```', {1}) == (1, "")


def test_call_stats_count_calls_per_judged_trajectory():
    assert call_stats([1, 3, None, 2]) == {"judged": 4, "total": 6, "per_trajectory": 1.5, "max": 3}
    assert call_stats([]) == {"judged": 0, "total": 0, "per_trajectory": None, "max": 0}


def test_an_endpoint_that_never_answers_stops_the_step_by_step_judge():
    from sscbench.errors import EndpointUnreachable

    config = EndpointConfig(base_url="http://127.0.0.1:9/v1", model="toy", max_retries=0)
    oracle = registry.make_oracle("attribution-step-by-step", OracleSettings(endpoint=config))
    try:
        with pytest.raises(EndpointUnreachable):
            for _ in range(3):  # each run's first call fails to connect; then it stops
                oracle.judge(_run())
    finally:
        oracle.close()
