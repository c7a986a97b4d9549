"""The hot path of a study's model calls: chat completions POSTed over one aiohttp pool.

A study sends hundreds of requests a second at high concurrency. Through the ``openai``
client each one costs about 3 ms of CPU (its request builder, httpx's connection pool,
which scans every pooled connection for each request, and its response construction);
the same round trip over aiohttp costs about 0.6 ms, and that CPU is what separates a
study's wall time from the one the endpoint's latency dictates (``benchmarks/runs.py``).

:class:`ChatTransport` keeps the SDK's meaning and only replaces the transport: the
request carries the SDK client's own headers and key; an HTTP error status becomes the
SDK's own exception (``client._make_status_error_from_response``: ``RateLimitError``
with its ``Retry-After``, ``InternalServerError``, ...); a 2xx body is read as the SDK
reads it (JSON by content type, else tried as JSON, else its text) and built with the
SDK's own lenient ``construct_type``; a refused connection is an ``APIConnectionError``
caused by an ``httpx2.ConnectError`` and a dropped one by a ``RemoteProtocolError``, so
:mod:`sscbench.llm.retry` classifies, retries and describes failures exactly as before.
The whole-attempt timeout stays the caller's (``with_retries``).

The pool holds up to ``pool_size`` connections, kept alive between requests: the
endpoint's ``max_concurrent`` or else the limiter's ceiling, so the pool never queues a
request the limiter let go.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

import aiohttp
import httpx2
import openai
import pydantic
from openai._models import construct_type
from openai.types.chat import ChatCompletion

from sscbench.json_types import JsonValue
from sscbench.jsonl import dumps_line
from sscbench.llm.endpoint import MAX_RESPONSE_BYTES, EndpointConfig
from sscbench.llm.limiter import DEFAULT_CEILING
from sscbench.reading import loads_json


def pool_size(config: EndpointConfig) -> int:
    """Connections the endpoint's pool may hold: ``max_concurrent``, else the limiter's
    ceiling (the most requests flow control ever lets be in flight)."""
    return config.max_concurrent or DEFAULT_CEILING


def request_headers(client: openai.AsyncOpenAI) -> dict[str, str]:
    """The headers the SDK client sends on each request, its bearer key included."""
    headers = {k: v for k, v in client.default_headers.items() if isinstance(v, str)}
    headers["Authorization"] = f"Bearer {client.api_key}"
    return headers


def build_completion(value: JsonValue) -> object:
    """The ``ChatCompletion`` the SDK builds from a decoded body: a body that is exactly a
    chat completion is validated strictly (no coercion: the same object the SDK's lenient
    ``construct_type`` builds, 20x faster); any other body is built by ``construct_type``
    itself, as the SDK does, so odd and malformed answers read as they always did."""
    try:
        return ChatCompletion.model_validate(value, strict=True)
    except pydantic.ValidationError:
        return construct_type(type_=ChatCompletion, value=value)


def request_bytes(body: Mapping[str, object]) -> bytes:
    """The UTF-8 JSON of a request body; a lone surrogate (model output the SDK's own
    encoder cannot send) goes out as its ``\\uXXXX`` escape, the text the model emitted.

    The ``tools`` list (half of a τ-bench request, the same list on every turn of an
    agent) is encoded once per list object (:func:`_tools_json`) and put last; a long
    system prompt (most of the rest, the same on every turn of every run) once per text
    (:func:`_messages_json`). The bytes are those of :func:`dumps_line` of the body."""
    tools = body.get("tools")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        if not isinstance(tools, list) or not tools:
            return dumps_line(body).encode("utf-8")
        rest = dumps_line({k: v for k, v in body.items() if k != "tools"})
        return f'{rest[:-1]}{"," if len(rest) > 2 else ""}"tools":{_tools_json(tools)}}}'.encode()
    parts = []
    for key, value in body.items():
        if key == "tools" and isinstance(tools, list) and tools:
            continue
        text = _messages_json(messages) if key == "messages" else dumps_line(value)
        parts.append(f"{dumps_line(key)}:{text}")
    if isinstance(tools, list) and tools:
        parts.append(f'"tools":{_tools_json(tools)}')
    return f"{{{','.join(parts)}}}".encode()


LONG_PROMPT = 1024
"""Characters from which a system message's JSON is kept for the next requests."""
_PROMPTS_JSON: dict[str, str] = {}
"""JSON of long system messages by their text (a world's policy: a few per study)."""


