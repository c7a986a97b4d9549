"""Keep a pairs study's τ² index in the study, and use it again on resume.

``run`` reads and matches only the conversations a pairs file names
(:meth:`sscbench.agents.recordings.RecordingAgentFactory.reads_named_only`); it keeps
their byte spans and matches in ``STUDY/recordings.json``
(:mod:`sscbench.study.recordings_file`) for the report, and a resumed ``run`` seeds its
readers with those spans instead of scanning the recording file again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sscbench.errors import DataError
from sscbench.study.config import StudyConfig
from sscbench.study.recordings_file import RECORDINGS_FILE, kept_entry


def kept_recordings(config: StudyConfig) -> dict[str, dict[str, Any]]:
    """For each replay agent that reads only named τ² conversations: the entry
    ``recordings.json`` keeps (the conversations are read and matched once per process,
    so after the plan's checks this costs nothing more)."""
    from sscbench.run.builders import _recording_factory

    out: dict[str, dict[str, Any]] = {}
    for agent in config.agents:
        if agent.replay is None or agent.replay.pairs is None:
            continue
        factory = _recording_factory(agent)
        if not factory.reads_named_only():
            continue
        from sscbench.agents.recordings import tau2_index

        index = tau2_index(factory.path, factory.sha256)
        out[agent.id] = {
            "recording": str(factory.path),
            "sha256": factory.sha256,
            "pairs_sha256": factory.pairs_sha256,
            "size": index.size,
            "domain": index.domain,
            "simulations": factory.named_rows(),
        }
    return out


def seed_from_study(config: StudyConfig, root: Path) -> None:
    """Before a resumed ``run``: seed each pairs agent's τ² reader with the spans the study
    kept, when its recording and pairs file are still the ones they were taken from."""
    from sscbench.agents.recordings import seed_tau2_index
    from sscbench.recordings.tau2_index import index_from_rows

    if not (root / RECORDINGS_FILE).exists():
        return
    for agent in config.agents:
        replay = agent.replay
        if replay is None or replay.pairs is None or replay.sha256 is None:
            continue
        entry = kept_entry(root, agent.id, replay.sha256, replay.pairs_sha256)
        if entry is None:
            continue
        size = entry.get("size")
        if not isinstance(size, int) or size != replay.resolved.stat().st_size:
            continue
        try:
            index = index_from_rows(
                replay.resolved, size, entry.get("domain"), entry["simulations"]
            )
        except DataError as exc:
            raise DataError(root / RECORDINGS_FILE, f"agents.{agent.id}", exc.reason) from exc
        seed_tau2_index(replay.resolved, replay.sha256, index)
