"""One chat completion with an endpoint's retries, usage counting and the run's response
journal: what the model agent, the LLM user, the classifier and the oracles call.

:func:`complete_with_retries` posts the body (:func:`chat_completion`) under
:func:`~sscbench.llm.retry.with_retries`; given a run's journal
(:mod:`sscbench.llm.journal`) it answers what the journal recorded and records the rest
(:func:`journaled_completion`).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping

import openai

from sscbench.json_types import JsonValue
from sscbench.llm.endpoint import EndpointConfig
from sscbench.llm.failures import BadResponseBody, is_rate_limited
from sscbench.llm.journal import Answer, ResponseJournal, request_hash
from sscbench.llm.limiter import estimate_tokens, limiter_for
from sscbench.llm.retry import EndpointHealth, with_retries
from sscbench.llm.transport import ChatTransport, ResponseTooLarge, completion_of, request_bytes
from sscbench.llm.usage import add_usage


async def chat_completion(
    client: openai.AsyncOpenAI | ChatTransport, body: Mapping[str, object]
) -> object:
    """POST a plain-JSON chat-completions body and parse the reply.

    ``chat.completions.create`` first walks the whole request through the SDK's typed
    transform (several milliseconds for a τ-bench prompt with its tool schemas); our
    body is already plain JSON, so it is sent as it is. With a :class:`ChatTransport`
    (a study's agents and users) it goes over the transport's aiohttp pool; with an SDK
    client (the classifier, the oracles) through the SDK. Either way status errors and
    response parsing are the SDK's own.
    """
    from openai.types.chat import ChatCompletion

    try:
        if isinstance(client, ChatTransport):
            return await client.post(request_bytes(body))
        return await client.post(
            "/chat/completions",
            content=request_bytes(body),
            options={"headers": {"Content-Type": "application/json"}},
            cast_to=ChatCompletion,
        )
    except ResponseTooLarge as exc:  # read no further than the cap
        raise BadResponseBody(str(exc)) from None
    except openai.APIConnectionError as exc:  # the SDK wraps the cap's error
        if isinstance(exc.__cause__, ResponseTooLarge):
            raise BadResponseBody(str(exc.__cause__)) from None
        raise
    except ValueError as exc:  # a JSON content type over a body that is not JSON
        raise BadResponseBody(f"the body is not valid JSON ({exc})") from None


async def complete_with_retries(
    client: openai.AsyncOpenAI | ChatTransport,
    config: EndpointConfig,
    body: Mapping[str, object],
    *,
    where: str,
    what: str,
    rng: random.Random,
    usage: dict[str, int] | None = None,
    health: EndpointHealth | None = None,
    journal: ResponseJournal | None = None,
    call: Callable[[], Awaitable[object]] | None = None,
) -> object:
    """One chat completion with the config's retries and whole-response timeout; counts
    retries and tokens in ``usage``; ``health`` stops early on a dead endpoint. A run's
    ``journal`` (:mod:`sscbench.llm.journal`) answers what it recorded and records the
    rest; ``call`` replaces the POST of ``body`` (the journal's, keeping the raw body)."""
    if journal is not None and isinstance(client, ChatTransport):
        return await journaled_completion(
            journal, client, config, body, where, what, rng, usage, health
        )

    def count_retry(_attempt: int, _exc: BaseException) -> None:
        if usage is not None:
            usage["retries"] += 1

    def count_error(exc: BaseException) -> None:
        if usage is not None and is_rate_limited(exc):
            usage["rate_limited"] = usage.get("rate_limited", 0) + 1

    def answer_tokens(response: object) -> float | None:
        value = getattr(getattr(response, "usage", None), "total_tokens", None)
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else None

    limiter = limiter_for(config)
    tokens = (
        estimate_tokens(len(request_bytes(body)), config.max_tokens)
        if limiter is not None and limiter.tokens_per_minute
        else 0.0
    )
    response = await with_retries(
        call or (lambda: chat_completion(client, body)),
        where=where,
        what=what,
        max_retries=config.max_retries,
        backoff_initial=config.backoff_initial,
        backoff_max=config.backoff_max,
        rng=rng,
        secrets=(client.api_key,),
        on_retry=count_retry,
        timeout=config.timeout,
        health=health,
        limiter=limiter,
        tokens=tokens,
        used_tokens=answer_tokens,
        on_error=count_error,
        max_wait=config.max_wait_s,
        max_retry_after=config.max_retry_after_s,
    )
    if usage is not None:
        add_usage(usage, response)
    return response


async def journaled_completion(
    journal: ResponseJournal,
    client: ChatTransport,
    config: EndpointConfig,
    body: Mapping[str, object],
    where: str,
    what: str,
    rng: random.Random,
    usage: dict[str, int] | None,
    health: EndpointHealth | None,
) -> object:
    """:func:`complete_with_retries` through the run's journal: the
    recorded answer of a matching request (its usage counted as when it arrived), else
    the model's, recorded before it is returned."""
    content = request_bytes(body)
    key = request_hash(content)
    recorded = journal.answer(where, key)
    if recorded is not None:
        response = completion_of(recorded.kind, recorded.value)
        if usage is not None:
            usage["retries"] += recorded.retries
            usage["rate_limited"] = usage.get("rate_limited", 0) + recorded.rate_limited
            add_usage(usage, response)
        return response
    arrived: list[tuple[str, JsonValue, bytes]] = []

    async def post() -> object:
        try:
            kind, value, data = await client.post_body(content)
        except ValueError as exc:  # a JSON content type over a body that is not JSON
            raise BadResponseBody(f"the body is not valid JSON ({exc})") from None
        arrived[:] = [(kind, value, data)]
        return completion_of(kind, value)

    before = (usage or {}).get("retries", 0), (usage or {}).get("rate_limited", 0)
    response = await complete_with_retries(
        client,
        config,
        body,
        where=where,
        what=what,
        rng=rng,
        usage=usage,
        health=health,
        call=post,
    )
    kind, value, data = arrived[0]
    after = (usage or {}).get("retries", 0), (usage or {}).get("rate_limited", 0)
    retries, limited = after[0] - before[0], after[1] - before[1]
    await journal.record(Answer(where, key, kind, value, retries, limited, body=data))
    return response
