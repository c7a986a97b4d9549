"""Provenance of a study: which sscbench, Python and libraries made it.

A study records the provenance of the session that created it in ``config.json``
(``provenance``) and one line per session that opened it to run (created, resumed,
extended) in ``sessions.jsonl``, so a study run by two sscbench versions says so.
Provenance is a record, never an input: it stays out of the config hash (a study
resumes under a newer sscbench) and out of every run's files.

The commit is read from the ``.git`` of the checkout sscbench runs from (``src/``
layout), without running git; ``dirty`` asks ``git status`` (with a timeout) and is
None when git is absent or slow. An installed sscbench has neither (None).
"""

from __future__ import annotations

import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import sscbench.version
from sscbench.json_types import JsonObject

KEY_DEPENDENCIES = (
    "pydantic",
    "numpy",
    "scipy",
    "statsmodels",
    "openai",
    "jinja2",
    "matplotlib",
    "typer",
    "rich",
)
"""Libraries whose version is always recorded (None when, oddly, absent)."""
OPTIONAL_DEPENDENCIES = ("inspect-ai", "opentelemetry-sdk", "ray")
"""The extras' libraries: recorded when installed."""


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _checkout() -> Path | None:
    """The source checkout sscbench is imported from (``ROOT/src/sscbench``), if any."""
    root = Path(__file__).resolve().parents[3]  # ROOT/src/sscbench/study/provenance.py
    if (root / ".git").exists() and (root / "pyproject.toml").is_file():
        return root
    return None


def _git_dir(root: Path) -> Path | None:
    dot = root / ".git"
    if dot.is_dir():
        return dot
    try:
        text = dot.read_text("utf-8").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    path = Path(text.removeprefix("gitdir:").strip())
    return path if path.is_absolute() else (root / path).resolve()


def _ref(git: Path, common: Path, ref: str) -> str | None:
    for folder in (git, common):
        try:
            return (folder / ref).read_text("utf-8").strip()
        except OSError:
            continue
    try:
        packed = (common / "packed-refs").read_text("utf-8")
    except OSError:
        return None
    for line in packed.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1] == ref:
            return parts[0]
    return None


def git_commit(root: Path) -> str | None:
    """The commit checked out at ``root`` (read from ``.git``: HEAD, refs, packed-refs),
    None when it cannot be read."""
    git = _git_dir(root)
    if git is None:
        return None
    try:
        head = (git / "HEAD").read_text("utf-8").strip()
        common_text = (git / "commondir").read_text("utf-8").strip()
        common = (git / common_text).resolve()
    except FileNotFoundError:
        common = git  # a plain checkout: no commondir
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head or None
    return _ref(git, common, head.removeprefix("ref:").strip())


def git_dirty(root: Path) -> bool | None:
    """Whether tracked files differ from the commit (``git status``); None when git is
    missing, fails or takes longer than two seconds."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            timeout=2,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(done.stdout.strip()) if done.returncode == 0 else None


def study_provenance(*, dirty: bool = True) -> JsonObject:
    """What made this session's runs: sscbench's version, commit and dirty flag, Python,
    platform and the libraries' versions, and when (UTC)."""
    root = _checkout()
    dependencies: JsonObject = {name: _version(name) for name in KEY_DEPENDENCIES}
    for name in OPTIONAL_DEPENDENCIES:
        found = _version(name)
        if found is not None:
            dependencies[name] = found
    return {
        "sscbench": sscbench.version.__version__,
        "commit": git_commit(root) if root else None,
        "dirty": git_dirty(root) if root and dirty else None,
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": platform.platform(),
        "dependencies": dependencies,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


__all__ = [
    "KEY_DEPENDENCIES",
    "OPTIONAL_DEPENDENCIES",
    "git_commit",
    "git_dirty",
    "study_provenance",
]
