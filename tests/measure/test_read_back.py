"""The read-back step: a later read of the affected record, never the fault-bearing read itself.

A read-back is an action the agent takes *after* the fault reached it (the paired
read-back-cue check counts it apart from T_E). The read that delivered the fault was
issued before the agent saw v′, so it is never its own read-back — for a read operator
its tool is one of the contract's acquisition tools and names the target, which is what
makes the bound easy to get wrong by one.
"""

from __future__ import annotations

import json

from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
from sscbench.core.values import INF
from sscbench.core.view import LedgerView
from sscbench.faults.operators.base import case_from
from sscbench.faults.registry import get_operator
from sscbench.measure.reconstruct import read_back
from sscbench.world.load import load_world


def _contract(name: str):
    operator = get_operator(name)
    world = load_world("generated", operator.domain)
    candidate = next(c for c in operator.enumerate(world) if not operator.validate(c, world))
    return case_from(operator, candidate, world).contract


def _ledger(calls: list[tuple[str, dict]]) -> list:
    events: list = [SystemEvent(step=0, content="policy"), UserEvent(step=1, content="hi")]
    for name, arguments in calls:
        step = len(events)
        call = ToolCall(id=f"c{step}", name=name, arguments=json.dumps(arguments))
        events.append(AssistantEvent(step=step, tool_calls=(call,)))
        events.append(ToolEvent(step=step + 1, tool_call_id=call.id, name=name, content="{}"))
    return events


def _fault_read(contract) -> tuple[str, dict]:
    return contract.fault_interaction.tool, dict(contract.fault_interaction.match)


def test_the_fault_bearing_read_is_not_its_own_read_back() -> None:
    for name in ("ItemOption", "ReturnDate", "PaySource"):
        contract = _contract(name)
        events = _ledger([_fault_read(contract)])
        t_f = 3  # the fault-bearing observation: the first call (step 2) answered at step 3
        assert contract.fault_interaction.tool in {r.tool for r in contract.acquisition}
        assert read_back(contract, LedgerView(events), t_f) == INF, name


def test_a_read_issued_with_the_fault_bearing_one_is_not_a_read_back() -> None:
    """Two calls of one turn: the second was issued before the agent saw the first's answer."""
    contract = _contract("ReturnDate")
    tool, arguments = _fault_read(contract)
    events: list = [SystemEvent(step=0, content="policy"), UserEvent(step=1, content="hi")]
    calls = tuple(
        ToolCall(id=f"c{i}", name=tool, arguments=json.dumps(arguments)) for i in range(2)
    )
    events.append(AssistantEvent(step=2, tool_calls=calls))
    events.append(ToolEvent(step=3, tool_call_id="c0", name=tool, content="{}"))
    events.append(ToolEvent(step=4, tool_call_id="c1", name=tool, content="{}"))
    assert read_back(contract, LedgerView(events), 3) == INF


def test_the_first_later_read_of_the_record_is_the_read_back() -> None:
    for name in ("ItemOption", "ReturnDate", "PaySource"):
        contract = _contract(name)
        fault = _fault_read(contract)
        unrelated = (contract.fault_interaction.tool, {"id": "someone-else"})
        events = _ledger([fault, unrelated, fault, fault])
        # fault at 3; the unrelated read (5) names nothing of the target; the read at 7 does
        assert read_back(contract, LedgerView(events), 3) == 7, name
