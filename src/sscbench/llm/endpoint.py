"""Connection settings for OpenAI-compatible endpoints (no client imported here)."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sscbench.errors import DataError
from sscbench.json_types import JsonObject

LATER: JsonObject = {"later": True}
"""Marks a field added after studies were recorded: at its default it stays out of the
config hash (:mod:`sscbench.study.config_hash`), so older studies keep their hash."""

MAX_RESPONSE_BYTES = 8 * 1024 * 1024
"""The default cap on one answer's body (``max_response_bytes``): 8 MiB."""
MAX_RETRY_AFTER_S = 120.0
"""The default cap on a server's ``Retry-After`` (``max_retry_after_s``)."""
MAX_WAIT_S = 600.0
"""The default bound on waiting for the endpoint's permit (``max_wait_s``)."""

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class EndpointConfig(BaseModel):
    """How to reach an OpenAI-compatible chat-completions endpoint and sample from it.

    ``api_key_env`` is the *name* of the environment variable holding the key, so
    dumping a config never writes the key.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str
    model: str
    temperature: float = 0.0
    seed: int | None = None
    max_tokens: int | None = None
    api_key_env: str = "OPENAI_API_KEY"
    max_retries: int = Field(4, ge=0)
    backoff_initial: float = Field(1.0, ge=0)
    backoff_max: float = Field(30.0, ge=0)
    timeout: float = Field(
        120.0, gt=0, description="seconds one whole attempt may take, reading the body included"
    )
    max_response_bytes: int = Field(
        MAX_RESPONSE_BYTES,
        ge=1024,
        json_schema_extra=LATER,
        description="bytes one answer's body may hold; a longer body fails the request "
        "(read no further) as a harness error",
    )
    max_retry_after_s: float = Field(
        MAX_RETRY_AFTER_S,
        gt=0,
        json_schema_extra=LATER,
        description="the longest Retry-After waited out; a server asking for longer "
        "(or for inf) fails the request as a harness error",
    )
    unreachable_after: int = Field(
        3,
        ge=0,
        description="stop the study when the endpoint's first this-many requests all fail to "
        "connect (it never answered); 0 never stops",
    )
    # flow control and planning (sscbench.llm.limiter, sscbench plan): they change how
    # fast a study runs, never what runs, so they stay out of the config hash (exclude)
    flow_control: bool = Field(
        True, exclude=True, description="share one limiter per endpoint (base URL + model)"
    )
    max_concurrent: int | None = Field(
        None, ge=1, le=4096, exclude=True, description="requests in flight at most"
    )
    max_wait_s: float = Field(
        MAX_WAIT_S,
        gt=0,
        exclude=True,
        description="seconds a request may wait for the endpoint's permit (concurrency "
        "window, rate budgets, a Retry-After pause) before it fails as a harness error",
    )
    requests_per_minute: float | None = Field(None, gt=0, exclude=True)
    tokens_per_minute: float | None = Field(None, gt=0, exclude=True)
    context_tokens: int | None = Field(
        None, ge=1, exclude=True, description="prompt tokens per request at most (plan's bound)"
    )

    @field_validator("api_key_env")
    @classmethod
    def _names_a_variable(cls, value: str) -> str:
        """Refuse a key pasted where its variable's name belongs: the config is written
        to the study folder (``config.toml``, ``config.json``) and must never hold it."""
        mixed_case = not value.isupper()
        long_or_sk = len(value) > 40 or value[:3].lower() in ("sk_", "sk-")
        if not _ENV_NAME.fullmatch(value) or (mixed_case and long_or_sk):
            raise ValueError(
                "api_key_env must name an environment variable (letters, digits and _, at "
                "most 64), not hold the key"
            )
        return value


class OpenAIAgentConfig(EndpointConfig):
    """An agent configuration: the endpoint and model, sampling, retries and tool choice."""

    tool_choice: str = "auto"


class LLMUserConfig(EndpointConfig):
    """The simulated user's endpoint, model, sampling and retries."""


def endpoint_from_options(
    options: dict[str, str] | None = None, **fields: object
) -> EndpointConfig:
    """An :class:`EndpointConfig` from command-line options: a bad value (a key given as
    ``--api-key-env``, a negative timeout) is a :class:`DataError` naming its option
    (``options`` maps a field to its option where the names differ), not a traceback."""
    try:
        return EndpointConfig(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else ""
        option = (options or {}).get(name, "--" + name.replace("_", "-"))
        raise DataError(option, None, first["msg"].removeprefix("Value error, ")) from None
