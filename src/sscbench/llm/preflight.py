"""One cheap request per endpoint before a study's first run: is the key accepted, does
the model exist, does it take tools?

A study whose key is wrong would otherwise record every run as missing (HTTP 401 is no
agent outcome), so ``sscbench run`` asks each distinct endpoint once — a one-line prompt
with one tool, sent with the agent's own ``tool_choice`` and temperature — and stops
with one line when it is refused, before the study folder exists.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import openai

from sscbench.llm.endpoint import EndpointConfig
from sscbench.llm.failures import describe_error
from sscbench.llm.providers import key_required
from sscbench.llm.secrets import PLACEHOLDER_KEY

PING_TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Answer the check of sscbench's preflight.",
        "parameters": {"type": "object", "properties": {}, "required": []},
    },
}
PREFLIGHT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class PreflightResult:
    """What the check of one endpoint found: ``ok``, and the line to print."""

    endpoint: EndpointConfig
    ok: bool
    line: str


def _where(config: EndpointConfig) -> str:
    return f"model {config.model} at {config.base_url}"


def _refused(config: EndpointConfig, exc: openai.APIStatusError, key: str | None) -> str:
    """Why the endpoint refused the check, in the user's words (key, model, tools)."""
    detail = describe_error(exc, (key or "",))
    variable = f"${config.api_key_env}"
    if exc.status_code in (401, 403):
        state = "is unset" if not key else "was refused"
        return f"the key in {variable} {state} ({detail}); export the right key and rerun"
    if exc.status_code == 404:
        return f"no such model or URL ({detail}); check the model name and --base-url"
    if exc.status_code in (400, 422) and "tool" in str(exc).lower():
        return f"the model does not accept tool calls ({detail})"
    return f"the endpoint refused the check ({detail})"


def _body(config: EndpointConfig, tool_choice: str | None) -> dict[str, Any]:
    """The check request: one tool and the user's ``tool_choice`` (None: a user that
    sends no tools, as the act/react strategies and the LLM user: a plain prompt)."""
    body: dict[str, Any] = {
        "model": config.model,
        "messages": [{"role": "user", "content": "Call the ping tool."}],
        "temperature": config.temperature,
    }
    if tool_choice is not None:
        body.update(tools=[PING_TOOL], tool_choice=tool_choice)
    if config.max_tokens is not None:
        body["max_tokens"] = config.max_tokens
    return body


async def _ask(config: EndpointConfig, key: str | None, body: dict[str, Any]) -> Any:
    """The check request, the whole of it (connecting, waiting, reading the body, one
    retry) bounded: a server that trickles its answer cannot hold the command."""
    attempt = min(config.timeout, PREFLIGHT_TIMEOUT_S)
    client = openai.AsyncOpenAI(
        base_url=config.base_url, api_key=key or PLACEHOLDER_KEY, timeout=attempt, max_retries=1
    )
    async with client:
        try:
            async with asyncio.timeout(2 * attempt + 1):
                return await client.chat.completions.create(**body)
        except TimeoutError:
            raise TimeoutError(f"no complete answer within {2 * attempt + 1:g} s") from None


async def check_endpoint_async(
    config: EndpointConfig, tool_choice: str | None = "auto"
) -> PreflightResult:
    """Send the one check request to ``config``'s endpoint and judge the answer."""
    key = os.environ.get(config.api_key_env) or None
    if key is None and key_required(config.base_url, config.api_key_env):
        line = f"{_where(config)}: ${config.api_key_env} is unset; export the provider's key"
        return PreflightResult(config, False, line)
    try:
        response = await _ask(config, key, _body(config, tool_choice))
    except openai.APIStatusError as exc:
        return PreflightResult(config, False, f"{_where(config)}: {_refused(config, exc, key)}")
    except (openai.APIError, ValueError, TimeoutError) as exc:  # unreachable, slow, not JSON
        detail = describe_error(exc, (key or "",))
        line = f"{_where(config)}: endpoint unreachable or not answering ({detail})"
        return PreflightResult(config, False, line)
    choices = getattr(response, "choices", None) or []
    message = choices[0].message if choices else None
    if message is None:
        return PreflightResult(config, False, f"{_where(config)}: answered with no choices")
    called = bool(getattr(message, "tool_calls", None))
    said = "called the tool" if called else "answered in text (tools accepted, not called)"
    said = said if tool_choice is not None else "answered"
    return PreflightResult(config, True, f"{_where(config)}: key accepted, {said}")


def check_endpoint(config: EndpointConfig, tool_choice: str | None = "auto") -> PreflightResult:
    """:func:`check_endpoint_async` from synchronous code."""
    return asyncio.run(check_endpoint_async(config, tool_choice))


def preflight(endpoints: Iterable[tuple[EndpointConfig, str | None]]) -> list[PreflightResult]:
    """Check each distinct endpoint once (same URL, model and key variable: one request),
    with the ``tool_choice`` its first user sends, all at once; the results in the order
    given."""
    seen: set[tuple[str, str, str]] = set()
    checks = []
    for config, tool_choice in endpoints:
        key = (config.base_url.rstrip("/"), config.model, config.api_key_env)
        if key in seen:
            continue
        seen.add(key)
        checks.append((config, tool_choice))

    async def every() -> list[PreflightResult]:
        return list(await asyncio.gather(*(check_endpoint_async(c, t) for c, t in checks)))

    return asyncio.run(every())
