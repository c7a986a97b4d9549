"""The study folder behind an Inspect run of ``sscbench/arrival``.

The task's arguments give a study configuration without its agent; the agent is
Inspect's model (an agent configuration of kind ``inspect`` named after it) and the
repetitions are Inspect's epochs, both known only once the eval starts. So the study
is set up when the first sample starts: the same ``StudyDir.initialize`` as
``sscbench run`` (marker, config, cases, plan), resuming a folder started with the
same configuration. Samples then run through the executor's own clean-then-faulted
pipeline (:class:`~sscbench.run.executor.StudyRunner`), which writes each run's files
and index line; the study lock is held while any sample of the process is running.
"""

from __future__ import annotations

import asyncio
import re
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.run.builders import build_user_factory, hash_inputs, input_files
from sscbench.run.executor import StudyRunner
from sscbench.run.planning import PlanUnit, make_plan
from sscbench.run.prepare import resume_records
from sscbench.study.config import AgentSettings, StudyConfig
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.lock import StudyLock
from sscbench.world.world import World

if TYPE_CHECKING:
    from inspect_ai.model import Model

_BINDINGS: dict[str, StudyBinding] = {}


def agent_id_for(model_name: str) -> str:
    """A file-name-safe agent configuration id for an Inspect model name."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name)
    cleaned = re.sub(r"-{2,}", "-", cleaned).strip("_") or "model"
    return f"inspect_{cleaned}"[:64]


def binding_for(out: str | Path) -> StudyBinding | None:
    """The binding of the task writing the study at ``out`` in this process, if any."""
    return _BINDINGS.get(str(Path(out).resolve()))


class StudyBinding:
    """One Inspect task's study: its configuration template, worlds, cases and folder."""

    def __init__(
        self, template: StudyConfig, worlds: dict[str, World], cases: list[Case], out: Path
    ):
        self.template = template
        self.worlds = worlds
        self.cases = {c.case_id: c for c in cases}
        self.store = StudyDir(out)
        self.epochs: int | None = None  # set from the eval's config when the task starts
        self.runner: StudyRunner | None = None
        self.config: StudyConfig | None = None
        self.units: dict[tuple[str, int], PlanUnit] = {}
        self._prepare = asyncio.Lock()
        self._lock: StudyLock | None = None
        self._writers = 0
        self.store.check_writable()
        _BINDINGS[str(self.store.root.resolve())] = self

    def study_config(self, model_name: str) -> StudyConfig:
        """The study's configuration for this model and the eval's epochs."""
        data = self.template.model_dump(mode="json")
        data["agents"] = [
            AgentSettings(
                id=agent_id_for(model_name), kind="inspect", params={"model": model_name}
            ).model_dump(mode="json")
        ]
        data["study"]["repetitions"] = self.epochs or self.template.study.repetitions
        config = StudyConfig.model_validate(data)
        config._base_dir = self.template.base_dir
        return config

    @asynccontextmanager
    async def writing(self):
        """Hold the study lock while at least one sample of this process writes."""
        if self._writers == 0:
            self.store.root.mkdir(parents=True, exist_ok=True)
            self._lock = StudyLock(self.store.root).acquire()
        self._writers += 1
        try:
            yield
        finally:
            self._writers -= 1
            if self._writers == 0 and self._lock is not None:
                self._lock.release()
                self._lock = None

    async def prepare(self, model: Model) -> StudyRunner:
        """Set the study up for Inspect's model (once), or check it is the same model."""
        name = str(model)
        async with self._prepare:
            if self.runner is not None:
                if self.config is not None and self.config.agents[0].params["model"] != name:
                    raise DataError(
                        self.store.root,
                        "agents",
                        f"this task's study runs model {self.config.agents[0].params['model']}, "
                        f"not {name}",
                    )
                return self.runner
            from sscbench.integrations.inspect_agent import InspectAgentFactory

            config = self.study_config(name)
            plan = make_plan(config, list(self.cases.values()))
            self.units = {(u.case.case_id, u.repetition): u for u in plan}
            resumed = self.store.initialize(
                config.config_hash(),
                config.canonical_json(),
                _toml_note(config),
                list(self.cases.values()),
                (unit.plan_line() for unit in plan),
                inputs=hash_inputs(input_files(config)),
                base_dir=config.base_dir,
            )
            self.store.repair_index()
            finished: dict[str, IndexEntry] = resume_records(self.store, plan)[0] if resumed else {}
            agent = config.agents[0].id
            self.config = config
            self.runner = StudyRunner(
                config,
                self.worlds,
                {agent: InspectAgentFactory(model)},
                build_user_factory(config.user),
                self.store,
                finished,
                on_entry=lambda entry: None,
                keep_finished=True,  # the scorer reads each sample's runs back
            )
            return self.runner

    def unit(self, case_id: str, epoch: int) -> PlanUnit:
        """The plan unit of a sample: its case at repetition ``epoch - 1``."""
        assert self.config is not None
        repetitions = self.config.repetitions_of(self.config.agents[0])
        if epoch > repetitions:
            raise DataError(
                self.store.root,
                "study.repetitions",
                f"epoch {epoch} is beyond the study's {repetitions} repetitions",
            )
        # the planned unit: its shared clean run is the one every case of the task awaits
        return self.units[(case_id, epoch - 1)]


def _toml_note(config: StudyConfig) -> str:
    """What ``config.toml`` holds for a study the Inspect task ran: a note (the
    configuration itself is ``config.json``, in canonical JSON)."""
    return (
        "# This study was run by the Inspect task sscbench/arrival "
        f"(model {config.agents[0].params['model']}).\n"
        "# Its configuration is config.json (canonical JSON, with its hash); rerun it with\n"
        "# the same inspect eval command and -T out=<this folder> to resume.\n"
    )
