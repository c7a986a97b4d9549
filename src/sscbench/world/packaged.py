"""τ-bench's data shipped inside the package, extracted once into a checked cache folder.

``taubench_data/tau-bench.tar.xz`` holds a folder laid out like ``shared/tau-bench``
(databases, tasks, tool schemas, policies, the gpt-4o trajectories, τ-bench's LICENSE);
``manifest.json`` beside it names the archive's sha256 and every file's.
:func:`packaged_taubench` returns ``<cache>/tau-bench-<sha256[:16]>``, so everything
that reads a data *path* (the loader, recordings, conformance, a study's input hashes)
reads the packaged data unchanged. The folder is:

* extracted into a temporary sibling and renamed into place (atomic; a second process
  extracting at the same time waits on a lock and then finds the folder made);
* checked against the manifest (names and sha256 of every file) once per process; a
  folder that differs is moved aside and extracted anew.

The cache is ``$SSCBENCH_CACHE``, else ``$XDG_CACHE_HOME/sscbench``, else
``~/.cache/sscbench``. A config path ``tau-bench:REL`` names ``REL`` in that folder
(:func:`resolve_packaged`), e.g. ``tau-bench:historical_trajectories/gpt-4o-airline.json``.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import lzma
import os
import re
import shutil
import tarfile
import tempfile
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import TypeAdapter
from typing_extensions import TypedDict

from sscbench.errors import DataError

PREFIX = "tau-bench:"
"""A config path starting with this names a file of the packaged τ-bench data."""
_DATA = "taubench_data"


def _resource(name: str) -> Traversable:
    return resources.files("sscbench.world").joinpath(_DATA, name)


class Manifest(TypedDict):
    """``manifest.json``: where the data came from, the archive, and every file's sha256."""

    source: str
    commit: str
    archive: str
    archive_sha256: str
    files: dict[str, str]
    """path in the archive → sha256 of its content"""


_MANIFEST = TypeAdapter(Manifest)


def manifest() -> Manifest:
    """The packaged data's manifest: source, commit, archive sha256, ``files`` (path → sha256)."""
    return _MANIFEST.validate_json(_resource("manifest.json").read_bytes(), strict=True)


