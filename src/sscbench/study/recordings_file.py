"""``STUDY/recordings.json``: what a pairs study of a τ² recording read of it.

``run`` indexes a τ² results file once by simulation id and reads and matches only the
conversations its pairs name (:mod:`sscbench.agents.recordings`). It keeps here, per
replay agent, the recording's and the pairs file's sha256, the file's size and domain,
and for each named conversation its byte span in the file and its content match::

    {"agents": {"claude": {"recording": "...json", "sha256": "...", "pairs_sha256": "...",
      "size": 62000000, "domain": "airline",
      "simulations": [{"id": "...", "index": 17, "start": 1234, "end": 5678,
                       "match": {"recording": "...", "task_id": "test/0", ...}}]}}}

The report lists the matches from here (it never reads the recording again), and a
resumed ``run`` seeks the named conversations by these spans instead of scanning the
file: an entry is used only while both sha256 still hold. Written atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sscbench.core.files import atomic_write
from sscbench.errors import DataError
from sscbench.reading import read_json

RECORDINGS_FILE = "recordings.json"
"""The kept index of a pairs study's τ² recordings in a study folder."""


def write_recordings(root: Path, agents: dict[str, dict[str, Any]]) -> None:
    """Keep the named conversations' spans and matches of each replay agent (nothing is
    written, and an older file is removed, when no agent reads named conversations)."""
    path = root / RECORDINGS_FILE
    if not agents:
        path.unlink(missing_ok=True)
        return
    atomic_write(path, json.dumps({"agents": agents}, indent=1, sort_keys=True))


def read_recordings(root: Path) -> dict[str, dict[str, Any]]:
    """The kept entries by agent id (empty when the study has none: an older study, or
    one that reads whole recordings); a file that is not one is a :class:`DataError`."""
    path = root / RECORDINGS_FILE
    if not path.exists():
        return {}
    data = read_json(path)
    agents = data.get("agents") if isinstance(data, dict) else None
    if not isinstance(agents, dict) or not all(isinstance(v, dict) for v in agents.values()):
        raise DataError(path, "agents", "must map agent ids to objects")
    for agent, entry in agents.items():
        if not isinstance(entry.get("simulations"), list):
            raise DataError(path, f"agents.{agent}.simulations", "must be a list")
    return agents


def kept_entry(
    root: Path, agent_id: str, sha256: str | None, pairs_sha256: str | None
) -> dict[str, Any] | None:
    """The agent's kept entry when it was made from this recording and pairs file (both
    sha256 equal), else None."""
    entry = read_recordings(root).get(agent_id)
    if entry is None or sha256 is None or pairs_sha256 is None:
        return None
    if entry.get("sha256") != sha256 or entry.get("pairs_sha256") != pairs_sha256:
        return None
    return entry
