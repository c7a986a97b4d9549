"""The one rule for names that become paths: run ids, agent ids, reviewer names, review ids.

A name read from any file or command line that later names a file or folder is checked
here each time it is read (:func:`name_problem`, :func:`check_name`, the pydantic type
:data:`PathName`), so an edited ``plan.json``, index or pairs file cannot lead a reader
out of its folder or onto a hidden file. Beside :mod:`sscbench.reading`, above
:mod:`sscbench.errors`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator

from sscbench.errors import DataError

MAX_NAME = 200
"""Longest name that becomes a file name: a run id under ``runs/`` with its longest
suffix (``.evaluator.jsonl``) and a temporary name's dot and process id stays below
the 255 bytes a file name may have, and every generated run id fits."""

_NAME_CHARACTERS = re.compile(r"[A-Za-z0-9._~-]+")


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot become one file or folder name (None: it can).

    The one rule for every name read from a file or a command line that later names a
    path — run ids, agent (configuration) ids, reviewer names, review ids: a string of
    letters, digits, ``.``, ``_``, ``-`` and ``~``, at most :data:`MAX_NAME` characters,
    not starting with ``.`` (so never ``.`` or ``..``, never a hidden file such as
    ``runs/..ledger.jsonl``, never a separator). Checked wherever such a name is read,
    not only where a person types it, so an edited ``plan.json`` or index cannot lead a
    reader out of its folder."""
    if not isinstance(name, str) or not name:
        return "a name must be a non-empty string"
    if len(name) > MAX_NAME:
        return f"longer than {MAX_NAME} characters"
    if not _NAME_CHARACTERS.fullmatch(name):
        return f"{name!r} is not a safe file name: letters, digits, '.', '_', '-', '~' only"
    if name.startswith("."):
        return f"{name!r} is not a safe file name: it may not start with '.'"
    return None


def check_name(name: object, path: str | Path, field: str | None) -> str:
    """``name`` when it can become a file name (:func:`name_problem`); otherwise a
    :class:`DataError` naming the file and field it was read from."""
    problem = name_problem(name)
    if problem is not None:
        raise DataError(path, field, problem)
    assert isinstance(name, str)
    return name


def safe_name(name: str) -> str:
    """A pydantic ``AfterValidator``: ``name`` as it is, or ``ValueError`` with the
    reason of :func:`name_problem`."""
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(problem)
    return name


PathName = Annotated[str, AfterValidator(safe_name)]
"""A model field whose value becomes a file name: checked by :func:`name_problem` each
time the model is read, wherever it comes from."""
