"""Shared fixtures: τ-bench's data (../shared's or the packaged copy) and its worlds, the generated worlds, run
contexts, a small measured study and the measured default study (see docs/testing.md)."""

from __future__ import annotations

import lzma
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from sscbench.core.agent import RunContext
from sscbench.world.load import DOMAINS, load_world
from sscbench.world.packaged import packaged_taubench
from sscbench.world.world import World
from tiny_study import TINY_STUDY

ROOT = Path(__file__).resolve().parents[1]


SHARED_TAUBENCH = ROOT.parent / "shared" / "tau-bench"
CONFORMANCE_DATA = ROOT / "tests" / "data" / "taubench-conformance"


def taubench_dir() -> Path:
    """The τ-bench data folder: $SSCBENCH_TAUBENCH or ``../shared/tau-bench`` when present,
    else the packaged data's folder (``SSCBENCH_TAUBENCH=packaged``: always that one)."""
    env = os.environ.get("SSCBENCH_TAUBENCH")
    if env != "packaged":
        candidates = [Path(env)] if env else []
        candidates.append(SHARED_TAUBENCH)
        for path in candidates:
            if (path / "airline" / "flights.json").exists():
                return path
    return packaged_taubench()


@pytest.fixture(scope="session")
def taubench() -> Path:
    """τ-bench's data folder, laid out like ``../shared/tau-bench`` (see :func:`taubench_dir`);
    never skips: the package ships the data."""
    return taubench_dir()


@pytest.fixture(scope="session")
def taubench_conformance(taubench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of τ-bench's recorded conformance corpora (``episodes.jsonl``,
    ``fuzz_episodes.jsonl``, ``initial_hashes.json``): ``<taubench>/conformance`` when
    present, else ``tests/data/taubench-conformance`` decompressed."""
    beside = taubench / "conformance"
    if (beside / "episodes.jsonl").exists():
        return beside
    out = tmp_path_factory.mktemp("taubench-conformance")
    for packed in sorted(CONFORMANCE_DATA.glob("*.xz")):
        (out / packed.stem).write_bytes(lzma.decompress(packed.read_bytes()))
    shutil.copy(CONFORMANCE_DATA / "initial_hashes.json", out / "initial_hashes.json")
    return out


@pytest.fixture(scope="module")
def taubench_worlds(taubench: Path) -> dict[str, World]:
    """τ-bench's airline and retail worlds, by domain; fresh for each test module, so an
    interface variant (which changes a world in place) reaches no other module."""
    return {domain: load_world("tau-bench", domain, taubench) for domain in DOMAINS}


@pytest.fixture(scope="module")
def generated_worlds() -> dict[str, World]:
    """The embedded generated airline and retail worlds (seed 0), by domain; fresh for each
    test module."""
    return {domain: load_world("generated", domain) for domain in DOMAINS}


def _run_context(world: World, task_id: str, seed: int = 0, repetition: int = 0) -> RunContext:
    """What an agent or user of a run is built from: the task, policy and tool schemas."""
    return RunContext(
        world=world,
        task=world.task(task_id),
        system_prompt=world.policy,
        tools=world.tool_schemas(),
        seed=seed,
        repetition=repetition,
    )


@pytest.fixture(scope="session")
def run_context() -> Callable[..., RunContext]:
    """A factory ``run_context(world, task_id, seed=0, repetition=0)`` of run contexts."""
    return _run_context


@pytest.fixture(scope="module")
def tiny_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small scripted study on the generated worlds (both domains, the four operators,
    two profiles), run and measured in a fresh folder of each test module."""
    from sscbench.measure.study import measure_study
    from sscbench.run.executor import execute_study
    from sscbench.study.config import parse_config

    root = tmp_path_factory.mktemp("tiny") / "study"
    execute_study(parse_config(TINY_STUDY, "tiny.toml"), TINY_STUDY, root, progress=False)
    measure_study(root)
    return root


@pytest.fixture(scope="session")
def default_study_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded default study (``sscbench run`` without a config), run and measured
    once per session; tests use their module's copy (:func:`default_study`)."""
    from sscbench.measure.study import measure_study
    from sscbench.run.executor import execute_study
    from sscbench.study.config import load_config

    root = tmp_path_factory.mktemp("default") / "study"
    config, text = load_config(None)
    execute_study(config, text, root, progress=False)
    measure_study(root)
    return root


@pytest.fixture(scope="module")
def default_study(default_study_source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the measured default study for one test module, to write into freely
    (a report, a re-measurement) without reaching other modules."""
    copy = tmp_path_factory.mktemp("default-copy") / "study"
    shutil.copytree(default_study_source, copy)
    return copy


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Print the real-model tier's timings and outcome counts (set by the tests in tests/local)."""
    text = getattr(config, "sscbench_local_metrics", None)
    if text:
        terminalreporter.write_sep("-", "real local model via sscbench serve-local (tests/local)")
        terminalreporter.write_line(text)


def _missing_shared_data(item: pytest.Item) -> list[Path]:
    """The ``shared_data(path)`` paths of ``item`` that this machine lacks."""
    paths = [Path(marker.args[0]) for marker in item.iter_markers("shared_data")]
    return [path for path in paths if not path.exists()]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A ``shared_data(path)`` test needs the development machine's ``../shared`` data: it
    is skipped, naming the path, when that is absent, before any fixture reads it (under
    ``SSCBENCH_REQUIRE_SHARED=1`` it fails instead, see :func:`pytest_runtest_setup`).
    Every other test runs on what a clone has (docs/testing.md)."""
    if os.environ.get("SSCBENCH_REQUIRE_SHARED") == "1":
        return
    for item in items:
        for path in _missing_shared_data(item):
            reason = f"shared_data: {path} not present (development data, never shipped)"
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Under ``SSCBENCH_REQUIRE_SHARED=1`` (the development machine's CI) a
    ``shared_data`` test whose data is missing fails rather than skips."""
    missing = _missing_shared_data(item)
    if missing and os.environ.get("SSCBENCH_REQUIRE_SHARED") == "1":
        pytest.fail(f"shared_data: {missing[0]} not present and SSCBENCH_REQUIRE_SHARED=1")
