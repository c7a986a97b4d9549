"""llama.cpp's own server from the prebuilt ``xllamacpp`` wheel (no compiling).

:func:`start_prebuilt` loads a GGUF file into llama.cpp's C++ server on 127.0.0.1 and
returns its base URL; the server keeps running in the process until it exits. It
serves OpenAI-compatible ``/v1/chat/completions`` with prompt caching (a slot reuses
the KV cache of the longest common prefix, so later turns of a run evaluate only the
new tokens) and turns a JSON-schema ``response_format`` into a grammar — which the
act/react strategies use. Memory stays bounded: one slot, logits only for the
sampled token, ``n_ctx`` sized for τ-bench prompts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

HOST = "127.0.0.1"
DEFAULT_N_CTX = 16384
"""Tokens of context: a τ-bench airline prompt with its act instructions is ~6k tokens,
and a 30-turn run adds a few thousand more."""
DEFAULT_MAX_TOKENS = 512
"""Reply cap when a request sets none (a full booking action fits)."""
XLLAMACPP = "xllamacpp==2026.10.11549"


class PrebuiltMissing(RuntimeError):
    """The ``xllamacpp`` wheel is not installed."""


@dataclass(frozen=True)
class PrebuiltOptions:
    """How to run llama.cpp's server: context, threads, reply cap, seed."""

    n_ctx: int = DEFAULT_N_CTX
    threads: int | None = None
    default_max_tokens: int = DEFAULT_MAX_TOKENS
    seed: int = 0


def require_xllamacpp() -> ModuleType:
    """The ``xllamacpp`` module, or :class:`PrebuiltMissing` saying what to install."""
    try:
        import xllamacpp
    except ImportError as exc:
        raise PrebuiltMissing(
            f"the prebuilt llama.cpp server is not installed ({exc}); "
            f"pip install 'sscbench[local]' (or pip install {XLLAMACPP})"
        ) from None
    return xllamacpp


def server_params(model: Path, alias: str, port: int, options: PrebuiltOptions) -> object:
    """llama.cpp's ``CommonParams`` for serving ``model`` on 127.0.0.1:``port``."""
    xlc = require_xllamacpp()
    params = xlc.CommonParams()
    params.model.path = str(model)
    params.model_alias = {alias}
    params.hostnames = [HOST]
    params.port = port
    params.n_ctx = options.n_ctx
    params.n_parallel = 1  # one slot: the whole context for one run, cache reused
    params.n_predict = options.default_max_tokens
    params.n_batch = 2048
    params.cache_prompt = True
    params.warmup = False
    params.use_jinja = True  # the model's own chat template
    params.sampling.seed = options.seed
    threads = options.threads or os.cpu_count() or 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    return params


def start_prebuilt(
    model: Path, alias: str, port: int, options: PrebuiltOptions
) -> tuple[object, str]:
    """Start llama.cpp's server in this process; ``(server, base URL ending in /v1)``."""
    xlc = require_xllamacpp()
    server = xlc.Server(server_params(model, alias, port, options))
    address: str = server.listening_address
    return server, address.rstrip("/") + "/v1"
