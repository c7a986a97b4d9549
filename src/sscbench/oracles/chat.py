"""The chat-completion plumbing every LLM oracle shares (``llm-l0``/``llm-l1`` and the
trajectory-diagnosis baselines).

Any OpenAI-compatible endpoint, with the endpoint config's retries and whole-attempt
timeout. A call that still fails after its retries, or a malformed completion, raises
:class:`CallFailed` (its message already redacted) so the oracle can abstain; an
endpoint that never answers stops the scoring with
:class:`~sscbench.errors.EndpointUnreachable` instead of abstaining on every run.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from sscbench.errors import DataError, HarnessFailure
from sscbench.oracles.base import OracleSettings


class CallFailed(Exception):
    """A model call that failed after its retries (the message is redacted)."""


class ChatCaller:
    """One oracle's client, event loop, retry health and request count."""

    def __init__(self, settings: OracleSettings, name: str):
        from sscbench.llm.retry import EndpointHealth, make_client

        if settings.endpoint is None:
            raise DataError(
                "--endpoint",
                None,
                "an LLM oracle needs an endpoint: pass --endpoint URL and --model NAME",
            )
        self.name = name
        self.config = settings.endpoint
        self._loop = asyncio.new_event_loop()
        self._client = make_client(self.config)
        self._rng = random.Random(f"oracle-{name}")
        self.health = EndpointHealth(self.config.base_url, self.config.unreachable_after)
        self.requests = 0

    def redact(self, text: str) -> str:
        """``text`` with the client's API key blanked out."""
        from sscbench.llm.secrets import redact

        return redact(text, (self._client.api_key,))

    def ask(self, messages: list[dict[str, str]], what: str) -> str:
        """The model's answer text to ``messages``; CallFailed when the call fails."""
        from sscbench.llm.completion import complete_with_retries
        from sscbench.llm.responses import content_text, first_message

        body: dict[str, Any] = {
            "model": self.config.model,
            "temperature": self.config.temperature,
            "messages": messages,
        }
        if self.config.seed is not None:
            body["seed"] = self.config.seed
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        self.requests += 1
        try:
            response = self._loop.run_until_complete(
                complete_with_retries(
                    self._client,
                    self.config,
                    body,
                    where=self.name,
                    what=what,
                    rng=self._rng,
                    health=self.health,
                )
            )
            message = first_message(response, self.name, (self._client.api_key,))
        except HarnessFailure as exc:
            raise CallFailed(self.redact(exc.message)) from None
        return content_text(getattr(message, "content", None)) or ""

    def close(self) -> None:
        """Release the client and the event loop."""
        self._loop.run_until_complete(self._client.close())
        self._loop.close()
