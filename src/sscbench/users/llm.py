"""A simulated user played by a chat model, as in τ-bench's LLM user simulation.

The simulator gets a system prompt built from the task instruction and sees the
conversation from the user's side: the agent's text replies are its "user" messages
and its own earlier messages are "assistant" messages, opened by a fixed agent
greeting. It says ``###STOP###`` when the goal is met or the conversation cannot go
on. Its history is rebuilt from the model-visible ledger on every reply: the user's
messages and the agent's text replies (assistant turns without tool calls, which are
the only ones the episode delivers to the user). Tool calls and observations never
reach it. Transport failures are retried as for the agent; a final failure raises
:class:`~sscbench.errors.HarnessFailure` (the run is missing).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from sscbench.core.agent import RunContext
from sscbench.core.ledger import AssistantEvent, LedgerEvent, UserEvent
from sscbench.core.user import STOP
from sscbench.json_types import JsonObject
from sscbench.llm.completion import complete_with_retries
from sscbench.llm.endpoint import LLMUserConfig
from sscbench.llm.journal import ResponseJournal, run_journal
from sscbench.llm.responses import content_text, first_message
from sscbench.llm.retry import ClientHolder
from sscbench.llm.secrets import redact
from sscbench.llm.usage import new_usage

AGENT_GREETING = "Hi! How can I help you today?"
"""The agent's opening line as the simulator sees it (the ledger starts with the user)."""


def user_system_prompt(instruction: str | None) -> str:
    """The simulator's instructions for one task."""
    task = f"\n\nYour instruction:\n{instruction}\n" if instruction else "\n"
    return (
        "You are role-playing a customer who is talking to a customer-service agent. "
        "You are the customer, never the agent."
        f"{task}\n"
        "How to play the customer:\n"
        "- Write one short line per message, the way a person types in a chat.\n"
        "- Reveal your details gradually: give only what the agent needs for the "
        "current step, not the whole instruction at once.\n"
        "- Never invent facts the instruction does not give you. If the agent asks for "
        "something you were not told (an order number, a date, ...), say you don't "
        "know or don't have it.\n"
        "- Put things in your own words; do not copy the instruction verbatim.\n"
        "- Stay in the personality and circumstances the instruction describes, and keep "
        "the conversation natural.\n"
        f"- When your goal has been achieved, or the conversation cannot go any further, "
        f"reply with exactly {STOP} on its own and nothing else."
    )


def user_messages(instruction: str | None, ledger: Sequence[LedgerEvent]) -> list[JsonObject]:
    """The simulator's chat history for the ledger so far (roles seen from the user's side)."""
    messages: list[JsonObject] = [
        {"role": "system", "content": user_system_prompt(instruction)},
        {"role": "user", "content": AGENT_GREETING},
    ]
    for event in ledger:
        if isinstance(event, UserEvent):
            messages.append({"role": "assistant", "content": event.content})
        elif isinstance(event, AssistantEvent) and not event.tool_calls:
            messages.append({"role": "user", "content": event.content or ""})
    return messages


class LLMUser:
    """A user played by a chat model following the task's instruction.

    ``seed`` is the run's seed: it seeds the retry jitter and, unless the config fixes
    one, is passed to the endpoint as the sampling seed. ``usage`` holds the run's totals;
    ``journal`` (the run's, when it has one) answers requests an interrupted attempt made.
    """

    def __init__(
        self,
        config: LLMUserConfig,
        instruction: str | None,
        *,
        seed: int = 0,
        clients: ClientHolder | None = None,
        journal: ResponseJournal | None = None,
    ):
        self.config = config
        self.instruction = instruction
        self.journal = journal
        self.seed = config.seed if config.seed is not None else seed
        self.usage = new_usage()
        self._rng = random.Random(f"user-retry:{seed}")
        self._clients = clients or ClientHolder(config)
        self._messages = 0

    async def first_message(self) -> str:
        """The user's opening message."""
        return await self._generate(user_messages(self.instruction, []))

    async def reply(self, ledger: Sequence[LedgerEvent]) -> str:
        """The answer to the agent's latest text reply."""
        return await self._generate(user_messages(self.instruction, list(ledger)))

    async def aclose(self) -> None:
        """Close this user's client (only needed when it was not given one)."""
        await self._clients.aclose()

    async def _generate(self, messages: list[JsonObject]) -> str:
        self._messages += 1
        request: dict[str, object] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
        }
        if self.seed is not None:
            request["seed"] = self.seed
        if self.config.max_tokens is not None:
            request["max_tokens"] = self.config.max_tokens
        client = self._clients.get()

        response = await complete_with_retries(
            client,
            self.config,
            request,
            where="user",
            what=f"user message {self._messages} (model {self.config.model})",
            rng=self._rng,
            usage=self.usage,
            health=self._clients.health,
            journal=self.journal,
        )
        secrets = (client.api_key,)
        content = content_text(getattr(first_message(response, "user", secrets), "content", None))
        return redact(content, secrets) if content is not None else ""


class LLMUserFactory:
    """Builds one :class:`LLMUser` per run from the task's instruction; one client per loop."""

    def __init__(self, config: LLMUserConfig):
        self.config = config
        self.clients = ClientHolder(config)

    def __call__(self, context: RunContext) -> LLMUser:
        """A user for this run, seeded by the run's seed."""
        return LLMUser(
            self.config,
            context.task.instruction,
            seed=context.seed,
            clients=self.clients,
            journal=run_journal(context),
        )

    async def aclose(self) -> None:
        """Close the shared client."""
        await self.clients.aclose()


def llm_user_factory(config: LLMUserConfig) -> LLMUserFactory:
    """The factory of LLM users of one configuration (a :class:`UserFactory`)."""
    return LLMUserFactory(config)
