"""The agent behind any OpenAI-compatible chat-completions endpoint.

Each turn sends the model-visible ledger, exactly as the model saw it (system prompt,
user and assistant messages, tool observations as delivered), with the world's tool
schemas, and maps the reply to an :class:`AgentTurn`. Tool-call arguments are kept as
the raw text the model emitted, malformed JSON included: the execution point turns
that into an error observation the agent sees. Transport failures are retried
(:mod:`sscbench.llm.retry`); a final failure raises
:class:`~sscbench.errors.HarnessFailure` so the run is missing, never an outcome.
A body without a message fails saying what arrived; content given as a list of parts
is kept as its text; the API key (or any fragment of it) echoed by the endpoint is
masked out of the turn before the ledger stores it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from sscbench.agents.actions import Unparsable, response_format
from sscbench.agents.strategies import Strategy, action_messages, action_turn
from sscbench.core.agent import AgentTurn, RunContext
from sscbench.core.ledger import AssistantEvent, LedgerEvent, ToolCall, to_openai_messages
from sscbench.json_types import JsonObject
from sscbench.llm.completion import complete_with_retries
from sscbench.llm.endpoint import OpenAIAgentConfig
from sscbench.llm.journal import ResponseJournal, run_journal
from sscbench.llm.responses import content_text, first_message
from sscbench.llm.retry import ClientHolder
from sscbench.llm.secrets import redact
from sscbench.llm.usage import new_usage


def _raw_arguments(value: object) -> str:
    """The arguments text as emitted; a server that sends an object gets it re-serialised."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value)


class OpenAIAgent:
    """An agent that asks a chat-completions model for each turn.

    ``seed`` is the run's seed: it seeds the retry jitter and, unless the config fixes
    one, is passed to the endpoint as the sampling seed. ``usage`` holds the run's
    totals (requests, retries, prompt/completion/total tokens) for the executor to log.
    ``strategy`` is ``tool-calling`` (the API's tools), ``act`` or ``react`` (one JSON
    action per turn in the content, :mod:`sscbench.agents.strategies`; ``usage`` then
    also counts ``actions`` and ``unparsable_actions``); ``constrain`` sends the action
    schema as ``response_format``. ``journal`` (the run's, when it has one) answers the
    requests an interrupted attempt of the run already made.
    """

    def __init__(
        self,
        config: OpenAIAgentConfig,
        tools: Sequence[JsonObject],
        *,
        seed: int = 0,
        clients: ClientHolder | None = None,
        strategy: Strategy = "tool-calling",
        constrain: bool = False,
        journal: ResponseJournal | None = None,
    ):
        self.config = config
        self.strategy = strategy
        self.constrain = constrain
        self.journal = journal
        # the world's schema list itself (read-only): its JSON is encoded once for all runs
        self.tools = tools if isinstance(tools, list) else list(tools)
        self.seed = config.seed if config.seed is not None else seed
        self.usage = new_usage()
        if strategy != "tool-calling":
            self.usage.update(actions=0, unparsable_actions=0)
        self._rng = random.Random(f"agent-retry:{seed}")
        self._clients = clients or ClientHolder(config)
        self._turns = 0

    def messages(self, events: Sequence[LedgerEvent]) -> list[JsonObject]:
        """The chat messages the model sees for this ledger under the strategy."""
        if self.strategy == "tool-calling":
            return to_openai_messages(events)
        return action_messages(events, self.strategy, self.tools)

    def request(self, messages: list[JsonObject]) -> dict[str, object]:
        """The keyword arguments of ``chat.completions.create`` for these messages (the
        world's tool list itself, never copied: its JSON is encoded once)."""
        request: dict[str, object] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
        }
        if self.strategy != "tool-calling":
            if self.constrain:
                request["response_format"] = response_format(
                    self.tools, with_thought=self.strategy == "react"
                )
        elif self.tools:
            request["tools"] = self.tools
            request["tool_choice"] = self.config.tool_choice
        if self.seed is not None:
            request["seed"] = self.seed
        if self.config.max_tokens is not None:
            request["max_tokens"] = self.config.max_tokens
        return request

    async def act(self, ledger: Sequence[LedgerEvent]) -> AgentTurn:
        """The model's next turn given the ledger so far."""
        events = list(ledger)
        self._turns += 1
        request = self.request(self.messages(events))
        client = self._clients.get()

        response = await complete_with_retries(
            client,
            self.config,
            request,
            where="agent",
            what=f"chat completion for agent turn {self._turns} (model {self.config.model})",
            rng=self._rng,
            usage=self.usage,
            health=self._clients.health,
            journal=self.journal,
        )
        if self.strategy != "tool-calling":
            return self._action_turn(response, events, (client.api_key,))
        return to_agent_turn(response, events, secrets=(client.api_key,))

    def _action_turn(
        self, response: object, events: Sequence[LedgerEvent], secrets: tuple[str, ...]
    ) -> AgentTurn:
        """The act/react reply as a turn; unparsable replies are counted."""
        message = first_message(response, "agent", secrets)
        content = content_text(getattr(message, "content", None))
        if content is not None:
            content = redact(content, secrets)
        turn, parsed = action_turn(content, self.strategy, events)
        self.usage["actions"] += 1
        self.usage["unparsable_actions"] += int(isinstance(parsed, Unparsable))
        return turn

    def calibration(self) -> JsonObject | None:
        """A real model keeps no labels of its intentions."""
        return None

    async def aclose(self) -> None:
        """Close this agent's client (only needed when it was not given one)."""
        await self._clients.aclose()


