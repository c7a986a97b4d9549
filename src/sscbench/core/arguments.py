"""Reading a model's tool-call arguments: any text gives arguments or an error the agent sees.

Malformed arguments are the agent's own doing, so they are never a harness failure:
bad JSON, an integer too long for Python to read (more than 4,300 digits), and
nesting deeper than :data:`MAX_DEPTH` levels (which would exhaust the recursion
limit of the parser, the tools or the ledger's writer) each become an
``Error: ...`` observation, and the run goes on.
"""

from __future__ import annotations

import json

from sscbench.json_types import JsonValue
from sscbench.reading import MAX_DEPTH, JSONTooDeep, loads_json

__all__ = ["parse_arguments"]


def parse_arguments(raw: str) -> tuple[JsonValue, str | None]:
    """``(arguments, None)``, or ``(None, observation)`` when the text cannot be used.

    Empty text means no arguments (``{}``).
    """
    if not raw.strip():
        return {}, None
    try:
        arguments: JsonValue = loads_json(raw)
    except json.JSONDecodeError as exc:
        return None, f"Error: arguments are not valid JSON: {exc}"
    except JSONTooDeep:
        return None, f"Error: arguments are nested more than {MAX_DEPTH} levels deep"
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        reason = str(exc).split(";")[0]
        return None, f"Error: arguments cannot be read: {reason}"
    return arguments, None
