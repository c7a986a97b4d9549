"""The ``sscbench serve-local`` command (mounted on the main app by ``sscbench.cli``)."""

from __future__ import annotations

import typer
from rich.console import Console

from sscbench.local.handler import DEFAULT_MAX_TOKENS


def serve_local(
    model: str = typer.Option(
        "auto",
        help="a .gguf file, or auto: Qwen2.5-Coder-0.5B-Instruct (prebuilt server) or "
        "SmolLM2-135M-Instruct (llama-cpp-python server) from their PyPI packages",
    ),
    port: int = typer.Option(8765, help="port on 127.0.0.1; 0 picks a free port"),
    n_ctx: int | None = typer.Option(
        None, "--n-ctx", help="context window in tokens (default 16384 prebuilt, 8192 otherwise)"
    ),
    threads: int | None = typer.Option(None, help="CPU threads (default: all cores)"),
    max_tokens: int | None = typer.Option(
        None, help="reply cap for requests that set no max_tokens (default 512 prebuilt)"
    ),
    server: str = typer.Option(
        "prebuilt",
        help="prebuilt: llama.cpp's server from the xllamacpp wheel (for the act/react "
        "strategies); llama-cpp-python: our ChatML tool-call handler (tool-calling strategy)",
    ),
    auto_grammar: bool = typer.Option(
        True, help="llama-cpp-python: under tool_choice=auto, force a started call well-formed"
    ),
) -> None:
    """Serve a local GGUF model as an OpenAI-compatible endpoint on 127.0.0.1 (offline).

    Point the endpoint of a study agent (base_url) at the printed URL. Stops on Ctrl-C/SIGTERM.
    """
    from sscbench.terminal import print_error

    console = Console(stderr=True)
    if server == "prebuilt":
        from sscbench.local.serve_prebuilt import serve_prebuilt

        code = serve_prebuilt(model, port, n_ctx, threads, max_tokens, console)
        if code:
            raise typer.Exit(code)
        return
    if server != "llama-cpp-python":
        print_error(console, f"--server: unknown server {server!r} (prebuilt, llama-cpp-python)")
        raise typer.Exit(2)
    from sscbench.errors import DataError
    from sscbench.local.model import locate_model
    from sscbench.local.server import LocalTierMissing, ServerOptions, require_llama_cpp, serve

    try:
        require_llama_cpp()
        located = locate_model(model)
    except (DataError, LocalTierMissing) as exc:
        print_error(console, exc)
        raise typer.Exit(2) from None
    options = ServerOptions(
        n_ctx=n_ctx or 8192,
        threads=threads,
        default_max_tokens=max_tokens or DEFAULT_MAX_TOKENS,
        lenient_auto=auto_grammar,
    )
    try:
        serve(located, port, options)
    except OSError as exc:  # e.g. the port is taken
        print_error(console, f"cannot serve on port {port}: {exc}")
        raise typer.Exit(2) from None
