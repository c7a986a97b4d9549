"""Study configuration: a TOML file validated into typed settings with a stable hash."""

from __future__ import annotations

import hashlib
import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sscbench.agents.endpoint import LLMUserConfig, OpenAIAgentConfig
from sscbench.errors import DataError


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StudySettings(_Strict):
    """Name, seed, repetitions and concurrency of a study."""

    name: str = "study"
    seed: int = 0
    repetitions: int = Field(1, ge=1)
    concurrency: int = Field(4, ge=1, le=1024)
    first_tool_call_only: bool = True


class WorldSettings(_Strict):
    """Which world the study runs on."""

    source: Literal["generated", "tau-bench"] = "generated"
    data: str | None = None
    domains: list[Literal["airline", "retail"]] = Field(
        default_factory=lambda: ["airline", "retail"]
    )
    seed: int = 0
    read_back_cue: bool = Field(
        False,
        description="interface variant: write tools' descriptions ask to read the record back",
    )
    idempotency_keys: bool = Field(
        False,
        description="interface variant: write tools take an optional idempotency_key; a "
        "repeated key returns the first call's result without applying the write again",
    )
    strict_arguments: bool = Field(
        False,
        description="interface variant: a tool call whose top-level argument has the wrong "
        "JSON type is refused ('Error: argument ... must be of type ...') before the tool "
        "runs; by default, as in τ-bench, the value reaches the tool code",
    )

    @model_validator(mode="after")
    def _data_for_taubench(self) -> WorldSettings:
        if self.source == "tau-bench" and not self.data:
            raise ValueError("world.data is required when world.source is 'tau-bench'")
        return self


class AgentSettings(_Strict):
    """One agent configuration of the study."""

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    kind: Literal["scripted", "openai"] = "scripted"
    profile: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    endpoint: OpenAIAgentConfig | None = None

    @model_validator(mode="after")
    def _kind_fields(self) -> AgentSettings:
        if self.kind == "scripted" and not self.profile:
            raise ValueError("a scripted agent needs 'profile'")
        if self.kind == "openai" and self.endpoint is None:
            raise ValueError("an openai agent needs an [agents.endpoint] table")
        return self


class UserSettings(_Strict):
    """The simulated user of the study."""

    kind: Literal["scripted", "llm"] = "scripted"
    endpoint: LLMUserConfig | None = None

    @model_validator(mode="after")
    def _endpoint(self) -> UserSettings:
        if self.kind == "llm" and self.endpoint is None:
            raise ValueError("an llm user needs a [user.endpoint] table")
        return self


class IntensitySettings(_Strict):
    """One intensity curve: a family's parameter swept over levels (one case set each)."""

    family: str
    parameter: Literal["probability", "burst", "position"]
    levels: list[float | int] = Field(min_length=1)


class CaseSettings(_Strict):
    """Where the cases come from: a cases.jsonl file or the built-in operators."""

    file: str | None = None
    operators: list[str] = Field(
        default_factory=lambda: ["ReturnDate", "PaySource", "ItemOption", "WriteEffect"]
    )
    per_operator: int = Field(10, ge=1)
    max_steps: dict[str, int] = Field(default_factory=dict)
    params: dict[str, dict[str, float | int]] = Field(
        default_factory=dict,
        description="fault parameters per typed family (probability, burst, position)",
    )
    intensity: list[IntensitySettings] = Field(default_factory=list)


class StudyConfig(_Strict):
    """A whole study: settings, world, agents, user and cases."""

    study: StudySettings = Field(default_factory=StudySettings)
    world: WorldSettings = Field(default_factory=WorldSettings)
    agents: list[AgentSettings] = Field(min_length=1)
    user: UserSettings = Field(default_factory=UserSettings)
    cases: CaseSettings = Field(default_factory=CaseSettings)

    @model_validator(mode="after")
    def _unique_agent_ids(self) -> StudyConfig:
        ids = [a.id for a in self.agents]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"agent ids must be unique; repeated: {duplicates}")
        return self

    def canonical_json(self) -> str:
        """The config as canonical JSON (sorted keys): what its hash is taken over."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))

    def config_hash(self) -> str:
        """sha256 of the canonical JSON: a resumed study must have the same."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()


def _field_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse_config(text: str, path: str | Path) -> StudyConfig:
    """Validate TOML text; errors name the file, the field and the reason."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataError(path, None, f"not valid TOML: {exc}") from exc
    try:
        return StudyConfig.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _field_path(tuple(first["loc"])) or None
        more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
        raise DataError(path, field, first["msg"] + more) from exc


def load_config(path: str | Path | None) -> tuple[StudyConfig, str]:
    """The config at ``path`` (or the embedded default study) and its TOML text."""
    if path is None:
        text = resources.files("sscbench.run").joinpath("default_study.toml").read_text("utf-8")
        return parse_config(text, "<default study>"), text
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    return parse_config(text, path), text
