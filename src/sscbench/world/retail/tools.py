"""The 16 retail tools, observation-for-observation identical to τ-bench's."""

from __future__ import annotations

import json

from sscbench.world.state import WorldState
from sscbench.world.tools import ToolKind, ToolRegistry

RETAIL_TOOLS = ToolRegistry("retail")
tool = RETAIL_TOOLS.tool


@tool(
    ToolKind.READ,
    "Get the details of a user, including their reservations.",
    {"user_id": {"type": "string", "description": "The user id, such as 'sara_doe_496'."}},
)
def get_user_details(db: WorldState, user_id: str) -> str:
    user = db.get("users", user_id)
    if user is None:
        return "Error: user not found"
    return json.dumps(user)
