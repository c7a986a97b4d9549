"""Small typed-family studies on τ-bench for the release tests: the three scripted
profiles most of them compare, one way to run a config text into a study folder, and
one way to read a family row's metrics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sscbench.release.evidence import ReleaseEvidence
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config

THREE_PROFILES = """
[[agents]]
id = "keyed"
profile = "idempotent_readback"

[[agents]]
id = "naive"
profile = "naive_retry"

[[agents]]
id = "shallow"
profile = "shallow_readback"
"""
"""The barrier profile and the two weak ones, as `keyed`, `naive` and `shallow`."""


def run_study(text: str, name: str, tmp_path_factory: Any) -> Path:
    """Run the study config ``text`` (named ``name``.toml in errors) into a fresh folder."""
    out = tmp_path_factory.mktemp(name) / "study"
    execute_study(parse_config(text, f"{name}.toml"), text, out, progress=False)
    return out


def family_metrics(evidence: ReleaseEvidence, config_id: str, family: str) -> dict[str, Any]:
    """The metrics of one configuration's row for one family (its level-free row first)."""
    row = next(r for r in evidence.families if r.config_id == config_id and r.family == family)
    return row.to_dict()["metrics"]
