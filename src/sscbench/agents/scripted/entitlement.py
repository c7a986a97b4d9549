"""The context compiler's entitlement check of a scripted agent.

Before a write block, an agent with ``entitlement_check`` asks whether its context (the
system prompt it was given) still carries the policy section that authorises the write
(:func:`sscbench.world.entitlements.lacks_entitlement`). When it does not, the agent does
not act on an assumed entitlement: it says why and hands the user to a human agent. A
context that carries the section — every clean run — changes nothing.
"""

from __future__ import annotations

from sscbench.agents.scripted.transcript import Script
from sscbench.agents.scripted.turns import Turns
from sscbench.agents.scripted_plan import PlanStep
from sscbench.world.entitlements import lacks_entitlement

HANDOFF = "transfer_to_human_agents"


class EntitlementCheck(Turns):
    """The entitlement check of a write block."""

    def _entitled(self, step: PlanStep) -> Script:
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


__all__ = ["EntitlementCheck"]
