"""Calibration labels: each use's injected/relied flags and the final stance per fact."""

from __future__ import annotations

from typing import Any

from sscbench.agents.scripted.phrases import NO_EXPECTED


def finish_use(use: dict[str, Any], writes: list[dict[str, Any]]) -> dict[str, Any]:
    """A use label as written: private keys dropped, ``value_is_injected`` and
    ``relied_on_injected`` set (a write fact from the write's ``took_effect``)."""
    out = {k: v for k, v in use.items() if not k.startswith("_")}
    injected: bool | None
    if use["_write"] is not None:
        took = writes[use["_write"]]["took_effect"]
        if took is None:
            injected = None
        elif use["value"] == "applied":
            injected = not took
        else:
            injected = False if not took else None
    elif use["_expected"] is NO_EXPECTED:
        injected = None
    else:
        injected = use["value"] != use["_expected"]
    out["value_is_injected"] = injected
    out["relied_on_injected"] = injected if use["kind"] == "use" else False
    return out


def final_stance(uses: list[dict[str, Any]]) -> dict[str, str]:
    """Per fact: does the agent's last statement endorse what was delivered to it?

    A write fact is endorsed when the last statement about the first attempt says
    "applied" (what the acknowledgement asserted). A value fact is rejected when the
    agent used or checked an injected value and its last use states a value that is
    not injected; otherwise it is endorsed.
    """
    by_fact: dict[str, list[dict[str, Any]]] = {}
    for use in uses:
        if use["fact"].startswith("write:") and use.get("attempt", 1) != 1:
            continue
        by_fact.setdefault(use["fact"], []).append(use)
    stance: dict[str, str] = {}
    for fact, items in by_fact.items():
        statements = [u for u in items if u["kind"] == "use"]
        if fact.startswith("write:"):
            if statements:
                stance[fact] = "endorses" if statements[-1]["value"] == "applied" else "rejects"
            continue
        saw_injected = any(u["value_is_injected"] for u in items)
        if statements and statements[-1]["value_is_injected"]:
            stance[fact] = "endorses"
        else:
            stance[fact] = "rejects" if saw_injected else "endorses"
    return stance
