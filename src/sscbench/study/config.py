"""Study configuration: a TOML file validated into typed settings with a stable hash."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from sscbench.errors import DataError
from sscbench.json_types import JsonValue
from sscbench.llm.endpoint import LLMUserConfig, OpenAIAgentConfig
from sscbench.names import PathName
from sscbench.reading import loads_toml, read_text
from sscbench.study.config_cases import CaseSettings
from sscbench.study.config_cases import Strict as _Strict
from sscbench.study.config_domains import check_operator_domains
from sscbench.study.config_errors import config_error
from sscbench.study.config_hash import LATER, canonical_config_json
from sscbench.study.config_oracles import OracleScoring, SecondReaderSettings
from sscbench.study.model_flags import ModelOptions, study_text
from sscbench.study.process_config import ProcessSettings
from sscbench.study.ray_config import AgentRaySettings, RaySettings
from sscbench.study.replay_config import ConfigPath, ReplaySettings, checked_sha256
from sscbench.world.packaged import packaged_taubench, resolve_packaged

MAX_REPETITIONS = 10_000
MAX_PLAN_UNITS = 2_000_000
"""Largest plan (case x agent configuration x repetition units) a study may hold."""
MAX_AGENT_ID = 64
"""Agent ids name files (run ids): bounded so that a file name stays under 255 bytes."""

DomainName = Literal["airline", "retail"]
DOMAIN_NAMES: tuple[DomainName, ...] = ("airline", "retail")


class StudySettings(_Strict):
    """Name, seed, repetitions and concurrency of a study."""

    name: str = "study"
    seed: int = 0
    repetitions: int = Field(1, ge=1, le=MAX_REPETITIONS)
    concurrency: int = Field(4, ge=1, le=1024)
    first_tool_call_only: bool = True
    # Live OpenTelemetry traces of each finished run (the otel extra). Observability
    # only: excluded from the config's hash, so turning it on never blocks a resume.
    otel: bool = Field(False, exclude=True, description="emit each run's trace as it finishes")
    otel_endpoint: str | None = Field(
        None, exclude=True, description="OTLP/HTTP traces URL; default: STUDY/otel-spans.jsonl"
    )
    otel_include_content: bool = Field(
        False, exclude=True, description="add tool arguments and results to the spans"
    )
    # Where the episodes are made (this process, or a Ray cluster). Placement only: the
    # index is the same either way, so it is excluded from the hash like otel.
    executor: Literal["local", "processes", "ray"] = Field(
        "local",
        exclude=True,
        description="make episodes here (local), in child processes on every core "
        "(processes) or on a Ray cluster (ray)",
    )
    ray: RaySettings = Field(default_factory=RaySettings, exclude=True)
    processes: ProcessSettings = Field(default_factory=ProcessSettings, exclude=True)
    # Where the runs' text is kept (study/runfiles.py): a file pair per run, or shards.
    # The runs, index and measurements are the same either way: outside the hash.
    store: Literal["auto", "files", "shards"] = Field(
        "auto",
        exclude=True,
        description="run text layout: auto (shards above 2,000 runs or at concurrency 128+)",
    )
    # A spend bound (``--max-cost`` overrides it): it only stops the study early, never
    # changes a run, so it is outside the hash and a raised bound resumes the study.
    max_cost_usd: float | None = Field(
        None,
        ge=0,
        allow_inf_nan=False,
        exclude=True,
        description="stop starting runs once the spend could cross this many dollars",
    )


class WorldSettings(_Strict):
    """Which world the study runs on."""

    source: Literal["generated", "tau-bench"] = "generated"
    data: ConfigPath | None = None  # tau-bench: a folder or checkout; None: the packaged data
    domains: list[DomainName] = Field(default_factory=lambda: list(DOMAIN_NAMES))
    seed: int = 0
    read_back_cue: bool = Field(
        False,
        description="interface variant: write tools' descriptions ask to read the record back",
    )
    consistent_source: bool = Field(
        False,
        description="contradiction-relation variant: the authoritative source agrees with "
        "the injected assertion (ItemOption's product record, WriteEffect's read-back), so "
        "nothing the agent can read refutes it; run as the pair of the same study without it",
        json_schema_extra=LATER,
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


class AgentSettings(_Strict):
    """One agent configuration of the study."""

    id: PathName = Field(pattern=r"^[A-Za-z0-9_.-]+$", max_length=MAX_AGENT_ID)
    kind: Literal["scripted", "openai", "replay", "inspect"] = "scripted"
    profile: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    endpoint: OpenAIAgentConfig | None = None
    replay: ReplaySettings | None = None
    ray: AgentRaySettings = Field(
        default_factory=AgentRaySettings, exclude=True
    )  # placement on a Ray cluster only: outside the hash
    strategy: Literal["tool-calling", "act", "react"] = Field(
        "tool-calling",
        description="openai agents: the API's tool calls, or τ-bench's act / react "
        "(one JSON action per turn in the message content)",
        json_schema_extra=LATER,
    )
    constrain: bool = Field(
        False,
        description="openai agents under act/react: send the JSON schema of one action "
        "as response_format (the server constrains decoding to it)",
        json_schema_extra=LATER,
    )
    repetitions: int | None = Field(
        None,
        ge=1,
        le=MAX_REPETITIONS,
        strict=True,
        description="this configuration's repetitions, overriding study.repetitions "
        "(None: the study's)",
        json_schema_extra=LATER,
    )
    qualify: Literal["reward", "completed"] = Field(
        "reward",
        description="what qualifies a clean run for its faulted run: reward 1 (the paper's "
        "protocol) or merely completed (no harness error; for weak agents, stated in the "
        "report)",
        json_schema_extra=LATER,
    )

    @field_validator("id")
    @classmethod
    def _no_double_dash(cls, value: str) -> str:
        if "--" in value:
            raise ValueError("an agent id may not contain '--' (it separates the parts of run ids)")
        return value

    @model_validator(mode="after")
    def _kind_fields(self) -> AgentSettings:
        if self.kind == "scripted":
            if not self.profile:
                raise ValueError("a scripted agent needs 'profile'")
            from sscbench.study.profiles import make_profile

            try:
                make_profile(self.profile, **self.params)
            except KeyError as exc:
                raise ValueError(str(exc.args[0])) from None
            except (TypeError, ValueError) as exc:
                raise ValueError(str(exc)) from None
        if self.kind == "openai" and self.endpoint is None:
            raise ValueError("an openai agent needs an [agents.endpoint] table")
        if self.kind == "inspect" and not isinstance(self.params.get("model"), str):
            raise ValueError("an inspect agent needs params.model (the Inspect model's name)")
        if self.kind != "openai" and (self.strategy != "tool-calling" or self.constrain):
            raise ValueError("'strategy' and 'constrain' belong to an agent of kind 'openai'")
        if self.constrain and self.strategy == "tool-calling":
            raise ValueError("'constrain' needs strategy 'act' or 'react'")
        if self.kind == "replay" and self.replay is None:
            raise ValueError("a replay agent needs an [agents.replay] table")
        if self.kind != "replay" and self.replay is not None:
            raise ValueError("[agents.replay] belongs to an agent of kind 'replay'")
        if self.kind == "replay" and self.repetitions is not None:
            raise ValueError(
                "'repetitions' does not apply to a replay agent: it runs one repetition "
                "per selected recording"
            )
        return self


class UserSettings(_Strict):
    """The simulated user of the study."""

    kind: Literal["scripted", "llm", "replay"] = Field(
        "scripted", description="replay: the recorded user messages of the run being replayed"
    )
    endpoint: LLMUserConfig | None = None

    def describe(self) -> str:
        """What simulates the user, in one line (the plan, the run and the report say it:
        the default is the scripted user, which a newcomer would not guess)."""
        if self.kind == "llm" and self.endpoint is not None:
            return f"user simulator: LLM ({self.endpoint.model} at {self.endpoint.base_url})"
        if self.kind == "replay":
            return "user simulator: replay (the recorded user messages)"
        return (
            "user simulator: scripted (deterministic scripted user; --user-model "
            "PROVIDER/NAME for an LLM user)"
        )

    @model_validator(mode="after")
    def _endpoint(self) -> UserSettings:
        if self.kind == "llm" and self.endpoint is None:
            raise ValueError("an llm user needs a [user.endpoint] table")
        return self


class ModelPrice(_Strict):
    """What a model's tokens cost, in dollars per million tokens (``[prices."model"]``)."""

    prompt_per_mtok: float = Field(ge=0)
    completion_per_mtok: float = Field(ge=0)


