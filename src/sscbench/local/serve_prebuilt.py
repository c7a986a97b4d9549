"""``sscbench serve-local --server prebuilt``: load, print the URL, serve until a signal."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from rich.console import Console

from sscbench.errors import DataError
from sscbench.local.prebuilt import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_N_CTX,
    PrebuiltMissing,
    PrebuiltOptions,
    require_xllamacpp,
    start_prebuilt,
)
from sscbench.local.weights import DEFAULT_MODEL, assembled_gguf
from sscbench.terminal import print_error

STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def resolve_model(model: str) -> tuple[Path, str]:
    """``auto`` (the pinned packaged model, assembled and sha256-checked) or a GGUF path."""
    if model == "auto":
        return assembled_gguf(DEFAULT_MODEL), DEFAULT_MODEL.alias
    path = Path(model).expanduser()
    if not path.is_file():
        raise DataError(path, None, "no such model file (expected a .gguf file, or 'auto')")
    return path, path.stem


def serve_prebuilt(
    model: str,
    port: int,
    n_ctx: int | None,
    threads: int | None,
    max_tokens: int | None,
    console: Console,
) -> int:
    """Serve until SIGINT/SIGTERM; the exit status (2 when the tier or model is missing)."""
    try:
        require_xllamacpp()
        path, alias = resolve_model(model)
    except (DataError, PrebuiltMissing) as exc:
        print_error(console, exc)
        return 2
    options = PrebuiltOptions(
        n_ctx=n_ctx or DEFAULT_N_CTX,
        threads=threads,
        default_max_tokens=max_tokens or DEFAULT_MAX_TOKENS,
    )
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)  # delivered to sigwait below
    started = time.perf_counter()
    try:
        server, base_url = start_prebuilt(path, alias, port, options)
    except Exception as exc:
        print_error(console, f"cannot serve {path} on port {port}: {exc}")
        return 2
    print(
        f"model {alias} ({path.name}) loaded in {time.perf_counter() - started:.1f} s", flush=True
    )
    print(f"serving {base_url} (any model name, any API key; Ctrl-C stops)", flush=True)
    signal.sigwait(STOP_SIGNALS)
    del server
    print("server stopped", flush=True)
    return 0
