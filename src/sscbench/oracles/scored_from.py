"""What one oracle scoring was computed from: the ``scored_from`` record of
``STUDY/oracles/<name>.json``.

The record names the oracle setting, its endpoint (the key's variable name, never the
key), the reference, the clean-control draw (its size, seed and method) and the sha256 of the study files the
verdicts read (measurements, index, cases, plan). ``sscbench run`` compares it with
the record it would write now and rescores only a setting whose record differs, so a
finished scoring whose inputs are unchanged is not redone.
"""

from __future__ import annotations

from pathlib import Path

from sscbench.json_types import JsonObject
from sscbench.oracles.base import OracleSettings
from sscbench.study.folder import StudyDir
from sscbench.study.seal import file_sha256, study_sources

# How clean controls are drawn: per operator, from the clean runs that are the baseline
# of its cases, each judged for one of them (a scoring recorded before this was drawn by
# the clean run's own case, so it differs and is redone).
CONTROL_DRAW = "baseline-of-operator-cases"


def scored_from(
    study: str | Path,
    name: str,
    settings: OracleSettings,
    reference: str,
    clean_per_operator: int,
    seed: int,
) -> JsonObject:
    """The inputs of scoring oracle ``name`` on ``study`` now (see the module doc)."""
    store = StudyDir(Path(study))
    endpoint = settings.endpoint
    if reference == "calibration":
        ref: str | None = "calibration"
    else:
        digest = file_sha256(Path(reference))
        ref = None if digest is None else f"sha256:{digest}"
    return {
        "oracle": name,
        "endpoint": None if endpoint is None else endpoint.model_dump(mode="json"),
        "reference": ref,
        "clean_controls": clean_per_operator,
        "control_draw": CONTROL_DRAW,
        "seed": seed,
        "files": {
            "measurements.jsonl": file_sha256(store.root / "measurements.jsonl"),
            **study_sources(store),
        },
    }
