"""Reading a model's tool-call arguments: any text gives arguments or an error the agent sees.

Malformed arguments are the agent's own doing, so they are never a harness failure:
bad JSON, an integer too long for Python to read (more than 4,300 digits), and
nesting deeper than :data:`MAX_DEPTH` levels (which would exhaust the recursion
limit of the parser, the tools or the ledger's writer) each become an
``Error: ...`` observation, and the run goes on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

MAX_DEPTH = 200
"""Deepest nesting of lists and objects accepted in one call's arguments."""


def nesting_depth(value: Any) -> int:
    """How many lists/objects deep ``value`` goes (counted without recursion)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_arguments(raw: str) -> tuple[Any, str | None]:
    """``(arguments, None)``, or ``(None, observation)`` when the text cannot be used.

    Empty text means no arguments (``{}``).
    """
    if not raw.strip():
        return {}, None
    try:
        arguments = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"Error: arguments are not valid JSON: {exc}"
    except RecursionError:
        return None, f"Error: arguments are nested more than {MAX_DEPTH} levels deep"
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        reason = str(exc).split(";")[0]
        return None, f"Error: arguments cannot be read: {reason}"
    if nesting_depth(arguments) > MAX_DEPTH:
        return None, f"Error: arguments are nested more than {MAX_DEPTH} levels deep"
    return arguments, None