def _messages_json(messages: list[JsonValue]) -> str:
    """The JSON of a message list, each long system message's taken from the cache (its
    text is hashed once per string object; the same text is the same JSON) and the
    messages between encoded together."""
    texts: list[str] = []
    start = 0
    for i, message in enumerate(messages):
        cached = _prompt_json(message)
        if cached is None:
            continue
        if start < i:
            texts.append(dumps_line(messages[start:i])[1:-1])
        texts.append(cached)
        start = i + 1
    if start < len(messages):
        texts.append(dumps_line(messages[start:])[1:-1])
    return f"[{','.join(texts)}]"


def _prompt_json(message: JsonValue) -> str | None:
    """The JSON of a long system message (``{"role": "system", "content": text}``), kept
    by its text; None for any other message."""
    if not isinstance(message, dict) or len(message) != 2 or next(iter(message)) != "role":
        return None
    content = message.get("content")
    if message["role"] != "system" or not isinstance(content, str) or len(content) < LONG_PROMPT:
        return None
    cached = _PROMPTS_JSON.get(content)
    if cached is None:
        if len(_PROMPTS_JSON) >= 16:
            _PROMPTS_JSON.clear()
        cached = _PROMPTS_JSON[content] = dumps_line(message)
    return cached


_TOOLS_JSON: dict[int, tuple[list[JsonValue], str]] = {}
"""JSON of tool lists by identity, each kept beside its list (so its id stays its own)."""


def _tools_json(tools: list[JsonValue]) -> str:
    """The JSON of a tool list, encoded on its first request. Tool lists are a world's
    schemas, shared read-only by every run's agent and never changed once built; the
    cache holds each list it encoded, so an ``id`` is never reused for another list."""
    cached = _TOOLS_JSON.get(id(tools))
    if cached is not None and cached[0] is tools:
        return cached[1]
    if len(_TOOLS_JSON) >= 64:
        _TOOLS_JSON.clear()
    text = dumps_line(tools)
    _TOOLS_JSON[id(tools)] = (tools, text)
    return text


def completion_of(kind: str, value: JsonValue) -> object:
    """The reply of an answer as :meth:`ChatTransport.post_value` gives it: the text of a
    body that is not JSON, None for JSON ``null``, else the ``ChatCompletion``."""
    if kind == "text" or value is None:
        return value
    return build_completion(value)


class BodyNotJSON(ValueError):
    """A 2xx body declared JSON that does not parse (the SDK raises ``ValueError`` too)."""


class ResponseTooLarge(ValueError):
    """An answer whose body is longer than the endpoint's ``max_response_bytes``."""


CHUNK = 64 * 1024
"""Bytes read from a body at a time (the cap is checked after each chunk)."""


async def read_capped(answer: aiohttp.ClientResponse, limit: int) -> bytes:
    """An answer's whole body, read chunk by chunk and never past ``limit`` bytes: a
    longer body (a declared ``Content-Length`` or what arrives) raises
    :class:`ResponseTooLarge` naming the cap, so a server streaming forever costs at
    most ``limit`` bytes of memory per request in flight."""
    declared = answer.content_length
    if declared is not None and declared > limit:
        raise ResponseTooLarge(_too_large(limit, f"it declared {declared} bytes"))
    chunks: list[bytes] = []
    size = 0
    async for chunk in answer.content.iter_chunked(CHUNK):
        size += len(chunk)
        if size > limit:
            raise ResponseTooLarge(_too_large(limit, f"more than {limit} bytes arrived"))
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(limit: int, seen: str) -> str:
    mib = f" ({limit / 1048576:g} MiB)" if limit >= 1048576 else ""
    return f"the response body is over max_response_bytes = {limit}{mib}: {seen}; read no further"


class _CappedStream(httpx2.AsyncByteStream):
    """A response body that raises :class:`ResponseTooLarge` past ``limit`` bytes."""

    def __init__(self, stream: httpx2.AsyncByteStream, limit: int):
        self._stream = stream
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for chunk in self._stream:
            size += len(chunk)
            if size > self._limit:
                raise ResponseTooLarge(
                    _too_large(self._limit, f"more than {self._limit} bytes arrived")
                )
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """The SDK client's transport (the classifier's and oracles' calls) with the same
    cap on a body as :func:`read_capped`: no body is read past ``limit`` bytes."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, limit: int):
        self._inner = inner
        self._limit = limit

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send the request; its answer's body is read through the cap."""
        response = await self._inner.handle_async_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._limit:
            await response.aclose()
            raise ResponseTooLarge(_too_large(self._limit, f"it declared {declared} bytes"))
        stream = response.stream
        if not isinstance(stream, httpx2.AsyncByteStream):
            raise TypeError("an async transport answered with a synchronous body")
        response.stream = _CappedStream(stream, self._limit)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


