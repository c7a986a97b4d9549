"""Run ids: stable, file-name-safe and injective over (case, configuration, repetition,
kind)."""

from __future__ import annotations

import hashlib
import re

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_DASHES = re.compile(r"-{2,}")
MAX_CASE_PART = 100


def case_part(case_id: str) -> str:
    """A file-name-safe form of a case id that no other case id shares.

    A short id of safe characters without ``--`` and not starting with ``.`` stands for
    itself; any other is shortened to safe characters and followed by ``~`` and a hash
    of the whole id (``~`` is not a safe character, so the two forms never meet; a
    leading ``.`` becomes ``_``, so no run file is hidden).
    """
    plain = not _UNSAFE.search(case_id) and "--" not in case_id
    if plain and not case_id.startswith(".") and len(case_id) <= MAX_CASE_PART:
        return case_id
    readable = _DASHES.sub("-", _UNSAFE.sub("_", case_id))[:80]
    readable = "_" + readable[1:] if readable.startswith(".") else readable
    return f"{readable}~{hashlib.sha256(case_id.encode()).hexdigest()[:12]}"


def run_id_for(case_id: str, config_id: str, repetition: int, kind: str) -> str:
    """A file-name-safe, stable id of one run, distinct for distinct (case, config,
    repetition, kind) — config ids hold no ``--`` (see AgentSettings), so the parts
    separate unambiguously."""
    return f"{case_part(case_id)}--{config_id}--r{repetition}--{kind}"
