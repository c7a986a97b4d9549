"""``--model sscbench/<profile>``: a scripted sscbench profile as an Inspect model.

    inspect eval sscbench/arrival --model sscbench/trusting -T out=study

An offline model for the ``sscbench/arrival`` task: each ``generate`` reads the
conversation back into a model-visible ledger and answers with the scripted profile's
next turn (text and tool calls), exactly what ``sscbench run`` gets from the same profile.
It needs no network, no API key and no tokenizer: its usage is counted here (one request;
tokens estimated from characters), so Inspect never loads a tiktoken encoding for it,
which Inspect's own ``mockllm`` does (a download, which fails offline).

The profile needs the run's world and task, which a conversation alone does not name: the
agent of an ``sscbench/arrival`` run puts them in a context variable (:func:`run_scope`)
for the span of its ``generate`` calls, so concurrent samples each see their own run.
Outside a run of the task this model refuses to answer, with a message that says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolCall as InspectToolCall
from inspect_ai.tool import ToolChoice, ToolInfo

from sscbench.core.agent import Agent, RunContext
from sscbench.integrations.inspect_messages import messages_to_ledger
from sscbench.reading import loads_json

_RUN: ContextVar[tuple[RunContext, dict[str, Agent]] | None] = ContextVar(
    "sscbench_inspect_run", default=None
)


@contextmanager
def run_scope(context: RunContext, state: dict[str, Agent]) -> Iterator[None]:
    """Make ``context`` (and the run's ``state``, where the profile's agent lives) the run
    an ``sscbench/<profile>`` model answers for, while the block runs."""
    token = _RUN.set((context, state))
    try:
        yield
    finally:
        _RUN.reset(token)


def estimate_tokens(text: str) -> int:
    """A tokenizer-free token estimate (four characters a token, at least one): what the
    scripted model reports as usage, so no tokenizer is ever loaded."""
    return max(1, (len(text) + 3) // 4)


@modelapi(name="sscbench")
class ScriptedProfileAPI(ModelAPI):
    """Inspect's model API for ``sscbench/<profile>``: answers as that scripted profile."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: object,
    ) -> None:
        from sscbench.agents.scripted import scripted_agent_factory
        from sscbench.errors import DataError

        super().__init__(model_name, base_url, api_key, [], config)
        try:
            self.factory = scripted_agent_factory(model_name, **model_args)
        except (KeyError, ValueError, TypeError, DataError) as exc:
            raise ValueError(
                f"--model sscbench/{model_name}: not a scripted profile ({exc})"
            ) from exc

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        """The profile's next turn for the conversation so far."""
        run = _RUN.get()
        if run is None:
            raise RuntimeError(
                f"sscbench/{self.model_name} answers only inside the sscbench/arrival task "
                "(it plays a scripted profile on the run's world and task)"
            )
        context, state = run
        agent: Agent | None = state.get("agent")
        if agent is None:
            agent = state["agent"] = self.factory(context)
        turn = await agent.act(messages_to_ledger(input))
        calls = [
            InspectToolCall(id=c.id, function=c.name, arguments=loads_json(c.arguments or "{}"))
            for c in turn.tool_calls
        ]
        message = ChatMessageAssistant(
            content=turn.content or "", tool_calls=calls or None, model=self.model_name
        )
        prompt = estimate_tokens("".join(m.text for m in input))
        completion = estimate_tokens((turn.content or "") + "".join(c.function for c in calls))
        return ModelOutput(
            model=f"sscbench/{self.model_name}",
            choices=[
                ChatCompletionChoice(message=message, stop_reason="tool_calls" if calls else "stop")
            ],
            usage=ModelUsage(
                input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
            ),
        )

    async def count_text_tokens(self, text: str) -> int:
        """Token counts without a tokenizer (Inspect's default loads tiktoken's encoding)."""
        return estimate_tokens(text)
