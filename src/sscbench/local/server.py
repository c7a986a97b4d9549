"""``sscbench serve-local``: llama-cpp-python's OpenAI-compatible server with our handler.

The server listens on 127.0.0.1 only and serves ``/v1/chat/completions`` and
``/v1/models``; any model name and any API key are accepted (there is one model, and
no key is configured). Requests pass through :class:`RequestNormaliser` first, which
accepts ``content: null`` and refuses ``stream: true`` with a clear 400. Uvicorn stops
the server cleanly on SIGINT and SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import FrameType
from typing import cast

from sscbench.json_types import JsonObject
from sscbench.local.chat import normalise_request
from sscbench.local.handler import DEFAULT_MAX_TOKENS, ChatHandler
from sscbench.local.model import INSTALL_HINT, LocalModel
from sscbench.reading import loads_json

HOST = "127.0.0.1"
HANDLER_NAME = "sscbench-hermes"
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
DEFAULT_PORT = 8765
DEFAULT_N_CTX = 8192
KEEP_ALIVE = 600
BATCH = 2048
"""Prompt tokens evaluated per batch (larger batches evaluate long prompts faster on CPU)."""


class LocalTierMissing(RuntimeError):
    """llama-cpp-python (the ``local`` extra) is not installed."""


def require_llama_cpp() -> None:
    """Import llama-cpp-python's server, or raise :class:`LocalTierMissing` saying what to do."""
    try:
        import llama_cpp.server.app  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise LocalTierMissing(
            f"llama-cpp-python's server is not installed ({exc}); {INSTALL_HINT}"
        ) from None


Message = Mapping[str, object]
"""An ASGI event or connection scope (keys per the ASGI spec; values read after a check)."""
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
AsgiApp = Callable[[Message, Receive, Send], Awaitable[None]]


def _headers(scope: Message) -> list[tuple[bytes, bytes]]:
    """A scope's headers without ``content-length`` (the body is rewritten)."""
    listed = scope.get("headers")
    pairs = listed if isinstance(listed, (list, tuple)) else []
    return [(k, v) for k, v in pairs if k.lower() != b"content-length"]


def _is_chat_post(scope: Message) -> bool:
    path = scope.get("path", "")
    return (
        scope["type"] == "http"
        and scope.get("method") == "POST"
        and isinstance(path, str)
        and path.endswith("/chat/completions")
    )


class RequestNormaliser:
    """ASGI middleware: chat-completions bodies go through :func:`normalise_request`."""

    def __init__(self, app: AsgiApp):
        self.app = app

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        """Rewrite a POST to ``.../chat/completions``; pass everything else through."""
        if not _is_chat_post(scope):
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunk = message.get("body", b"")
            chunks.append(chunk if isinstance(chunk, bytes) else b"")
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            data = loads_json(body)
        except ValueError:
            data = None
        if isinstance(data, dict):
            error = normalise_request(data)
            if error is not None:
                await _send_json(
                    send, 400, {"error": {"message": error, "type": "invalid_request_error"}}
                )
                return
            body = json.dumps(data).encode("utf-8")
        headers = _headers(scope)
        headers.append((b"content-length", str(len(body)).encode()))
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app({**scope, "headers": headers}, replay, send)


async def _send_json(send: Send, status: int, payload: JsonObject) -> None:
    body = json.dumps(payload).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@dataclass(frozen=True)
class ServerOptions:
    """How to run the model: context, threads, default reply cap, auto grammar.

    No saved-state cache: llama-cpp-python's saved states carry the logits of every
    prompt token (hundreds of MB each for a τ-bench prompt). The model still reuses the
    KV cache of the longest common prefix with the previous request, so consecutive
    turns of a run (and runs sharing a system prompt) evaluate only new tokens.
    """

    n_ctx: int = DEFAULT_N_CTX
    threads: int | None = None
    default_max_tokens: int = DEFAULT_MAX_TOKENS
    lenient_auto: bool = True


def build_app(
    model: LocalModel, options: ServerOptions | None = None
) -> tuple[AsgiApp, ChatHandler]:
    """The ASGI app (model loaded) and its chat handler.

    Our handler is registered in llama-cpp-python's handler registry under
    ``sscbench-hermes`` and selected through the model settings' ``chat_format``.
    """
    require_llama_cpp()
    from llama_cpp.llama_chat_format import (
        LlamaChatCompletionHandler,
        LlamaChatCompletionHandlerRegistry,
    )
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    options = options or ServerOptions()
    handler = ChatHandler(
        lenient_auto=options.lenient_auto, default_max_tokens=options.default_max_tokens
    )
    # ChatHandler is this protocol at run time; it declares messages and tools as plain
    # dicts (llama_cpp's TypedDicts) so that chat.py and handler.py import no llama_cpp
    registered = cast(LlamaChatCompletionHandler, handler)
    LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
        HANDLER_NAME, registered, overwrite=True
    )
    threads = options.threads or os.cpu_count() or 1
    settings = ModelSettings(
        model=str(model.path),
        model_alias=model.alias,
        chat_format=HANDLER_NAME,
        n_ctx=options.n_ctx,
        n_batch=BATCH,
        n_ubatch=BATCH,
        n_threads=threads,
        n_threads_batch=threads,
        verbose=False,
    )
    app = create_app(server_settings=ServerSettings(host=HOST), model_settings=[settings])

    @app.get("/sscbench/last-prompt", include_in_schema=False)
    def last_prompt() -> dict[str, str | None]:
        """The last prompt the handler rendered (for tests and debugging)."""
        return {"prompt": handler.last_prompt}

    app.add_middleware(RequestNormaliser)
    return app, handler


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (port 0: a free port chosen by the system)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    sock.listen(64)
    return sock


class _Stopped(Exception):
    """SIGINT or SIGTERM arrived (while loading, or re-raised by uvicorn after shutdown)."""


def _stop(signum: int, _frame: FrameType | None) -> None:
    raise _Stopped(signum)


def serve(
    model: LocalModel, port: int = DEFAULT_PORT, options: ServerOptions | None = None
) -> None:
    """Load the model, print the base URL and serve until SIGINT or SIGTERM.

    Uvicorn shuts down gracefully on either signal and then re-raises it; our handler
    turns that into a normal return, so a stopped server exits with status 0.
    """
    import uvicorn

    main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, _stop) for sig in STOP_SIGNALS} if main else {}
    sock = bind(port)
    try:
        started = time.perf_counter()
        app, _ = build_app(model, options)
        base_url = f"http://{HOST}:{sock.getsockname()[1]}/v1"
        loaded = time.perf_counter() - started
        print(f"model {model.alias} ({model.path.name}) loaded in {loaded:.1f} s", flush=True)
        print(f"serving {base_url} (any model name, any API key; Ctrl-C stops)", flush=True)
        # agent loops leave connections idle while tools and the user run: keep them open
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, timeout_keep_alive=KEEP_ALIVE
        )
        uvicorn.Server(config).run(sockets=[sock])
    except _Stopped:
        pass
    finally:
        sock.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("server stopped", flush=True)
