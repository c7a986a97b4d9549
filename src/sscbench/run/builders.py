"""Build agents, users, worlds and cases from a validated study config."""

from __future__ import annotations

import hashlib
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from sscbench.core.agent import AgentFactory
from sscbench.core.user import UserFactory
from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.faults.registry import get_operator
from sscbench.study.cases import read_cases
from sscbench.study.config import AgentSettings, StudyConfig, UserSettings
from sscbench.world.packaged import portable_path
from sscbench.world.world import World

if TYPE_CHECKING:
    from sscbench.admission.batch import Admission
    from sscbench.agents.recordings import RecordingAgentFactory


def derive_seed(*parts: object) -> int:
    """A stable 31-bit seed from any parts (independent of PYTHONHASHSEED)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def _recording_factory(settings: AgentSettings) -> RecordingAgentFactory:
    from sscbench.agents.recordings import RecordingAgentFactory, Selection

    replay = settings.replay
    assert replay is not None
    selection = Selection(
        trials=tuple(replay.trials) if replay.trials is not None else None,
        count=replay.runs if isinstance(replay.runs, int) else None,
        split=replay.split,
    )
    return RecordingAgentFactory(
        replay.resolved,
        replay.sha256,
        selection,
        replay.world_data,
        replay.pairs_path,
        replay.pairs_sha256,
    )


def repetition_numbers(settings: AgentSettings, case: Case, repetitions: int) -> list[int]:
    """The repetitions of ``case`` an agent configuration runs: the study's, or for a
    replay agent one per selected recorded run of the case's task (or per pair)."""
    if settings.kind != "replay":
        return list(range(repetitions))
    return _recording_factory(settings).repetitions(case.case_id, case.task_id)


def pair_run_id(settings: AgentSettings, repetition: int) -> str | None:
    """The faulted run id a pairs file gives a replay agent's repetition (None: generated)."""
    if settings.replay is None or settings.replay.pairs is None:
        return None
    return _recording_factory(settings).pairs()[repetition].run_id


def pair_source(settings: AgentSettings, repetition: int) -> tuple[Path, str]:
    """Where a replay agent's repetition was named: its pairs file and ``line N``."""
    factory = _recording_factory(settings)
    pair = factory.pairs()[repetition]
    return factory.pairs_path or factory.path, f"line {pair.line}"


def check_replay_plan(
    config: StudyConfig, planned: set[str], cases: list[Case] | None = None
) -> None:
    """Fail closed when a replay agent's selection replays none of the study's cases, or
    a pair names a case, recording or edit that does not fit."""
    for index, agent in enumerate(config.agents):
        if agent.replay is not None and agent.id not in planned:
            raise DataError(
                "<config>",
                f"agents[{index}].replay",
                f"no recorded run in {agent.replay.resolved} replays any case of the study "
                "(check split, trials and the cases' tasks)",
            )
        if agent.replay is not None and agent.replay.pairs is not None and cases is not None:
            _check_pairs(_recording_factory(agent), {c.case_id: c for c in cases})


def _check_pairs(factory: RecordingAgentFactory, cases: dict[str, Case]) -> None:
    from sscbench.agents.edits import EditError, apply_edits

    path = factory.pairs_path or factory.path
    for pair in factory.pairs():
        where = f"line {pair.line}"
        case = cases.get(pair.case_id)
        if case is None:
            raise DataError(
                path,
                f"{where}: case_id",
                f"{pair.case_id!r} is not a case of the study",
            )
        run = factory.pair_run(pair, case.task_id)
        try:
            apply_edits(run, pair.edits)
        except EditError as exc:
            raise DataError(path, f"{where}: {exc.field}", exc.reason) from exc
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise DataError(path, f"{where}: edits", str(exc)) from exc


def clean_disqualifies(settings: AgentSettings, reward: float | None) -> str | None:
    """Why a completed clean run does not qualify its faulted run (None: it does).

    Every agent needs reward 1, except a replay agent with ``qualify = "completed"``,
    whose recording qualifies by completing its clean replay, and an agent whose own
    ``qualify = "completed"`` (a weak model's runs, stated in the report).
    """
    if settings.replay is not None and settings.replay.qualify == "completed":
        return None
    if settings.qualify == "completed":
        return None
    return None if reward == 1.0 else "clean task not solved"


def build_agent_factory(settings: AgentSettings) -> AgentFactory:
    """The factory of one agent configuration."""
    if settings.kind == "replay":
        return _recording_factory(settings)
    if settings.kind == "inspect":
        raise DataError(
            "<config>",
            f"agents.{settings.id}.kind",
            "an agent of kind 'inspect' is Inspect's model and runs only under Inspect: "
            "inspect eval sscbench/arrival --model ...",
        )
    if settings.kind == "scripted":
        from sscbench.agents.scripted import scripted_agent_factory

        assert settings.profile is not None  # AgentSettings refuses a scripted agent without one
        return scripted_agent_factory(settings.profile, **settings.params)
    from sscbench.agents.openai_agent import openai_agent_factory

    assert settings.endpoint is not None
    return openai_agent_factory(settings.endpoint, settings.strategy, settings.constrain)


