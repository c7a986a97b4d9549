"""ReturnDate's extraction on real τ² text of other model families, without a fault.

For every round-trip reservation an agent read in a τ² recording, a contract is made
with the record's own return date as v (and a date nine days before the outbound as a
stand-in v′); the extraction then looks for the agent stating v. The count of
reservations where it finds a statement is compared with the rules before the date
layer (``base.mentions`` over ``date_variants``), and each disagreement is printed to
be read. Any stand-in v′ found is printed too: v′ is written nowhere, so each is a false
use (or a coincidence with another date of the record, shown for reading).

Usage: PYTHONPATH=src python benchmarks/return_date_real_text.py \\
           ../shared/tau2-trajectories/claude-opus-4-6-airline.json \\
           ../shared/tau2-trajectories/gpt-oss-120b-airline.json
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
from sscbench.core.view import LedgerView
from sscbench.faults.contract import FaultContract, Interaction, Sufficiency, Target
from sscbench.faults.operators.return_date import ReturnDate
from sscbench.references.reservations import reservations_shown, scoped_text
from sscbench.references.return_date_text import return_sentences, split_legs
from sscbench.references.text import agent_texts, date_variants, mentions


def ledger_of(simulation: dict[str, Any]) -> list[Any]:
    """A τ² simulation's messages as ledger events (a placeholder policy first)."""
    events: list[Any] = [SystemEvent(step=0, content="policy")]
    for message in simulation["messages"]:
        step, role = len(events), message["role"]
        if role == "user":
            events.append(UserEvent(step=step, content=message.get("content") or ""))
        elif role == "assistant":
            calls = tuple(
                ToolCall(id=c["id"], name=c["name"], arguments=json.dumps(c["arguments"]))
                for c in message.get("tool_calls") or []
            )
            events.append(
                AssistantEvent(step=step, content=message.get("content"), tool_calls=calls)
            )
        elif role == "tool":
            events.append(
                ToolEvent(
                    step=step,
                    tool_call_id=message["id"],
                    name=message.get("name") or "tool",
                    content=message.get("content") or "",
                )
            )
    return events


def contract_of(record: dict[str, Any]) -> FaultContract:
    """A ReturnDate contract on a round trip as recorded (v the record's own return date)."""
    outbound, back = split_legs(record)
    flights = record["flights"]
    first_out = dt.date.fromisoformat(flights[outbound[0]]["date"])
    routes = [f"{flights[i]['origin']}-{flights[i]['destination']}" for i in back]
    routes.append(f"{record['destination']}-{record['origin']}")
    return FaultContract(
        operator="ReturnDate",
        structure="co-delivered",
        target=Target(
            entity_type="reservation",
            entity_id=record["reservation_id"],
            attribute="return_date",
            related_ids={
                "user_id": record.get("user_id", ""),
                "return_routes": ",".join(routes),
                "outbound_dates": ",".join(flights[i]["date"] for i in outbound),
            },
        ),
        fault_interaction=Interaction(
            tool="get_reservation_details", match={"reservation_id": record["reservation_id"]}
        ),
        injected_value=(first_out - dt.timedelta(days=9)).isoformat(),
        authoritative_value=flights[back[0]]["date"],
        basis="the outbound leg",
        sufficiency=Sufficiency(relation="round-trip-order"),
    )


def old_text_uses(contract: FaultContract, view: LedgerView, fault_step: int) -> list[int]:
    """Steps of texts stating v by the rules before the date layer."""
    true = contract.authoritative_value
    ambiguous = true in contract.target.related_ids["outbound_dates"].split(",")
    rid = contract.target.entity_id
    steps = []
    for step, _channel, content in agent_texts(view, fault_step):
        text = scoped_text(content, rid, reservations_shown(view, step))
        if mentions(return_sentences(text) if ambiguous else text, date_variants(true)):
            steps.append(step)
    return steps


def main(paths: list[str]) -> None:
    operator = ReturnDate()
    total = old_found = new_found = 0
    for path in paths:
        for simulation in json.loads(Path(path).read_text("utf-8"))["simulations"]:
            view = LedgerView(ledger_of(simulation))
            seen: set[str] = set()
            for call in view.calls_named("get_reservation_details"):
                record = call.data
                if not isinstance(record, dict) or record.get("flight_type") != "round_trip":
                    continue
                if record["reservation_id"] in seen or not split_legs(record)[1]:
                    continue
                seen.add(record["reservation_id"])
                contract, t_f = contract_of(record), call.observation_step
                uses = operator.extract_uses(contract, view, t_f)
                new = [
                    u.step for u in uses if u.channel != "tool_call" and u.mentions_authoritative
                ]
                old = old_text_uses(contract, view, t_f)
                total, old_found, new_found = (
                    total + 1,
                    old_found + bool(old),
                    new_found + bool(new),
                )
                texts = {step: text for step, _, text in agent_texts(view, t_f)}
                for use in (u for u in uses if u.mentions_injected):
                    print(
                        f"stand-in v′ found: {record['reservation_id']} step {use.step} {use.span!r}"
                    )
                if old[:1] != new[:1]:
                    print(
                        f"== {simulation['id'][:8]} {record['reservation_id']} v={contract.authoritative_value} "
                        f"old T_S {old[:1]} new T_S {new[:1]}"
                    )
                    for step in sorted(set(old[:1] + new[:1])):
                        print(f"   step {step}: {texts.get(step, '')[:300]!r}")
    print(
        f"\nround trips read: {total}; a statement of v found: old rules {old_found}, "
        f"date layer {new_found}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