def to_agent_turn(
    response: object, ledger: Sequence[LedgerEvent], secrets: Sequence[str] = ()
) -> AgentTurn:
    """Map a chat completion to a turn, giving deterministic ids to calls that lack one.

    A call's id is kept unless it is missing, empty, or already used in this run (the
    ledger pairs observations to calls by id); such a call gets ``call_<step>_<i>``,
    ``step`` being the ledger index its assistant event will take. An empty reply (no
    text, no calls) becomes the text ``""``, which the user then answers. Every text
    of the turn has ``secrets`` masked.
    """
    message = first_message(response, "agent", secrets)
    step = len(ledger)
    used = {
        call.id
        for event in ledger
        if isinstance(event, AssistantEvent)
        for call in event.tool_calls
    }
    calls: list[ToolCall] = []
    for index, raw in enumerate(getattr(message, "tool_calls", None) or []):
        function = getattr(raw, "function", None)
        call_id = getattr(raw, "id", None)
        if isinstance(call_id, str):
            call_id = redact(call_id, secrets)
        if not isinstance(call_id, str) or not call_id or call_id in used:
            call_id = f"call_{step}_{index}"
            suffix = 0
            while call_id in used:
                suffix += 1
                call_id = f"call_{step}_{index}_{suffix}"
        used.add(call_id)
        calls.append(
            ToolCall(
                id=call_id,
                name=redact(str(getattr(function, "name", None) or ""), secrets),
                arguments=redact(_raw_arguments(getattr(function, "arguments", None)), secrets),
            )
        )
    content = content_text(getattr(message, "content", None))
    if content is not None:
        content = redact(content, secrets)
    if not calls and content is None:
        content = ""
    return AgentTurn(content=content, tool_calls=tuple(calls))


class OpenAIAgentFactory:
    """Builds one :class:`OpenAIAgent` per run; the runs share one client per event loop."""

    def __init__(
        self,
        config: OpenAIAgentConfig,
        strategy: Strategy = "tool-calling",
        constrain: bool = False,
    ):
        self.config = config
        self.strategy = strategy
        self.constrain = constrain
        self.clients = ClientHolder(config)

    def __call__(self, context: RunContext) -> OpenAIAgent:
        """An agent for this run: the context's tools, seeded by the run's seed."""
        return OpenAIAgent(
            self.config,
            context.tools,
            seed=context.seed,
            clients=self.clients,
            strategy=self.strategy,
            constrain=self.constrain,
            journal=run_journal(context),
        )

    async def aclose(self) -> None:
        """Close the shared client."""
        await self.clients.aclose()


def openai_agent_factory(
    config: OpenAIAgentConfig, strategy: Strategy = "tool-calling", constrain: bool = False
) -> OpenAIAgentFactory:
    """The factory of agents of one configuration (an :class:`AgentFactory`)."""
    return OpenAIAgentFactory(config, strategy, constrain)
