"""Helpers the fault-family tests share: one tool call at the execution point, and every
case a family schedules on a world's tasks."""

from __future__ import annotations

import json
from typing import Any


def call_tool(executor: Any, step: int, name: str, arguments: dict[str, Any]) -> Any:
    """Execute one call of ``name`` at ``step`` (call id ``c<step>``) through ``executor``."""
    return executor.execute(step, f"c{step}", name, json.dumps(arguments))


def family_cases(family: type, world: Any, **params: Any) -> list[Any]:
    """Every case the family class schedules on the world's tasks, with these parameters."""
    return [c for t in world.tasks for c in family().cases_for(world, t, **params)]
