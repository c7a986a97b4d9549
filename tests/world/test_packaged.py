"""τ-bench's packaged data: equal to ../shared's, extracted once (atomic, checked, rebuilt
when damaged), read with no --data, and named by ``tau-bench:`` paths."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.world import packaged
from sscbench.world.packaged import differences, manifest, packaged_taubench, resolve_packaged

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "tau-bench"
CONFORMANCE = ROOT / "tests" / "data" / "taubench-conformance"


def _files(folder: Path, skip: str = "conformance") -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.relative_to(folder).parts[0] != skip
    }


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty cache for this test only (the process-wide folder is found anew)."""
    monkeypatch.setenv("SSCBENCH_CACHE", str(tmp_path / "cache"))
    packaged_taubench.cache_clear()
    yield tmp_path / "cache"
    packaged_taubench.cache_clear()


@pytest.mark.shared_data(SHARED)
def test_packaged_data_equals_shared_byte_for_byte():
    shipped, shared = _files(packaged_taubench()), _files(SHARED)
    assert sorted(shipped) == sorted(shared)
    for name, content in shared.items():
        assert shipped[name] == content, name
        assert manifest()["files"][name] == hashlib.sha256(content).hexdigest(), name


@pytest.mark.shared_data(SHARED)
def test_shipped_conformance_corpora_equal_shared():
    import lzma

    for packed in CONFORMANCE.glob("*.xz"):
        assert (
            lzma.decompress(packed.read_bytes())
            == (SHARED / "conformance" / packed.stem).read_bytes()
        )
    hashes = (CONFORMANCE / "initial_hashes.json").read_bytes()
    assert hashes == (SHARED / "conformance" / "initial_hashes.json").read_bytes()


def test_the_package_ships_the_licence_and_names_the_source():
    here = Path(packaged.__file__).with_name("taubench_data")
    assert (here / "LICENSE").read_bytes() == (packaged_taubench() / "LICENSE").read_bytes()
    assert "Sierra" in (here / "LICENSE").read_text("utf-8")
    assert manifest()["commit"] in (here / "README.md").read_text("utf-8")
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert "world/taubench_data/*" in globs["package-data"]["sscbench"]


def test_extracted_once_into_the_cache(fresh_cache):
    folder = packaged_taubench()
    assert folder.parent == fresh_cache.resolve()
    assert folder.name == "tau-bench-" + manifest()["archive_sha256"][:16]
    assert differences(folder, manifest()["files"]) == []
    assert [p.name for p in fresh_cache.iterdir() if not p.name.endswith(".lock")] == [folder.name]


def test_a_damaged_cache_is_detected_and_rebuilt(fresh_cache):
    folder = packaged_taubench()
    (folder / "airline" / "users.json").write_text("{}")
    (folder / "retail" / "stray.json").write_text("{}")
    (folder / "airline" / "policy.md").unlink()
    assert differences(folder, manifest()["files"]) == [
        "airline/policy.md: missing",
        "retail/stray.json: not packaged",
        "airline/users.json: sha256 differs",
    ]
    packaged_taubench.cache_clear()
    assert packaged_taubench() == folder
    assert differences(folder, manifest()["files"]) == []
    leftovers = [p.name for p in fresh_cache.iterdir() if p.name.startswith(".tau") and p.is_dir()]
    assert leftovers == []


def test_two_processes_extracting_at_once_agree(tmp_path):
    cache = tmp_path / "cache"
    code = "from sscbench.world.packaged import packaged_taubench; print(packaged_taubench())"
    env = {**os.environ, "SSCBENCH_CACHE": str(cache)}
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outs = {p.communicate(timeout=120)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    (folder,) = outs
    assert differences(Path(folder), manifest()["files"]) == []
    assert sorted(p.name for p in cache.iterdir() if p.is_dir()) == [Path(folder).name]


def test_world_describe_tau_bench_needs_no_data(tmp_path):
    env = {**os.environ, "SSCBENCH_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "sscbench", "world", "describe", "tau-bench"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "tau-bench/airline: 300 flights, 2000 reservations, 500 users; 50 tasks; 14 tools",
        "tau-bench/retail: 1000 orders, 50 products, 500 users; 635 tasks; 16 tools",
    ]


def test_conformance_reads_the_shipped_xz_corpus_with_no_data():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sscbench",
            "conformance",
            str(CONFORMANCE / "fuzz_episodes.jsonl.xz"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.stdout.strip().splitlines()[-1] == (
        "conformance: 6000/6000 observations identical, 1232/1232 final hashes identical"
    ), proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.returncode == 0


def test_tau_bench_paths_name_packaged_files():
    recording = resolve_packaged("tau-bench:historical_trajectories/gpt-4o-airline.json")
    assert recording == packaged_taubench() / "historical_trajectories" / "gpt-4o-airline.json"
    assert recording.is_file()
    assert resolve_packaged("tau-bench:") == packaged_taubench()
    assert resolve_packaged("../shared/tau-bench") is None
    with pytest.raises(DataError, match="no such packaged file"):
        resolve_packaged("tau-bench:airline/nope.json")


def test_a_cache_that_cannot_be_written_is_named(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SSCBENCH_CACHE", str(blocker / "cache"))
    packaged_taubench.cache_clear()
    try:
        with pytest.raises(DataError, match=r"cannot extract .* set \$SSCBENCH_CACHE"):
            packaged_taubench()
    finally:
        packaged_taubench.cache_clear()
