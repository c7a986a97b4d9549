"""The Ray executor: a study's episodes made by worker actors on a Ray cluster.

Only the making of episodes moves: the driver keeps the plan, qualification (clean
before faulted, shared clean runs), the study folder, its lock and its index
(:class:`~sscbench.run.executor.StudyRunner` with this module's :class:`RayEpisodes`
as its episode source). Each agent configuration's runs go to a pool of
``[study.ray] workers`` long-lived actors that reserve the configuration's
``[agents.ray] resources`` (e.g. the node serving its endpoint); an actor rebuilds the
study from its inputs (:mod:`sscbench.run.remote`) and makes several runs at once on
its own event loop, at most ``ceil(concurrency / workers)``.

A worker that dies (its process killed, its node lost) is restarted by Ray; every run
it had in flight is sent again and made from scratch (episodes are pure and seeded),
up to ``[study.ray] attempts`` times; nothing reached the study folder for it, so no
run is lost and none is indexed twice. A run is never sent to a worker known to be
lost: it goes to another, or waits until the lost one answers again (within
``start_timeout_s``), so a restart does not use up attempts. Each loss counts once
(however many runs it had; one that died idle counts when its next run comes from
another process); past ``max_worker_losses`` the study stops, its runs kept. Ray is
imported lazily, by :func:`sscbench.study.placement.import_ray` (which :func:`join_ray`
calls), as ``measure --executor ray`` imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypedDict

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.run.episodes import EpisodeOutput, RunKind
from sscbench.run.planning import PlanUnit
from sscbench.run.remote import EpisodeWorker, StudyInputs
from sscbench.run.worker_losses import LossBudget, per_worker, retrieved
from sscbench.study.config import StudyConfig
from sscbench.study.placement import join_ray, wait_started
from sscbench.study.ray_config import RaySettings

REVIVE_POLL_S = 0.5
"""How often a lost worker is asked whether it is back (within ``start_timeout_s``)."""


class Placed(TypedDict):
    """Where a worker started: its process id and Ray node id."""

    pid: int
    node: str


def _remote_worker(ray: ModuleType) -> Any:
    """The worker actor class (a Ray actor class, untyped): :class:`EpisodeWorker`,
    whose ``ready`` also names its node."""

    class Worker(EpisodeWorker):
        def ready(self) -> Placed:  # type: ignore[override]
            return {"pid": os.getpid(), "node": ray.get_runtime_context().get_node_id()}

    Worker.__name__ = Worker.__qualname__ = "EpisodeWorker"
    return ray.remote(Worker)


@dataclass
class _Slot:
    """One worker actor and the runs it has in flight now."""

    actor: Any
    in_flight: int = 0
    pid: int = 0  # where it started (a restarted worker has another pid)
    node: str = ""
    lost: bool = False  # died with runs in flight and has not answered since
    generation: int = 0  # bumped each time it answers again after a loss
    reviving: asyncio.Future | None = None  # the wait for it to answer again


@dataclass
class _Pool:
    """The workers of the agent configurations that need the same resources."""

    resources: dict[str, float]
    slots: list[_Slot] = field(default_factory=list)

    def least_busy(self) -> _Slot:
        """The worker with the fewest runs in flight (the first of equals), a lost
        worker only when every worker is lost (then the run waits for it to return)."""
        return min(self.slots, key=lambda slot: (slot.lost, slot.in_flight))


class RayEpisodes:
    """The episode source of a study on a Ray cluster (see the module docstring)."""

    def __init__(
        self, ray: ModuleType, pools: dict[str, _Pool], settings: RaySettings, owns_ray: bool
    ):
        self.ray = ray
        self.pools = pools  # by agent configuration id
        self.attempts = settings.attempts
        self.max_worker_losses = settings.max_worker_losses
        self.start_timeout_s = settings.start_timeout_s
        self.owns_ray = owns_ray
        self.requeued = 0  # runs sent again after their worker was lost
        self.budget = LossBudget(
            settings.max_worker_losses, "<ray cluster>", "study.ray.max_worker_losses"
        )
        self.losses = 0  # worker losses seen (each once, however many runs it had)
        self.stopped: DataError | None = None  # why every later run stops, once set

    @classmethod
    def connect(
        cls,
        config: StudyConfig,
        toml_text: str,
        cases: Sequence[Case],
        address: str | None,
    ) -> RayEpisodes:
        """Join the cluster at ``address`` (or start a private local one), start each
        pool's workers and wait until every one has rebuilt the study."""
        settings = config.study.ray
        ray, owns_ray = join_ray(settings, address)
        inputs = StudyInputs.of(config, toml_text, cases)
        at_once = per_worker(config.study.concurrency, settings.workers)
        worker_class = _remote_worker(ray)
        options = {
            "num_cpus": settings.worker_cpus,
            "max_concurrency": at_once,
            "max_restarts": -1,  # a lost worker comes back; its runs are re-sent by make()
            "max_task_retries": 0,
        }
        pools: dict[str, _Pool] = {}
        by_resources: dict[tuple, _Pool] = {}
        for agent in config.agents:
            key = tuple(sorted(agent.ray.resources.items()))
            if key not in by_resources:
                pool = _Pool(dict(key))
                pool.slots = [
                    _Slot(worker_class.options(**options, resources=pool.resources).remote(inputs))
                    for _ in range(settings.workers)
                ]
                by_resources[key] = pool
            pools[agent.id] = by_resources[key]
        source = cls(ray, pools, settings, owns_ray)
        ready = source._wait_ready(list(by_resources.values()), settings.start_timeout_s)
        for pool in by_resources.values():
            for slot, where in zip(pool.slots, ready, strict=False):
                slot.pid, slot.node = where["pid"], where["node"]
            ready = ready[len(pool.slots) :]
        return source

    def placement(self) -> dict[str, list[tuple[str, int]]]:
        """Each agent configuration's workers as (node id, pid)."""
        return {cid: [(s.node, s.pid) for s in pool.slots] for cid, pool in self.pools.items()}

    def _wait_ready(self, pools: list[_Pool], timeout: float) -> list[Placed]:
        actors = [slot.actor for pool in pools for slot in pool.slots]
        refs = [actor.ready.remote() for actor in actors]
        question = (
            f"does a node offer the resources {[p.resources for p in pools]} and enough CPUs?"
        )
        try:
            words = ("workers", question)
            wait_started(self.ray, refs, timeout, "agents.ray.resources", words)
            return list(self.ray.get(refs))
        except self.ray.exceptions.RayError as exc:
            self._kill_all()
            cause = getattr(exc, "cause", None)
            if isinstance(cause, DataError):
                raise cause from None
            raise DataError("<ray cluster>", None, f"a worker could not start: {exc}") from exc
        except BaseException:
            self._kill_all()
            raise

    async def make(self, unit: PlanUnit, kind: RunKind, run_id: str) -> EpisodeOutput:
        """Make the run on the least busy worker of its pool. A run whose worker died
        while it ran is sent again (made from scratch), up to ``attempts`` times; a worker
        that is lost or restarting is waited for (:meth:`_revive`) before a run is sent
        to it, so a restart never uses up a run's attempts. Past ``max_worker_losses``
        losses the study stops (the runs written are kept; a resume goes on)."""
        pool = self.pools[unit.config_id]
        tries = 0
        while True:
            if self.stopped is not None:
                raise self.stopped
            slot = pool.least_busy()
            if slot.lost:
                await self._revive(slot)
                continue  # another worker may be free by now
            generation = slot.generation
            slot.in_flight += 1
            try:
                output = await slot.actor.make.remote(unit.faulted_run_id, kind, run_id)
            except self.ray.exceptions.RayActorError as exc:
                self._lost(slot, generation, exc)
                if not isinstance(exc, self.ray.exceptions.ActorUnavailableError):
                    tries += 1  # it died while this run was on it
                if tries >= self.attempts:
                    last = str(exc)
                    raise self.budget.attempts_used(
                        run_id, tries, "study.ray.attempts", last
                    ) from exc
                self.requeued += 1
                continue
            finally:
                slot.in_flight -= 1
            self._restarted_unseen(slot, generation, output)
            return output

    def _lost(self, slot: _Slot, generation: int, exc: BaseException) -> None:
        """Note a worker's loss (once per loss: its other runs report the same one);
        past ``max_worker_losses`` every later run stops the study."""
        if slot.lost or slot.generation != generation:
            return  # already known, or it came back since this run was sent
        slot.lost = True
        slot.reviving = asyncio.ensure_future(self._wait_back(slot))  # back as soon as it is
        slot.reviving.add_done_callback(retrieved)
        self._count_loss(str(exc).splitlines()[0])
        if self.stopped is not None:
            raise self.stopped from exc

    def _restarted_unseen(self, slot: _Slot, generation: int, output: EpisodeOutput) -> None:
        """Count the loss of a worker that died with no run in flight: no run saw it die,
        but the run it made after Ray restarted it comes from another process. The run
        itself is kept; past ``max_worker_losses`` the later runs stop the study."""
        pid = (output.meta or {}).get("pid")
        if not pid or not slot.pid or pid == slot.pid or slot.generation != generation:
            return
        slot.pid = pid
        slot.generation += 1
        self._count_loss(f"worker process {pid} replaced a worker that died between runs")

    def _count_loss(self, last: str) -> None:
        """One more worker loss; past ``max_worker_losses`` the study is stopped."""
        self.stopped = self.stopped or self.budget.count(last)
        self.losses = self.budget.losses

    async def _revive(self, slot: _Slot) -> None:
        """Wait until a lost worker answers again (Ray restarts it and it rebuilds the
        study), at most ``start_timeout_s``; every run waiting for it shares one wait."""
        if slot.reviving is None or (slot.reviving.done() and slot.lost):
            slot.reviving = asyncio.ensure_future(self._wait_back(slot))
            slot.reviving.add_done_callback(retrieved)
        await asyncio.shield(slot.reviving)

    async def _wait_back(self, slot: _Slot) -> None:
        """Ask a lost worker whether it is back until it answers (a new generation)."""
        deadline = time.monotonic() + self.start_timeout_s
        while True:
            try:
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    where = await slot.actor.ready.remote()
            except (self.ray.exceptions.RayActorError, TimeoutError) as exc:
                if time.monotonic() >= deadline:
                    self.stopped = self.stopped or DataError(
                        "<ray cluster>",
                        "study.ray.start_timeout_s",
                        f"a lost worker did not come back within {self.start_timeout_s:g} s "
                        f"(last: {str(exc).splitlines()[0]}); the runs written so far are "
                        "kept: resume when the cluster is healthy",
                    )
                    raise self.stopped from exc
                await asyncio.sleep(REVIVE_POLL_S)
                continue
            slot.pid, slot.node = where["pid"], where["node"]
            slot.generation += 1
            slot.lost = False
            return

    def _kill_all(self) -> None:
        for pool in self.pools.values():
            for slot in pool.slots:
                if slot.reviving is not None:
                    slot.reviving.cancel()
        for pool in {id(p): p for p in self.pools.values()}.values():
            for slot in pool.slots:
                with contextlib.suppress(Exception):  # an actor already gone is let go
                    self.ray.kill(slot.actor, no_restart=True)
        if self.owns_ray:
            self.ray.shutdown()

    async def aclose(self) -> None:
        """Close the workers' connections, stop them, and leave the cluster (a private
        local cluster stops with it)."""
        slots = [s for p in {id(p): p for p in self.pools.values()}.values() for s in p.slots]
        closing = [slot.actor.close.remote() for slot in slots]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), 30)
        self._kill_all()