def build_user_factory(settings: UserSettings) -> UserFactory:
    """The factory of the study's simulated user."""
    if settings.kind == "replay":
        from sscbench.users.replay import recorded_user_factory

        return recorded_user_factory
    if settings.kind == "scripted":
        from sscbench.users.scripted import scripted_user_factory

        return scripted_user_factory
    from sscbench.users.llm import llm_user_factory

    assert settings.endpoint is not None
    return llm_user_factory(settings.endpoint)


def _taubench_files(root: Path, domain: str) -> list[Path]:
    """The files the τ-bench loader reads for a domain (checkout or data-folder layout)."""
    checkout = root / "tau_bench" / "envs" / domain
    if (checkout / "data").is_dir():
        found = [*(checkout / "data").glob("*.json"), *checkout.glob("tasks*.py")]
        found.append(checkout / "wiki.md")
    else:
        found = [p for p in (root / domain).glob("*") if p.is_file()]
    return sorted(p for p in found if p.is_file())


def input_files(config: StudyConfig) -> list[Path]:
    """Every file the study reads besides its config: the cases file (or the semantic
    review of ``[cases] review``) and the world's data (policy included). A study records their hashes and refuses to resume when they change;
    a builder that reads another file (e.g. recordings) adds it here."""
    from sscbench.run.study_cases import review_input

    files: list[Path] = []
    if config.cases.file:
        files.append(config.resolve(config.cases.file))
    files.extend(review_input(config))
    data = config.world_data()
    if data is not None:
        for domain in config.world.domains:
            files.extend(_taubench_files(data, domain))
    for agent in config.agents:
        if agent.replay is not None:
            files.append(agent.replay.resolved)
            if agent.replay.pairs_path is not None:
                files.append(agent.replay.pairs_path)
    return files


def hash_inputs(paths: list[Path]) -> dict[str, str]:
    """``path -> sha256`` of each input file (a file that cannot be read is an error); a
    file of the packaged τ-bench data is named ``tau-bench:REL``, not by its cache path."""
    out: dict[str, str] = {}
    for path in paths:
        digest = hashlib.sha256()
        try:
            with path.open("rb") as handle:
                for block in iter(partial(handle.read, 1 << 20), b""):
                    digest.update(block)
        except OSError as exc:
            raise DataError(path, None, f"cannot read: {exc.strerror or exc}") from exc
        out[portable_path(path)] = digest.hexdigest()  # packaged data: where-ever cached
    return out


def _check_consistent_source(cases: list[Case]) -> None:
    """Fail closed: the contradiction-relation variant needs every case's operator to
    offer it (a case run without it would pair an unchanged run with itself)."""
    from sscbench.faults.registry import has_consistent_source

    lacking = sorted(
        {c.operator for c in cases if not has_consistent_source(get_operator(c.operator))}
    )
    if lacking:
        raise DataError(
            "<config>",
            "world.consistent_source",
            f"operators {lacking} have no consistent-source variant (ItemOption and "
            "WriteEffect have one); run them in a study without it",
        )


def _consistent(case: Case) -> Case:
    """The case under the contradiction-relation variant: same id, its contract marking
    the authoritative source consistent with v′ (measurement reads it from the contract)."""
    if case.contract is None:
        return case
    contract = case.contract.model_copy(update={"authoritative_source": "consistent"})
    return case.model_copy(update={"contract": contract})


def build_cases(config: StudyConfig, worlds: dict[str, World]) -> list[Case]:
    """The cases of the study: from its cases file, or enumerated by its operators."""
    return build_study_cases(config, worlds)[0]


def build_study_cases(
    config: StudyConfig, worlds: dict[str, World]
) -> tuple[list[Case], Admission | None]:
    """The study's cases and, when it admits them itself, their admission (the record
    the study writes as ``order.jsonl`` and ``admission.json``); None with a cases file."""
    from sscbench.run.study_cases import operator_cases

    admission = None
    if config.cases.file:
        cases = read_cases(config.resolve(config.cases.file))
    else:
        cases, admission = operator_cases(config, worlds)
    unique: dict[str, Case] = {}
    for case in cases:
        unique.setdefault(case.case_id, case)
    cases = list(unique.values())
    if config.world.consistent_source:
        _check_consistent_source(cases)
        cases = [_consistent(c) for c in cases]
    overrides = config.cases.max_steps
    return [
        c.model_copy(update={"max_steps": overrides[c.operator]}) if c.operator in overrides else c
        for c in cases
        if c.domain in worlds
    ], admission
