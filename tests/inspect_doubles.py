"""A mockllm model that answers as a scripted sscbench profile (for the Inspect tests).

Inspect's ``mockllm`` takes a callable that sees the messages and tools of each
``generate``; this one reads the conversation back into a ledger, recognises the run's
task by its opening (policy + first user message) and lets a scripted profile answer —
so a real tool-using trajectory flows through Inspect's model interface.
"""

from __future__ import annotations

import asyncio
import json

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolCall as InspectToolCall

from sscbench.agents.scripted import scripted_agent_factory
from sscbench.core.agent import RunContext
from sscbench.integrations.inspect_messages import messages_to_ledger
from sscbench.users.scripted import scripted_user_factory


def scripted_mockllm(worlds, cases, profile: str = "trusting"):
    """An Inspect mockllm model whose answers are the scripted ``profile``'s turns."""
    factory = scripted_agent_factory(profile)
    openings: dict[tuple[str, str], RunContext] = {}
    for case in cases:
        world = worlds[case.domain]
        context = RunContext(
            world=world,
            task=world.task(case.task_id),
            system_prompt=world.policy,
            tools=world.tool_schemas(),
            seed=0,
            repetition=0,
        )
        first = asyncio.run(scripted_user_factory(context).first_message())
        openings[(world.policy, first)] = context
    current: dict[str, object] = {}

    async def answer(input, tools, tool_choice, config):
        if len(input) == 2:  # a new conversation: system prompt and the user's opening
            current["agent"] = factory(openings[(input[0].text, input[1].text)])
        turn = await current["agent"].act(messages_to_ledger(input))
        calls = [
            InspectToolCall(id=c.id, function=c.name, arguments=json.loads(c.arguments or "{}"))
            for c in turn.tool_calls
        ]
        message = ChatMessageAssistant(content=turn.content or "", tool_calls=calls or None)
        return ModelOutput(
            model="mockllm/model",
            choices=[
                ChatCompletionChoice(message=message, stop_reason="tool_calls" if calls else "stop")
            ],
            usage=ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2),
        )

    return get_model("mockllm/model", custom_outputs=answer)
