"""The provider table of ``sscbench run --model PROVIDER/NAME``: where each provider's
OpenAI-compatible chat-completions endpoint is, which environment variable holds its key,
and what it does differently (its quirks).

Every provider here speaks the OpenAI chat-completions protocol (tools, ``tool_choice``,
several tool calls in one answer), so one transport serves them all
(:mod:`sscbench.llm.transport`); any other server is reached with ``--base-url``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sscbench.errors import DataError
from sscbench.json_types import JsonObject


@dataclass(frozen=True)
class Provider:
    """One provider: its endpoint, its key's variable and its quirks.

    ``key_required`` is False for servers one runs oneself (vLLM, Ollama), which accept
    any key; ``temperature_max`` is the highest sampling temperature the endpoint takes
    (Anthropic's compatible endpoint clamps at 1); ``tool_choice`` the values of
    ``tool_choice`` it honours; ``notes`` what a user should know, printed by ``plan``.
    """

    name: str
    base_url: str
    api_key_env: str
    key_required: bool = True
    temperature_max: float = 2.0
    tool_choice: tuple[str, ...] = ("auto", "required", "none")
    notes: str = ""


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider("openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
        Provider(
            "anthropic",
            "https://api.anthropic.com/v1/",
            "ANTHROPIC_API_KEY",
            temperature_max=1.0,
            notes="OpenAI-compatible layer: seed is ignored, temperature at most 1",
        ),
        Provider(
            "google",
            "https://generativelanguage.googleapis.com/v1beta/openai/",
            "GEMINI_API_KEY",
            notes="Gemini's OpenAI-compatible endpoint",
        ),
        Provider(
            "openrouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            notes="NAME is OpenRouter's model id, e.g. openrouter/meta-llama/llama-3.1-70b-instruct",
        ),
        Provider("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
        Provider(
            "vllm",
            "http://localhost:8000/v1",
            "VLLM_API_KEY",
            key_required=False,
            notes="serve with --enable-auto-tool-choice and a --tool-call-parser",
        ),
        Provider(
            "ollama",
            "http://localhost:11434/v1",
            "OLLAMA_API_KEY",
            key_required=False,
            tool_choice=("auto",),
            notes="tool_choice other than auto is not honoured",
        ),
    )
}
"""Providers by name; ``--base-url`` points any of them (or an unknown name) elsewhere."""

_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def split_model(spec: str) -> tuple[str, str]:
    """``PROVIDER/NAME`` as (provider, name); the name may itself hold slashes
    (OpenRouter's ``meta-llama/llama-3.1-70b``)."""
    provider, _, name = spec.partition("/")
    if not provider or not name:
        raise DataError("--model", None, f"{spec!r} is not PROVIDER/NAME (e.g. openai/gpt-4o)")
    return provider.lower(), name


def endpoint_fields(
    spec: str, base_url: str | None = None, temperature: float | None = None
) -> JsonObject:
    """The ``[agents.endpoint]`` (or ``[user.endpoint]``) table of a model named
    ``PROVIDER/NAME``: the provider's URL (``base_url`` replaces it; an unknown provider
    needs it), its key's variable and the model name; ``temperature`` checked against the
    provider's range. Refusals are :class:`DataError` naming the option."""
    name, model = split_model(spec)
    provider = PROVIDERS.get(name)
    if provider is None and base_url is None:
        known = ", ".join(PROVIDERS)
        raise DataError(
            "--model",
            None,
            f"unknown provider {name!r} in {spec!r}: use one of {known}, or give --base-url "
            "for any OpenAI-compatible server",
        )
    fields: JsonObject = {"base_url": base_url or provider.base_url, "model": model}  # type: ignore[union-attr]
    fields["api_key_env"] = provider.api_key_env if provider else "OPENAI_API_KEY"
    if temperature is not None:
        top = provider.temperature_max if provider else 2.0
        if not 0.0 <= temperature <= top:
            raise DataError(
                "--temperature", None, f"{temperature:g} is outside {name}'s range 0 to {top:g}"
            )
        fields["temperature"] = temperature
    return fields


def agent_id(spec: str) -> str:
    """The agent id of ``--model PROVIDER/NAME``: ``PROVIDER-NAME`` with every run of
    characters an id may not hold (slashes, colons) as one ``-`` (and never ``--``)."""
    text = _NAME.sub("-", spec.replace("/", "-"))
    while "--" in text:
        text = text.replace("--", "-")
    return text.strip("-")[:64] or "model"


def provider_of(base_url: str, api_key_env: str) -> Provider | None:
    """The table's provider an endpoint belongs to (same URL or same key variable)."""
    for provider in PROVIDERS.values():
        if base_url.rstrip("/") == provider.base_url.rstrip("/"):
            return provider
    return next((p for p in PROVIDERS.values() if p.api_key_env == api_key_env), None)


def key_required(base_url: str, api_key_env: str) -> bool:
    """Whether an endpoint needs a key: a table provider says so; a server on this
    machine (localhost, 127.0.0.1) is taken not to; any other URL is."""
    provider = provider_of(base_url, api_key_env)
    if provider is not None and base_url.rstrip("/") == provider.base_url.rstrip("/"):
        return provider.key_required
    host = re.sub(r"^[a-z]+://", "", base_url).split("/", 1)[0].rsplit(":", 1)[0]
    return host not in ("localhost", "127.0.0.1", "[::1]", "0.0.0.0")
