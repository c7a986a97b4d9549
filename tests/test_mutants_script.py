"""The mutation set of ``scripts/mutants.py`` cannot rot silently.

Every mutant's original snippet must occur exactly once in the file it names (so the
patch applies to the code it was written for, not to nothing or to the wrong place),
its mutation must change the code, and its targeted tests must exist. When the code
moves, this fails and names the mutant to update.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _mutants():
    spec = importlib.util.spec_from_file_location("mutants", ROOT / "scripts" / "mutants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutants", module)  # dataclasses look their module up by name
    spec.loader.exec_module(sys.modules["mutants"])
    module = sys.modules["mutants"]
    return module.MUTANTS


def test_every_original_snippet_occurs_exactly_once() -> None:
    for mutant in _mutants():
        source = (ROOT / "src" / "sscbench" / mutant.file).read_text("utf-8")
        assert source.count(mutant.original) == 1, (mutant.name, source.count(mutant.original))


def test_every_mutant_changes_the_code_and_names_existing_tests() -> None:
    mutants = _mutants()
    assert len({m.name for m in mutants}) == len(mutants)
    assert len(mutants) >= 14
    for mutant in mutants:
        assert mutant.original != mutant.mutated, mutant.name
        assert mutant.principle and mutant.tests, mutant.name
        for test in mutant.tests:
            assert (ROOT / test.split("::")[0]).exists(), (mutant.name, test)
