"""The recorded name of an agent reply that held no well-formed action.

The act and react strategies (``agents/strategies.py``) record such a reply as a call
of :data:`UNPARSABLE_ACTION`; the one tool-execution point (``core/injection.py``)
runs nothing for it. Both sides need the words, so they live here, below both.
"""

from __future__ import annotations

UNPARSABLE_ACTION = "invalid_action"
"""The name an unparsable reply's call is recorded under; the execution point runs
nothing for it and answers :data:`UNPARSABLE_OBSERVATION`."""
UNPARSABLE_OBSERVATION = (
    "Error: the reply is not one valid action. Reply with exactly one JSON object "
    '{"name": "<action name>", "arguments": {...}}; nothing was executed.'
)
