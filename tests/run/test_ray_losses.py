"""Worker losses counted by the Ray executor without a cluster: a fake Ray whose worker
answers from another process after dying idle (no run saw it die)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from sscbench.errors import DataError
from sscbench.run.episodes import EpisodeOutput
from sscbench.run.ray_executor import RayEpisodes, _Pool, _Slot
from sscbench.study.ray_config import RaySettings


class _ActorError(Exception):
    pass


FAKE_RAY = SimpleNamespace(
    exceptions=SimpleNamespace(RayActorError=_ActorError, ActorUnavailableError=_ActorError)
)


class _Worker:
    """A worker actor whose runs come from the process ids given, one per run."""

    def __init__(self, pids: list[int]):
        self.pids = list(pids)
        self.make = SimpleNamespace(remote=self._make)

    async def _make(self, faulted_run_id, kind, run_id):
        return EpisodeOutput(
            run_id, kind, "case", [], [], None, 0.0, meta={"pid": self.pids.pop(0)}
        )


def _source(pids: list[int], max_losses: int) -> RayEpisodes:
    pool = _Pool({}, [_Slot(_Worker(pids), pid=pids[0])])
    settings = RaySettings(max_worker_losses=max_losses)
    return RayEpisodes(FAKE_RAY, {"agent": pool}, settings, owns_ray=False)


def _make(source: RayEpisodes, run_id: str) -> EpisodeOutput:
    unit = SimpleNamespace(config_id="agent", faulted_run_id=run_id)
    return asyncio.run(source.make(unit, "faulted", run_id))  # type: ignore[arg-type]


def test_a_worker_replaced_between_runs_counts_as_one_loss():
    source = _source([100, 100, 200, 200], max_losses=1)
    runs = [_make(source, f"r{i}") for i in range(4)]
    assert [r.run_id for r in runs] == ["r0", "r1", "r2", "r3"]
    assert source.losses == 1 and source.stopped is None


def test_past_max_worker_losses_an_unseen_loss_stops_later_runs_but_keeps_its_own():
    source = _source([100, 200, 300, 400], max_losses=1)
    assert _make(source, "r0").run_id == "r0"
    assert _make(source, "r1").run_id == "r1"  # loss 1: ridden out
    assert _make(source, "r2").run_id == "r2"  # loss 2: this run is kept, the study stops
    assert source.losses == 2
    with pytest.raises(DataError, match=r"study\.ray\.max_worker_losses"):
        _make(source, "r3")