def cache_root() -> Path:
    """Where sscbench keeps extracted data: $SSCBENCH_CACHE, $XDG_CACHE_HOME/sscbench or
    ~/.cache/sscbench."""
    if os.environ.get("SSCBENCH_CACHE"):
        return Path(os.environ["SSCBENCH_CACHE"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "sscbench"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def differences(folder: Path, files: dict[str, str]) -> list[str]:
    """How ``folder`` differs from the manifest's ``files`` (empty: identical)."""
    if not folder.is_dir():
        return [f"{folder} is missing"]
    found = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()}
    out = [f"{name}: missing" for name in sorted(set(files) - found)]
    out += [f"{name}: not packaged" for name in sorted(found - set(files))]
    for name in sorted(set(files) & found):
        path = folder / name
        if path.is_symlink() or not path.is_file() or _sha256(path) != files[name]:
            out.append(f"{name}: sha256 differs")
    return out


def _extract(into: Path, info: Manifest) -> None:
    """Write the archive's files into the empty folder ``into``, each checked."""
    raw = _resource(info["archive"]).read_bytes()
    if hashlib.sha256(raw).hexdigest() != info["archive_sha256"]:
        raise DataError(str(_resource(info["archive"])), None, "archive sha256 differs")
    files = info["files"]
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:xz") as archive:
        for member in archive.getmembers():
            if not member.isfile():
                continue
            if member.name not in files:
                raise DataError("tau-bench.tar.xz", member.name, "not in the manifest")
            handle = archive.extractfile(member)
            content = handle.read() if handle is not None else b""
            if hashlib.sha256(content).hexdigest() != files[member.name]:
                raise DataError("tau-bench.tar.xz", member.name, "sha256 differs")
            target = into / member.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
    left = differences(into, files)
    if left:
        raise DataError("tau-bench.tar.xz", None, "; ".join(left))


def _install(root: Path, final: Path, info: Manifest) -> None:
    """Under the lock: move a differing ``final`` aside, extract anew, rename into place."""
    if final.exists():
        aside = Path(tempfile.mkdtemp(prefix=f".{final.name}.bad-", dir=root))
        os.replace(final, aside / "old")
        shutil.rmtree(aside, ignore_errors=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{final.name}.new-", dir=root))
    try:
        _extract(fresh, info)
        os.replace(fresh, final)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


@cache
def packaged_taubench() -> Path:
    """The folder of the packaged τ-bench data (laid out like ``shared/tau-bench``),
    extracted and checked in the cache; once per process."""
    info = manifest()
    root = cache_root().resolve()
    final = root / f"tau-bench-{info['archive_sha256'][:16]}"
    if not differences(final, info["files"]):
        return final
    try:
        root.mkdir(parents=True, exist_ok=True)
        with (root / f".{final.name}.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if differences(final, info["files"]):  # not made meanwhile by another process
                _install(root, final, info)
    except OSError as exc:
        raise DataError(
            root, None, f"cannot extract τ-bench's packaged data here ({exc}); set $SSCBENCH_CACHE"
        ) from exc
    return final


def resolve_packaged(path: str | Path) -> Path | None:
    """``tau-bench:REL`` → ``REL`` in the packaged data's folder; None for any other path."""
    text = str(path)
    if not text.startswith(PREFIX):
        return None
    rel = text[len(PREFIX) :].lstrip("/")
    target = packaged_taubench() / rel if rel else packaged_taubench()
    if rel and rel not in manifest()["files"]:
        raise DataError(text, None, f"no such packaged file; expected one of {_listing()}")
    return target


_FOLDER = re.compile(r"tau-bench-[0-9a-f]{16}")


def portable_path(path: str | Path) -> str:
    """How a study records an input file: ``tau-bench:REL`` for a file of the packaged
    data's folder (in any cache, so a study resumes on another machine or cache), else
    the path as given."""
    parts = Path(path).parts
    for index in range(len(parts) - 2, -1, -1):
        if _FOLDER.fullmatch(parts[index]):
            return PREFIX + "/".join(parts[index + 1 :])
    return str(path)


def _listing() -> str:
    return ", ".join(PREFIX + name for name in manifest()["files"])


def pack(folder: Path, out: Path) -> Manifest:
    """Write ``out`` (``.tar.xz``) from a folder laid out like ``shared/tau-bench`` (its
    conformance corpora left out), reproducibly; return the manifest to ship beside it."""
    names = sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.relative_to(folder).parts[0] != "conformance"
    )
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name in names:
            content = (folder / name).read_bytes()
            member = tarfile.TarInfo(name)
            member.size, member.mode, member.mtime = len(content), 0o644, 1704067200
            archive.addfile(member, io.BytesIO(content))
    data = lzma.compress(buffer.getvalue(), preset=9 | lzma.PRESET_EXTREME)
    out.write_bytes(data)
    files = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in names}
    return {
        "source": "https://github.com/sierra-research/tau-bench",
        "commit": "59a200c",
        "archive": out.name,
        "archive_sha256": hashlib.sha256(data).hexdigest(),
        "files": files,
    }


if __name__ == "__main__":  # python -m sscbench.world.packaged pack DIR
    import sys

    if len(sys.argv) != 3 or sys.argv[1] != "pack":
        sys.exit("usage: python -m sscbench.world.packaged pack DIR")
    here = Path(__file__).with_name(_DATA)
    meta = pack(Path(sys.argv[2]), here / "tau-bench.tar.xz")
    (here / "manifest.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"{here / 'tau-bench.tar.xz'}: {meta['archive_sha256']}")
