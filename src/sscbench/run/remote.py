"""What a remote worker rebuilds a study from, and the worker itself (no Ray import here).

A worker is handed the study's inputs by value and by hash — the config's TOML text,
the folder its relative paths are read from, the sha256 of every input file and of
the cases — never the driver's worlds or cases. It parses the config, checks that the
files it reads on its own node hash as the driver's did, builds worlds, cases, plan
and factories itself, and checks that it arrived at the same config hash and the same
cases. A node whose data differs fails closed, naming the file, before any run.
"""

from __future__ import annotations

import hashlib
import math
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.llm.endpoint import EndpointConfig
from sscbench.run.builders import (
    build_agent_factory,
    build_cases,
    build_user_factory,
    hash_inputs,
    input_files,
)
from sscbench.run.episodes import EpisodeMaker, EpisodeOutput, RunKind
from sscbench.run.planning import Plan, make_plan
from sscbench.study.config import StudyConfig, parse_config
from sscbench.study.worlds import build_worlds

Endpoint = TypeVar("Endpoint", bound=EndpointConfig)


def cases_digest(cases: Sequence[Case]) -> str:
    """sha256 over the cases as ``cases.jsonl`` holds them (one JSON line each, in order)."""
    digest = hashlib.sha256()
    for case in cases:
        digest.update(case.model_dump_json().encode("utf-8") + b"\n")
    return digest.hexdigest()


@dataclass(frozen=True)
class StudyInputs:
    """A study as a worker rebuilds it: texts, paths and hashes (small and picklable)."""

    toml_text: str
    config_name: str  # where the text came from (named in errors)
    base_dir: str
    config_hash: str
    inputs: dict[str, str]  # input file path -> sha256, as the driver read them
    cases_sha256: str

    @classmethod
    def of(cls, config: StudyConfig, toml_text: str, cases: Sequence[Case]) -> StudyInputs:
        """The inputs of a study the driver has built (hashing its input files now)."""
        return cls(
            toml_text=toml_text,
            config_name="<study config>",
            base_dir=str(config.base_dir),
            config_hash=config.config_hash(),
            inputs=hash_inputs(input_files(config)),
            cases_sha256=cases_digest(cases),
        )


def split_budgets(config: StudyConfig, share: int) -> StudyConfig:
    """The config as one of ``share`` workers on one machine applies it: each endpoint's
    ``max_concurrent``, ``requests_per_minute`` and ``tokens_per_minute`` divided among
    them, so together they meet an endpoint's limits as the study's one client would
    (these fields are outside the config hash: the runs are the same)."""
    if share <= 1:
        return config

    def split(endpoint: Endpoint | None) -> Endpoint | None:
        if endpoint is None:
            return None
        changes: dict[str, float] = {}
        if endpoint.max_concurrent is not None:
            changes["max_concurrent"] = max(1, math.ceil(endpoint.max_concurrent / share))
        for name in ("requests_per_minute", "tokens_per_minute"):
            if getattr(endpoint, name) is not None:
                changes[name] = getattr(endpoint, name) / share
        return endpoint.model_copy(update=changes)

    agents = [a.model_copy(update={"endpoint": split(a.endpoint)}) for a in config.agents]
    user = config.user.model_copy(update={"endpoint": split(config.user.endpoint)})
    return config.model_copy(update={"agents": agents, "user": user})


def rebuild(
    inputs: StudyInputs, share: int = 1, journal_dir: Path | None = None
) -> tuple[StudyConfig, Plan, EpisodeMaker]:
    """The config, the plan (its units made on demand, found by faulted run id with
    :meth:`~sscbench.run.planning.Plan.unit_of`: nothing kept per unit) and an episode maker, built on this
    node from ``inputs`` and checked against every hash the driver sent. ``share``: the
    workers on this machine that divide each endpoint's budgets (:func:`split_budgets`);
    ``journal_dir``: where runs that call a model keep their response journals."""
    host = socket.gethostname()
    config = parse_config(inputs.toml_text, inputs.config_name, base_dir=inputs.base_dir)
    if config.config_hash() != inputs.config_hash:
        raise DataError(
            inputs.config_name,
            None,
            f"on {host} the config hashes to {config.config_hash()}, the driver's to "
            f"{inputs.config_hash}: the nodes run different sscbench versions or configs",
        )
    local = hash_inputs(input_files(config))
    for path, digest in inputs.inputs.items():
        if local.get(path) != digest:
            raise DataError(
                path,
                None,
                f"on {host} this input has sha256 {local.get(path)}, on the driver {digest}: "
                "every node must read the same study inputs",
            )
    worlds = build_worlds(config)
    cases = build_cases(config, worlds)
    if cases_digest(cases) != inputs.cases_sha256:
        raise DataError(
            inputs.config_name,
            "cases",
            f"on {host} the study's cases differ from the driver's (sha256 "
            f"{cases_digest(cases)} vs {inputs.cases_sha256})",
        )
    plan = make_plan(config, cases)
    budgets = split_budgets(config, share)
    agents = {a.id: build_agent_factory(a) for a in budgets.agents}
    user = build_user_factory(budgets.user)
    maker = EpisodeMaker(config, worlds, agents, user, journal_dir=journal_dir)
    return config, plan, maker


class EpisodeWorker:
    """A long-lived worker (a Ray actor): rebuilds the study once, then makes the runs it
    is sent, several at a time on its own event loop (its own endpoint limiters)."""

    def __init__(self, inputs: StudyInputs, share: int = 1, journal_dir: Path | None = None):
        self.config, self.plan, self.maker = rebuild(inputs, share, journal_dir)

    def ready(self) -> int:
        """The worker's process id, once the study is rebuilt (the driver waits for it)."""
        return os.getpid()

    async def make(self, faulted_run_id: str, kind: RunKind, run_id: str) -> EpisodeOutput:
        """Make the clean or faulted run of the plan unit ``faulted_run_id``."""
        unit = self.plan.unit_of(faulted_run_id)
        if unit is None:
            raise DataError("<plan>", "faulted_run_id", f"{faulted_run_id!r} is not planned")
        output = await self.maker.make(unit, kind, run_id)
        output.meta = {**output.meta, "host": socket.gethostname(), "pid": os.getpid()}
        return output

    async def close(self) -> None:
        """Close the factories' connections before the worker is let go."""
        await self.maker.aclose()
