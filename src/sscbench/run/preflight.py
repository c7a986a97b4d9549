"""The study's preflight: every endpoint a study's runs call (model agents, the LLM user)
checked once before the first run (:mod:`sscbench.llm.preflight`), and the key variables
``sscbench plan`` reports unset. Scripted agents, the scripted user and replay call no
model and need none."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from sscbench.errors import DataError
from sscbench.llm.endpoint import EndpointConfig
from sscbench.llm.preflight import preflight
from sscbench.llm.providers import key_required
from sscbench.study.config import StudyConfig


class PreflightFailed(DataError):
    """An endpoint refused the preflight: the study stops before its folder exists."""

    def __init__(self, line: str):
        self.path = Path("preflight")
        self.field = None
        self.reason = line
        Exception.__init__(self, f"preflight: {line}")


def study_endpoints(config: StudyConfig) -> list[tuple[EndpointConfig, str | None]]:
    """The endpoints the study's runs call, each with the ``tool_choice`` it is sent:
    None for callers that send no tools (act/react agents, the LLM user), whose check is
    a plain prompt."""
    endpoints: list[tuple[EndpointConfig, str | None]] = [
        (agent.endpoint, agent.endpoint.tool_choice if agent.strategy == "tool-calling" else None)
        for agent in config.agents
        if agent.kind == "openai" and agent.endpoint is not None
    ]
    if config.user.kind == "llm" and config.user.endpoint is not None:
        endpoints.append((config.user.endpoint, None))
    return endpoints


def check_study_endpoints(config: StudyConfig, say: Callable[[str], None]) -> None:
    """Check each distinct endpoint of the study once; print what each said and raise
    :class:`PreflightFailed` (one line, the first refusal) when one fails."""
    endpoints = study_endpoints(config)
    if not endpoints:
        return
    results = preflight(endpoints)
    failed = [r for r in results if not r.ok]
    if failed:
        more = f" (and {len(failed) - 1} more endpoints)" if len(failed) > 1 else ""
        raise PreflightFailed(failed[0].line + more + "; nothing was created")
    for result in results:
        say(f"preflight: {result.line}")


def unset_keys(config: StudyConfig) -> list[str]:
    """The key variables the study's endpoints need that are unset, each once (a server
    on this machine needs none)."""
    names: list[str] = []
    for endpoint, _ in study_endpoints(config):
        name = endpoint.api_key_env
        if name in names or os.environ.get(name):
            continue
        if key_required(endpoint.base_url, name):
            names.append(name)
    return names


def user_line(config: StudyConfig) -> str:
    """What simulates the user, said in the plan and the run's output."""
    return config.user.describe()