class StudyConfig(_Strict):
    """A whole study: settings, world, agents, user and cases.

    ``prices`` (an optional per-model price table) only estimates what the runs cost: it
    never changes what runs, so it is left out of the config hash (``exclude``) and a
    study resumes under a new price table.
    """

    study: StudySettings = Field(default_factory=StudySettings)
    world: WorldSettings = Field(default_factory=WorldSettings)
    agents: list[AgentSettings] = Field(min_length=1)
    user: UserSettings = Field(default_factory=UserSettings)
    cases: CaseSettings = Field(default_factory=CaseSettings)
    prices: dict[str, ModelPrice] = Field(default_factory=dict, exclude=True)
    # Oracle settings scored after measuring: never changes what runs, so outside the
    # hash like prices (a study recorded without [oracles] resumes with it).
    oracles: OracleScoring | None = Field(None, exclude=True)
    # The second reader of marked runs (sscbench second-read): outside the hash likewise.
    second_reader: SecondReaderSettings | None = Field(None, exclude=True)
    _base_dir: Path = PrivateAttr(default_factory=Path.cwd)

    @model_validator(mode="after")
    def _unique_agent_ids(self) -> StudyConfig:
        ids = [a.id for a in self.agents]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"agent ids must be unique; repeated: {duplicates}")
        return self

    @model_validator(mode="after")
    def _replay_pairs(self) -> StudyConfig:
        replaying = [a.kind == "replay" for a in self.agents]
        if any(replaying) and self.user.kind != "replay":
            raise ValueError("replay agents need the recorded user: set [user] kind = 'replay'")
        if self.user.kind == "replay" and not all(replaying):
            raise ValueError(
                "a replay user replays a replay agent's recording: every agent "
                "must be of kind 'replay'"
            )
        return self

    def plan_bound(self) -> int | None:
        """An upper bound of the plan's units (None with a cases file: counted when read)."""
        if self.cases.file:
            return None
        cases = self.cases
        sets = len(cases.operators) + sum(len(c.levels) for c in cases.intensity)
        units = sets * len(self.world.domains) * cases.per_operator
        return units * self.total_repetitions()

    def repetitions_of(self, agent: AgentSettings) -> int:
        """How many repetitions ``agent`` runs: its own ``repetitions``, else the study's."""
        return agent.repetitions if agent.repetitions is not None else self.study.repetitions

    def total_repetitions(self) -> int:
        """The repetitions of every configuration summed: plan units per case."""
        return sum(self.repetitions_of(agent) for agent in self.agents)

    @property
    def base_dir(self) -> Path:
        """The folder relative paths of the config are read from (the config file's)."""
        return self._base_dir

    def resolve(self, path: str | Path) -> Path:
        """A config path: relative to the config's folder; ``tau-bench:REL`` a packaged file."""
        return resolve_packaged(path) or (self._base_dir / Path(path).expanduser()).resolve()

    def world_data(self) -> Path | None:
        """τ-bench's data folder: ``world.data``, else the packaged data (generated: None)."""
        if self.world.source != "tau-bench":
            return None
        try:
            return self.resolve(self.world.data) if self.world.data else packaged_taubench()
        except (OSError, RuntimeError) as exc:  # a symlink loop; a name the system refuses
            raise DataError("<config>", "world.data", f"cannot be resolved: {exc}") from exc

    def canonical_json(self) -> str:
        """The config as canonical JSON (sorted keys): what its hash is taken over;
        fields marked ``LATER`` are left out at their defaults (``config_hash.py``)."""
        return canonical_config_json(self)

    def config_hash(self) -> str:
        """sha256 of the canonical JSON: a resumed study must have the same."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()


def check_plan_size(units: int) -> None:
    """Refuse a plan larger than :data:`MAX_PLAN_UNITS` before anything is allocated."""
    if units > MAX_PLAN_UNITS:
        raise ValueError(
            f"the plan would hold up to {units:,} (case, agent, repetition) units; the "
            f"limit is {MAX_PLAN_UNITS:,}: lower study.repetitions (or an agent's "
            "repetitions), cases.per_operator or the number of agents"
        )


def parse_config(text: str, path: str | Path, base_dir: str | Path | None = None) -> StudyConfig:
    """Validate TOML text; errors name the file, the field and the reason.

    Relative paths in the config are later resolved against ``base_dir`` (default: the
    current folder, fixed now), so a study resumed from another folder reads the same files.
    """
    raw = loads_toml(path, text)
    try:
        config = StudyConfig.model_validate(raw)
    except ValidationError as exc:
        raise config_error(path, StudyConfig, exc) from exc
    try:
        check_plan_size(config.plan_bound() or 0)
    except ValueError as exc:
        raise DataError(path, "study.repetitions", str(exc)) from None
    cases = config.cases
    if "operators" in cases.model_fields_set:  # the default list is narrowed, and counted
        check_operator_domains(cases.operators, config.world.domains, path, cases.file)
    config._base_dir = Path(base_dir).resolve() if base_dir is not None else Path.cwd()
    return resolve_inputs(config, path)


def resolve_inputs(config: StudyConfig, path: str | Path) -> StudyConfig:
    """Resolve recordings (and pairs files) against the config's folder and record
    their sha256; a missing file, or one unlike a given ``sha256``, is an error naming
    the field; so is a ``world.data`` that cannot be resolved (a symlink loop)."""
    if config.world.data:
        try:
            config.world_data()
        except DataError as exc:
            raise DataError(path, exc.field, exc.reason) from None
    for index, agent in enumerate(config.agents):
        if agent.replay is None:
            continue
        field = f"agents[{index}].replay"
        resolved = config.resolve(agent.replay.path)
        fields = (f"{field}.path", f"{field}.sha256")
        digest = checked_sha256(resolved, agent.replay.sha256, path, fields)
        agent.replay.sha256 = digest
        agent.replay._resolved = resolved
        agent.replay.resolve_pairs(config.resolve, path, field)
        agent.replay.detect_format(path, field, config.study.first_tool_call_only)
        agent.replay._world_data = config.world_data()
    return config


def config_from_record(meta: JsonValue) -> StudyConfig:
    """The config a study recorded in ``config.json``, its relative paths read from the
    folder the study was started with (``base_dir``)."""
    if not isinstance(meta, dict):
        raise ValueError("config.json is not a JSON object")
    config = StudyConfig.model_validate(meta["config"])
    base_dir = meta.get("base_dir")
    if isinstance(base_dir, str) and base_dir:
        config._base_dir = Path(base_dir)
    return config


def load_config(
    path: str | Path | None, options: ModelOptions | None = None
) -> tuple[StudyConfig, str]:
    """The config at ``path`` (or the embedded default study) and its TOML text, with
    ``run --model``'s ``options`` applied (:mod:`sscbench.study.model_flags`)."""
    options = options or ModelOptions()
    if path is None:
        text = resources.files("sscbench.study").joinpath("default_study.toml").read_text("utf-8")
        text = study_text(text, "<default study>", options)
        return parse_config(text, "<default study>"), text
    path = Path(path)
    text = read_text(path)  # unreadable or not UTF-8: an error naming the file
    text = study_text(text, path, options)
    return parse_config(text, path, base_dir=path.resolve().parent), text
