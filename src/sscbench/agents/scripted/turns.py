"""Generator primitives of a script: say, call, read a record once, record a use, confirm.

Each primitive is a generator that yields one :class:`~sscbench.core.agent.AgentTurn`
and returns what came back (the user's reply or the call's observation); the uses a
turn makes are recorded before it and stamped with its step when it is emitted.
"""

from __future__ import annotations

import json
from dataclasses import replace

from sscbench.agents.scripted.labels import Use
from sscbench.agents.scripted.phrases import NO_EXPECTED, Unset
from sscbench.agents.scripted.transcript import Script, Transcript
from sscbench.agents.scripted_facts import Obs
from sscbench.core.agent import AgentTurn
from sscbench.core.ledger import ToolCall
from sscbench.json_types import JsonObject, JsonValue
from sscbench.world.confirmation import is_affirmative
from sscbench.world.records import READ_TOOLS


class Turns(Transcript):
    """The turn builders every part of a script uses."""

    def _flush_uses(self) -> None:
        for use in self._pending_uses:
            self._uses.append(replace(use, step=self._step))
        self._pending_uses = []

    def _say(self, text: str) -> Script[str]:
        """Send a message to the user; returns the user's reply."""
        if self._notes and "?" in text:  # a question keeps the conversation going
            text = " ".join(self._notes) + " " + text
            self._notes = []
        self._pending_call = None
        self._flush_uses()
        reply = yield AgentTurn(content=text)
        return reply if isinstance(reply, str) else ""

    def _call(
        self, name: str, arguments: JsonObject, purpose: str, content: str | None = None
    ) -> Script[Obs]:
        """Call one tool; returns its observation."""
        self._call_count += 1
        call_id = f"call_{self._call_count}"
        self._pending_call = call_id
        self._flush_uses()
        if purpose != "write":
            label: JsonObject = {
                "step": self._step,
                "observation_step": None,
                "name": name,
                "arguments": arguments,
                "purpose": purpose,
            }
            self._reads.append(label)
            self._read_labels[call_id] = label
        text = json.dumps(arguments)
        obs = yield AgentTurn(
            content=content, tool_calls=(ToolCall(id=call_id, name=name, arguments=text),)
        )
        self._pending_call = None
        if not isinstance(obs, Obs):  # the env did not answer (should not happen)
            obs = Obs(self._step + 1, call_id, name, arguments, "Error: no observation")
        return obs

    def _ensure(self, key: tuple[str, str], purpose: str = "lookup") -> Script[Obs]:
        """The latest read of a record, reading it when unread or written since."""
        obs = self._last_read.get(key)
        if obs is not None and key not in self._dirty:
            return obs
        read = READ_TOOLS[key[0]]
        return (yield from self._call(read.tool, {read.id_argument: key[1]}, purpose))

    def _use(
        self,
        fact: str,
        value: JsonValue,
        source_step: int | None,
        *,
        kind: str = "use",
        expected: JsonValue | Unset = NO_EXPECTED,
        attempt: int | None = None,
        write: int | None = None,
    ) -> None:
        """Record a use that the next emitted turn makes."""
        self._pending_uses.append(Use(fact, value, source_step, kind, attempt, expected, write))

    def _confirm(self, text: str) -> Script[bool]:
        self._confirmation_text = text
        if self._skip_confirmation:  # the context says confirmation is no longer required
            self._announce = text + " I am making this change now."
            return True
        reply = yield from self._say(text + " Shall I proceed? (yes/no)")
        if is_affirmative(reply):
            return True
        reply = yield from self._say(
            "Just to be sure: do you want me to make this change? (yes/no)"
        )
        if is_affirmative(reply):
            return True
        yield from self._say("Understood, I will not make this change.")
        return False
