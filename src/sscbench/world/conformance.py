"""Replay recorded τ-bench episodes and compare every observation and final hash."""

from __future__ import annotations

import gzip
import json
import lzma
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, NotRequired, TypedDict

from sscbench.errors import DataError
from sscbench.json_types import JsonObject
from sscbench.reading import json_reason, loads_json
from sscbench.world.env import Env
from sscbench.world.world import World


class RecordedStep(TypedDict):
    """One tool call of a recorded episode: what τ-bench received and what it returned."""

    name: str
    kwargs: NotRequired[JsonObject]
    observation: str


class RecordedEpisode(TypedDict):
    """One line of a conformance corpus (``domain`` and ``steps`` are checked on reading)."""

    domain: str
    steps: list[RecordedStep]
    source: NotRequired[str]
    final_hash: NotRequired[str]


@dataclass
class Difference:
    """One place where the replay did not reproduce the recording."""

    episode: int
    source: str
    step: int | None
    what: str
    expected: str
    got: str


@dataclass
class ConformanceReport:
    """Counts of identical observations and final hashes, with the differences found."""

    observations: int = 0
    observations_identical: int = 0
    hashes: int = 0
    hashes_identical: int = 0
    differences: list[Difference] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when every observation and every final hash is identical."""
        return (
            self.observations == self.observations_identical
            and self.hashes == self.hashes_identical
        )

    def summary(self) -> str:
        """The one closing line of ``sscbench conformance``."""
        return (
            f"conformance: {self.observations_identical}/{self.observations} observations identical, "
            f"{self.hashes_identical}/{self.hashes} final hashes identical"
        )


def _open_text(path: Path) -> IO[str]:
    """A text file, decompressed when it ends in ``.xz`` or ``.gz``."""
    if path.suffix == ".xz":
        return lzma.open(path, "rt", encoding="utf-8")
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def read_episodes(path: Path) -> Iterator[tuple[int, RecordedEpisode]]:
    """Stream the episodes of a JSONL file (or ``.jsonl.xz`` / ``.jsonl.gz``), naming the
    line of any malformed one."""
    with _open_text(path) as handle:
        number = 0
        try:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    episode = loads_json(line)
                except json.JSONDecodeError as exc:
                    raise DataError(path, f"line {number}", exc.msg) from exc
                except ValueError as exc:
                    raise DataError(path, f"line {number}", json_reason(exc)) from exc
                for key in ("domain", "steps"):
                    if key not in episode:
                        raise DataError(path, f"line {number}.{key}", "required field missing")
                yield number, episode
        except (lzma.LZMAError, EOFError, gzip.BadGzipFile) as exc:
            raise DataError(path, f"after line {number}", f"cannot decompress: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise DataError(path, None, "not UTF-8 text") from exc


def restore_aliased_arguments(step: RecordedStep) -> JsonObject | None:
    """The arguments τ-bench actually received, when its own later writes changed the record.

    τ-bench's ``book_reservation`` stores the caller's ``payment_methods`` list object
    as the new reservation's ``payment_history``; later refunds and payments append to
    that same object, so a recorder that serialises the arguments after the episode
    stores the changed list. The booking's own success observation shows the list as it
    was at call time. Returns corrected arguments, or None when nothing was changed.
    """
    if step.get("name") != "book_reservation":
        return None
    kwargs = step.get("kwargs")
    try:
        delivered = loads_json(step.get("observation", ""), max_depth=None)
    except ValueError:
        return None
    if not isinstance(kwargs, dict) or not isinstance(delivered, dict):
        return None
    history = delivered.get("payment_history")
    recorded = kwargs.get("payment_methods")
    if not isinstance(history, list) or not isinstance(recorded, list) or history == recorded:
        return None
    if recorded[: len(history)] != history:
        return None  # not an append to the same list: a real difference, keep it
    return {**kwargs, "payment_methods": history}


def run_conformance(path: Path, world_for: Callable[[str], World]) -> ConformanceReport:
    """Replay each episode on a fresh state of its domain and compare with the recording."""
    report = ConformanceReport()
    envs: dict[str, Env] = {}
    for number, episode in read_episodes(path):
        domain = episode["domain"]
        env = envs.get(domain)
        if env is None:
            env = envs[domain] = world_for(domain).new_env()
        env.reset()
        source = str(episode.get("source", f"line {number}"))
        for index, step in enumerate(episode["steps"]):
            kwargs = step.get("kwargs", {})
            restored = restore_aliased_arguments(step)
            if restored is not None:
                kwargs = restored
                report.restored.append(f"line {number} ({source}) step {index}")
            outcome = env.execute(step["name"], kwargs)
            report.observations += 1
            if outcome.observation == step["observation"]:
                report.observations_identical += 1
            else:
                report.differences.append(
                    Difference(
                        number,
                        source,
                        index,
                        f"observation of {step['name']}",
                        step["observation"],
                        outcome.observation,
                    )
                )
        if "final_hash" in episode:
            report.hashes += 1
            got = env.db_hash()
            if got == episode["final_hash"]:
                report.hashes_identical += 1
            else:
                report.differences.append(
                    Difference(number, source, None, "final hash", episode["final_hash"], got)
                )
    return report
