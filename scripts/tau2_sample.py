"""Cut the shipped τ²-bench sample (``examples/data/tau2/``) from a full results file.

τ²-bench keeps its leaderboard trajectories outside its repository (on S3, linked from
taubench.com); the development machine has three of them in ``../shared/tau2-trajectories``.
A clone has neither, so the project ships six conversations of one file, in τ²'s results
format unchanged (``timestamp``, ``info`` and the ``tasks`` the kept conversations ran):

    python scripts/tau2_sample.py ../shared/tau2-trajectories/claude-opus-4-6-airline.json \
        examples/data/tau2/claude-opus-4-6-airline-sample.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

KEEP = (
    "2ac97331-26db-4a7f-9ea6-412cb4382709",  # τ² "46": no user looked up, unmatched
    "8bbe984c-bdd4-4d38-a8a1-0a67465d324f",  # τ² "0" is τ-bench test/49
    "f081b4c7-08fd-40a8-b7b7-4537da514f7b",  # τ² "13" keeps its number
    "294d46c8-6bf9-4e98-8c9c-18e11068ffc9",  # τ² "20" is τ-bench test/0
    "1c96e0de-2ce1-4039-bcd6-6254affaf052",  # several calls a message, get_flight_status
    "d72fc177-b303-4d9f-9376-3351d3ab8561",  # test/20: ReturnDate, PaySource, WriteEffect
)


def cut(source: Path, target: Path) -> None:
    """Write ``source`` with only the :data:`KEEP` simulations and the tasks they ran."""
    results = json.loads(source.read_text("utf-8"))
    simulations = [s for s in results["simulations"] if s["id"] in KEEP]
    assert len(simulations) == len(KEEP), "a kept conversation is missing from the source"
    ran = {s["task_id"] for s in simulations}
    results["simulations"] = simulations
    results["tasks"] = [t for t in results["tasks"] if t["id"] in ran]
    target.write_text(json.dumps(results, indent=2), "utf-8")  # as τ²-bench writes it


if __name__ == "__main__":
    cut(Path(sys.argv[1]), Path(sys.argv[2]))
