"""Recording formats as reader classes, registered once.

A :class:`RecordingFormat` knows one file format of recorded runs: how to recognise a
file of it (:meth:`~RecordingFormat.detect`, from the file's first characters, and
:meth:`~RecordingFormat.holds`, from its parsed JSON), how to read its runs
(:meth:`~RecordingFormat.runs`, each a :class:`~sscbench.recordings.recorded.RecordedRun`
in τ-bench's message format), what a run is called in its file
(:meth:`~RecordingFormat.recording_id`), and whether its runs must be matched to
τ-bench's tasks by their content (:attr:`~RecordingFormat.matches_tasks`) or read one
by one through an index (:meth:`~RecordingFormat.index`).

:data:`FORMATS` is the one registry: every stage that cares which format a recording is
in (the study config's ``[agents.replay] format``, the replay agent's loader and its
task matching, the report's recordings section) asks it, never a format's name. A new
format is a class in its own module plus one line here (or :func:`registered` in a
test); ``docs/adding-a-recording-format.md`` walks through it.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from pydantic import JsonValue, ValidationError

from sscbench.errors import DataError
from sscbench.json_types import JsonArray, JsonObject
from sscbench.reading import json_reason, loads_json, read_text
from sscbench.recordings.recorded import RecordedRun
from sscbench.recordings.tau2 import TAU2_FORMAT, tau2_runs
from sscbench.recordings.tau2_index import Tau2Index, index_tau2

HEAD_CHARS = 4096
"""How much of a file :meth:`RecordingFormat.detect` is shown (its first characters)."""


class RecordingFormat(ABC):
    """One format of recorded runs: detect a file, read its runs, name and match them."""

    name: ClassVar[str]
    """What ``[agents.replay] format`` calls the format (and runs' ``info["format"]``)."""
    description: ClassVar[str]
    """The format in a few words, for errors listing what a file may be."""
    matches_tasks: ClassVar[bool] = False
    """The runs name tasks in another benchmark's numbering: each is matched to a
    τ-bench task by its content (:mod:`sscbench.recordings.task_match`)."""
    names_runs: ClassVar[bool] = False
    """The file gives each run an id of its own (:meth:`recording_id`), which the run's
    replay record keeps (``ReplayRecord.recording``); otherwise that stays empty."""
    indexed: ClassVar[bool] = False
    """The file can be indexed by recording id (:meth:`index`), so that a pairs study
    reads only the runs it names."""
    several_calls_per_message: ClassVar[bool] = False
    """An assistant message may make several tool calls, executed in order: refused
    under τ-bench's first-call-only rule (``study.first_tool_call_only``)."""

    @abstractmethod
    def detect(self, head: str) -> bool:
        """Whether a file whose first characters (white space stripped) are ``head`` is in
        this format: what a config's format is checked against before the file is read."""

    @abstractmethod
    def holds(self, raw: JsonValue) -> bool:
        """Whether a file's parsed JSON is in this format."""

    @abstractmethod
    def runs(self, raw: JsonValue, path: Path) -> list[RecordedRun]:
        """Every run of a parsed file (:meth:`holds` said yes), validated; errors name
        the file and the field at fault."""

    def recording_id(self, run: RecordedRun, split: str) -> str:
        """The run's id in its file (what a pairs file's ``recording`` names): by default
        ``"<task>#<trial>"``."""
        return f"{run.taubench_task_id(split)}#{run.trial if run.trial is not None else 0}"

    def index(self, path: Path) -> Tau2Index | None:
        """An index of the file's runs by recording id, for reading only the runs a pairs
        file names (None: the format is read whole, :attr:`indexed` is off)."""
        return None


class TauBenchFormat(RecordingFormat):
    """τ-bench's trajectory format: a JSON list of runs (``task_id``, ``traj`` of OpenAI
    chat messages, ``reward``, ``trial``, ``info``)."""

    name = "tau-bench"
    description = "a JSON list of recorded runs (τ-bench)"

    def detect(self, head: str) -> bool:
        """Anything but a JSON object (a list; what is neither fails when read)."""
        return not head.startswith("{")

    def holds(self, raw: JsonValue) -> bool:
        """A list."""
        return isinstance(raw, list)

    def runs(self, raw: JsonValue, path: Path) -> list[RecordedRun]:
        """Each entry validated; an error names its index and field (``[12].traj.3.role``)."""
        entries: JsonArray = raw if isinstance(raw, list) else []
        runs: list[RecordedRun] = []
        for index, entry in enumerate(entries):
            try:
                runs.append(RecordedRun.model_validate(entry))
            except ValidationError as exc:
                error = exc.errors()[0]
                loc = ".".join(str(part) for part in error["loc"])
                where = f"[{index}]" + (f".{loc}" if loc else "")
                raise DataError(path, where, f"malformed entry {index}: {error['msg']}") from exc
        return runs


class Tau2Format(RecordingFormat):
    """τ²-bench's results file (``{"info", "tasks", "simulations": [...]}``): each
    simulation a run, named by its simulation id, matched to τ-bench's task by content,
    indexed by id so a pairs study reads only the simulations it names."""

    name = TAU2_FORMAT
    description = "a τ² results file"
    matches_tasks = True
    names_runs = True
    indexed = True
    several_calls_per_message = True

    def detect(self, head: str) -> bool:
        """A JSON object."""
        return head.startswith("{")

    def holds(self, raw: JsonValue) -> bool:
        """An object with a ``simulations`` list."""
        return isinstance(raw, dict) and isinstance(raw.get("simulations"), list)

    def runs(self, raw: JsonValue, path: Path) -> list[RecordedRun]:
        """Every simulation (:func:`~sscbench.recordings.tau2.tau2_runs`)."""
        results: JsonObject = raw if isinstance(raw, dict) else {}
        return tau2_runs(results, path)

    def recording_id(self, run: RecordedRun, split: str) -> str:
        """The simulation's id."""
        simulation = run.info.get("simulation_id")
        return str(simulation) if simulation is not None else super().recording_id(run, split)

    def index(self, path: Path) -> Tau2Index | None:
        """The file streamed once (:func:`~sscbench.recordings.tau2_index.index_tau2`)."""
        return index_tau2(path)


FORMATS: dict[str, RecordingFormat] = {
    TauBenchFormat.name: TauBenchFormat(),  # the first is the default
    Tau2Format.name: Tau2Format(),
}
"""Every recording format by name, one line each; the first is the default (a file no
format detects is read as it). A format is asked before those registered above it, so a
later line may be more specific than an earlier one (τ²'s object before any object)."""


def format_names() -> tuple[str, ...]:
    """The registered formats' names (what ``[agents.replay] format`` may say)."""
    return tuple(FORMATS)


def recording_format(name: str | None) -> RecordingFormat:
    """The format of that name (None: the default); KeyError lists the known ones."""
    if name is None:
        return default_format()
    if name not in FORMATS:
        raise KeyError(f"unknown recording format {name!r}; known: {list(FORMATS)}")
    return FORMATS[name]


def default_format() -> RecordingFormat:
    """The first registered format: what a file no format detects is read as."""
    return next(iter(FORMATS.values()))


def most_specific_first() -> list[RecordingFormat]:
    """The registered formats, the last registered first (the order they are asked in)."""
    return list(reversed(FORMATS.values()))


def detect_head(head: str) -> RecordingFormat:
    """The format a file starting with ``head`` is in (white space before it ignored):
    the last registered one that detects it, else the default."""
    stripped = head.lstrip()
    found = (f for f in most_specific_first() if f.detect(stripped))
    return next(found, default_format())


def detect_file(path: str | Path) -> RecordingFormat | None:
    """The format of the file at ``path`` from its first characters (None: unreadable)."""
    try:
        with Path(path).open("rb") as handle:
            head = handle.read(HEAD_CHARS).decode("utf-8", "ignore")
    except OSError:
        return None
    return detect_head(head)


def run_format(run: RecordedRun) -> RecordingFormat:
    """The format a run was read from (its ``info["format"]``; the default when unset)."""
    name = run.info.get("format")
    return FORMATS.get(name, default_format()) if isinstance(name, str) else default_format()


def recording_id(run: RecordedRun, split: str = "test") -> str:
    """The run's id in its file, as its format names it (what pairs name)."""
    return run_format(run).recording_id(run, split)


def own_recording_id(run: RecordedRun) -> str | None:
    """The run's id when its format names runs (None otherwise): what a replay keeps."""
    found = run_format(run)
    return found.recording_id(run, "test") if found.names_runs else None


def load_recording(path: str | Path) -> list[RecordedRun]:
    """Recorded runs from a file of any registered format, validated.

    Raises :class:`DataError` naming the file and, for a malformed entry, where it is
    and the field at fault.
    """
    path = Path(path)
    text = read_text(path)
    try:
        raw: JsonValue = loads_json(text)
    except json.JSONDecodeError as exc:
        raise DataError(path, f"line {exc.lineno} column {exc.colno}", exc.msg) from exc
    except ValueError as exc:
        raise DataError(path, None, json_reason(exc)) from exc
    for found in most_specific_first():
        if found.holds(raw):
            return found.runs(raw, path)
    expected = " or ".join(f.description for f in FORMATS.values())
    raise DataError(path, None, f"expected {expected}")


@contextmanager
def registered(format_class: type[RecordingFormat]) -> Iterator[RecordingFormat]:
    """Register a format class for the duration of a ``with`` block (a test's own
    format), restoring whatever was registered under its name before."""
    saved = dict(FORMATS)
    reader = FORMATS[format_class.name] = format_class()
    try:
        yield reader
    finally:
        FORMATS.clear()
        FORMATS.update(saved)


__all__ = [
    "FORMATS",
    "RecordingFormat",
    "Tau2Format",
    "TauBenchFormat",
    "default_format",
    "detect_file",
    "detect_head",
    "format_names",
    "load_recording",
    "most_specific_first",
    "own_recording_id",
    "recording_format",
    "recording_id",
    "registered",
    "run_format",
]
