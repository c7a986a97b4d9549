"""Run a labelled real-text corpus (a replay study with pairs files) into a study folder.

A corpus folder (``tests/data/realtext/``, ``tests/data/realtext-tau2/``) holds a study
config (``study.toml``: replay agents whose ``pairs`` files name every labelled run as
a (case, recording, edits) pair), the pinned ``cases.jsonl`` and the hand labels
``labels.jsonl``. The corpus is built by plain ``sscbench run`` — the same public path
a user takes — with the config's τ-bench data path pointed at the test machine's.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from typer.testing import CliRunner

from sscbench.cli import app

DATA = Path(__file__).resolve().parent / "data"
HERE = DATA / "realtext"
ROOT = Path(__file__).resolve().parents[1]
TAU2 = Path(os.environ.get("SSCBENCH_TAU2") or ROOT.parent / "shared" / "tau2-trajectories")
"""Whole τ²-bench results files (``$SSCBENCH_TAU2``, else ``../shared/tau2-trajectories``):
read when present, never shipped; tests that need them carry the ``shared_data`` marker."""
TAU2_SAMPLE = ROOT / "examples" / "data" / "tau2" / "claude-opus-4-6-airline-sample.json"
"""Six conversations of claude-opus-4-6's airline file, shipped: what a clone tests on."""


def corpus_config(root: Path, taubench: Path, out_dir: Path) -> Path:
    """The corpus's study config with its relative paths made absolute and its τ-bench
    data (and τ-bench recording) taken from ``taubench``."""
    text = (root / "study.toml").read_text("utf-8")
    text = re.sub(r'^data = ".*?"\n', "", text, flags=re.MULTILINE)
    text = re.sub(
        r'^source = "tau-bench"$',
        f'source = "tau-bench"\ndata = "{taubench}"',
        text,
        count=1,
        flags=re.MULTILINE,
    )

    def absolute(match: re.Match[str]) -> str:
        key, value = match.group(1), match.group(2)
        if value.startswith("tau-bench:"):
            return f'{key} = "{taubench / value.removeprefix("tau-bench:")}"'
        if "shared/tau-bench/" in value:
            return f'{key} = "{taubench / value.split("shared/tau-bench/", 1)[1]}"'
        if "shared/tau2-trajectories/" in value:
            return f'{key} = "{TAU2 / value.split("shared/tau2-trajectories/", 1)[1]}"'
        return f'{key} = "{(root / value).resolve()}"'

    text = re.sub(r'^(path|pairs|file) = "(.*?)"', absolute, text, flags=re.MULTILINE)
    config = out_dir / f"{root.name}-study.toml"
    config.write_text(text, "utf-8")
    return config


def run_corpus(root: Path, taubench: Path, out: Path) -> Path:
    """``sscbench run`` the corpus at ``root`` into ``out`` (measured); returns ``out``."""
    config = corpus_config(root, taubench, out.parent)
    result = CliRunner().invoke(
        app, ["run", str(config), "--out", str(out), "--no-progress", "--no-report"]
    )
    assert result.exit_code == 0, result.output
    measured = CliRunner().invoke(app, ["measure", str(out)])
    assert measured.exit_code == 0, measured.output
    return out