class ChatTransport:
    """One endpoint's aiohttp connection pool in one event loop, beside its SDK client;
    no body longer than ``max_body`` bytes is read (:func:`read_capped`)."""

    def __init__(self, client: openai.AsyncOpenAI, size: int, max_body: int = MAX_RESPONSE_BYTES):
        self.client = client
        self.size = size
        self.max_body = max_body
        self.url = str(client.base_url).rstrip("/") + "/chat/completions"
        self._headers = request_headers(client)
        self._session: aiohttp.ClientSession | None = None
        self.trace_configs: list[aiohttp.TraceConfig] = []
        """aiohttp request traces for the pool, added before its first use (benchmarks)."""

    @property
    def api_key(self) -> str:
        """The SDK client's key (masked out of every failure message by the caller)."""
        return self.client.api_key

    def session(self) -> aiohttp.ClientSession:
        """The pool, opened on first use in the running loop."""
        if self._session is None:
            connector = aiohttp.TCPConnector(limit=self.size, limit_per_host=self.size)
            self._session = aiohttp.ClientSession(
                connector=connector,
                timeout=aiohttp.ClientTimeout(total=None),
                headers=self._headers,
                skip_auto_headers=("User-Agent",),
                trace_configs=self.trace_configs or None,
            )
        return self._session

    async def post(self, content: bytes) -> object:
        """POST one request body and return what ``client.post(..., cast_to=ChatCompletion)``
        returns: a ``ChatCompletion``, or the body's text when it is not JSON at all."""
        return completion_of(*await self.post_value(content))

    async def post_value(self, content: bytes) -> tuple[str, JsonValue]:
        """POST one request body and return its answer as it arrived: ``("json", value)``
        for a JSON body, ``("text", text)`` for one that is not JSON at all (what a run's
        response journal keeps; :func:`completion_of` makes the reply of either)."""
        kind, value, _body = await self.post_body(content)
        return kind, value

    async def post_body(self, content: bytes) -> tuple[str, JsonValue, bytes]:
        """:meth:`post_value` with the body's bytes as they arrived (a journal writes a
        JSON body as it is rather than encoding its value again)."""
        try:
            async with self.session().post(self.url, data=content) as answer:
                data = await read_capped(answer, self.max_body)
                status, headers = answer.status, list(answer.headers.items())
        except aiohttp.ClientConnectorError as exc:
            raise openai.APIConnectionError(request=self._request()) from httpx2.ConnectError(
                str(exc)
            )
        except (aiohttp.ClientError, ConnectionError) as exc:
            cause = httpx2.RemoteProtocolError(str(exc) or type(exc).__name__)
            raise openai.APIConnectionError(request=self._request()) from cause
        if not 200 <= status < 300:
            response = httpx2.Response(
                status, headers=headers, content=data, request=self._request()
            )
            raise self.client._make_status_error_from_response(response)
        content_type = dict((k.lower(), v) for k, v in headers).get("content-type", "*")
        if content_type.split(";")[0].endswith("json"):
            try:
                value = loads_json(data, max_depth=None)
            except ValueError as exc:
                raise BodyNotJSON(str(exc)) from None
        else:
            try:
                value = loads_json(data, max_depth=None)
            except ValueError:
                return "text", data.decode("utf-8", errors="replace"), data
        return "json", value, data

    def _request(self) -> httpx2.Request:
        """The request as the SDK's errors carry it (built only for a failure)."""
        return httpx2.Request("POST", self.url)

    async def aclose(self) -> None:
        """Close the pool (its connections) and the SDK client."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()
        await self.client.close()

    def __repr__(self) -> str:
        return f"ChatTransport(url={self.url!r}, size={self.size})"


__all__ = [
    "BodyNotJSON",
    "CappedTransport",
    "ChatTransport",
    "ResponseTooLarge",
    "completion_of",
    "pool_size",
    "read_capped",
    "request_bytes",
    "request_headers",
]
