"""sscbench: arrival-aware fault-injection evaluation of tool-using agents.

The Python face (docs/python-api.md): ``sscbench.load_study(path)`` reads a measured,
reported study as typed rows and (``sscbench[pandas]``) DataFrames. It is imported when
first used, so ``import sscbench`` stays light (the CLI's start-up does not pay for it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sscbench.study.results import ClaimRow, StudyResults, load_study

from sscbench.version import __version__

__all__ = ["ClaimRow", "StudyResults", "__version__", "load_study"]

_LAZY = {"load_study", "StudyResults", "ClaimRow"}


def __getattr__(name: str) -> object:
    """``load_study``, ``StudyResults`` and ``ClaimRow``, imported on first use."""
    if name in _LAZY:
        from sscbench.study import results

        return getattr(results, name)
    raise AttributeError(f"module 'sscbench' has no attribute {name!r}")
