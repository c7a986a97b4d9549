"""A scripted agent's checks before acting: entitlement and record version.

* ``entitlement_check`` — before a write block, the agent asks whether its context (the
  system prompt it was given) still carries the policy section that authorises the
  write (:func:`sscbench.world.entitlements.lacks_entitlement`). When it does not, the
  agent does not act on an assumed entitlement: it says why and hands the user to a
  human agent. A context that carries the section — every clean run — changes nothing.
* ``version_check`` — right before sending a confirmed write, the agent reads the record
  again and compares it, whole, with the read its plan (and the user's yes) rested on.
  When another actor changed it in between, the agent makes no change and says why.
  An unchanged record — every clean run — only costs the read.
"""

from __future__ import annotations

from sscbench.agents.scripted.transcript import Block, Script
from sscbench.agents.scripted.turns import Turns
from sscbench.agents.scripted_plan import PlanStep
from sscbench.world.entitlements import lacks_entitlement
from sscbench.world.records import READ_TOOLS, record_key

HANDOFF = "transfer_to_human_agents"


class Checks(Turns):
    """The entitlement and version checks of a write block."""

    def _entitled(self, step: PlanStep) -> Script[bool]:
        """True when the write may go ahead; False after refusing (and escalating) a write
        whose authorising section is missing from the context."""
        if not self.profile.entitlement_check:
            return True
        if not lacks_entitlement(self.context.system_prompt or "", step.name):
            return True
        text = (
            f"I cannot find the policy that authorises this change ({step.name}) in my "
            "current instructions, so I cannot make it on an assumed entitlement. "
        )
        if HANDOFF in self.world.tools.specs:
            yield from self._call(
                HANDOFF,
                {
                    "summary": f"{step.name} requested; its policy entitlement is missing from "
                    "the agent's context, so the request needs a human agent."
                },
                "transfer",
                content=text + "I am transferring you to a human agent who can check it.",
            )
        else:
            yield from self._say(text + "I have not changed anything.")
        return False

    def _version_holds(self, block: Block) -> Script[bool]:
        """True when the write may go ahead; False after refusing a write whose record
        changed since the read the plan rested on (the refusal was said to the user)."""
        planned = block.record
        key = record_key(block.step.name, block.step.kwargs)
        if not self.profile.version_check or planned is None or planned.error or key is None:
            return True
        read = READ_TOOLS[key[0]]
        now = yield from self._call(read.tool, {read.id_argument: key[1]}, "version_check")
        if now.error or now.record == planned.record:
            return True
        # worded so that it claims nothing about an earlier change of the same record
        yield from self._say(
            f"Before making the change I read {key[0]} {key[1]} again, and it differs from "
            "the record I showed you (it was updated in between), so what you confirmed "
            "no longer matches it. I have not sent this change; please review the current "
            "record and tell me whether you still want it."
        )
        return False


__all__ = ["Checks"]
