"""Connection settings for OpenAI-compatible endpoints (no client imported here)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


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
    requests_per_minute: float | None = Field(None, gt=0, exclude=True)
    tokens_per_minute: float | None = Field(None, gt=0, exclude=True)
    context_tokens: int | None = Field(
        None, ge=1, exclude=True, description="prompt tokens per request at most (plan's bound)"
    )


class OpenAIAgentConfig(EndpointConfig):
    """An agent configuration: the endpoint and model, sampling, retries and tool choice."""

    tool_choice: str = "auto"


class LLMUserConfig(EndpointConfig):
    """The simulated user's endpoint, model, sampling and retries."""
