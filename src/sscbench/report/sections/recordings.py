"""The ``recordings`` section: what a replay study replayed and how each recording was
tied to its τ-bench task.

For a τ²-bench results file, every conversation's content match (the task, its score
and evidence, the runner-up) is listed, and the unmatched ones with their reason —
they replay no case, they are never guessed. The section also says how several tool
calls in one message were executed, and counts the recorded calls whose delivered
observation differs from the recorded one by tool (e.g. ``get_flight_status``, a τ²
tool τ-bench lacks and answers as an unknown action).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from sscbench.agents.recordings import RecordingAgentFactory, Selection, matched_runs
from sscbench.errors import DataError
from sscbench.json_types import JsonObject
from sscbench.reading import loads_json
from sscbench.recordings.formats import recording_format
from sscbench.report.context import ReportContext
from sscbench.report.entries import CsvRow, Entry, text_at
from sscbench.report.model import RunSets, Section, Table
from sscbench.study.config import AgentSettings, StudyConfig, config_from_record
from sscbench.study.recordings_file import kept_entry
from sscbench.study.study import Study

ID = "recordings"
TITLE = "Recordings"
MATCH_COLUMNS = [
    "recording",
    "labelled task",
    "matched task",
    "score",
    "user",
    "actions",
    "words",
    "runner-up (score)",
    "faulted runs",
    "why unmatched",
]
SEVERAL_CALLS = (
    "Several tool calls in one message were executed in order, as recorded "
    "([study] first_tool_call_only = false; τ-bench executes only the first)."
)


def _config(record: JsonObject) -> StudyConfig | None:
    """The study's config from its record, or None when it has none readable."""
    if not record:
        return None
    try:
        return config_from_record(record)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _replay_records(study: Study) -> dict[str, list[tuple[str, JsonObject]]]:
    """config id -> (run id, replay record) of every faulted run, from the evaluator logs."""
    store = study.store
    out: dict[str, list[tuple[str, JsonObject]]] = defaultdict(list)
    for entry in study.entries:
        if entry.kind != "faulted" or entry.status != "completed":
            continue
        try:
            lines = store.evaluator_text(entry.run_id).split("\n")
        except (OSError, DataError):
            continue
        for line in lines:
            if line.startswith('{"type":"replay"'):
                out[entry.config_id].append((entry.run_id, loads_json(line)))
    return out


def _match_table(
    agent_id: str,
    rows: Sequence[Entry],
    runs_by_recording: dict[str, list[str]],
    sets: RunSets,
    named: bool = False,
) -> Table:
    matched = sum(1 for r in rows if r["task_id"])
    which = "conversations the pairs name" if named else "conversations"
    table = Table(
        f"recordings-{agent_id}",
        f"{agent_id}: {matched} of {len(rows)} {which} matched to a τ-bench task by content "
        f"({len(rows) - matched} unmatched, replaying no case)",
        (
            "the conversations the pairs file names (the recording's others are neither read "
            "nor matched)"
            if named
            else "every conversation of the recording file"
        )
        + "; score = 0.5·user + 0.3·actions + 0.2·words",
        MATCH_COLUMNS,
    )
    for row in rows:
        table.add(
            row["recording"],
            row["labelled_task"],
            row["task_id"] or "unmatched",
            f"{row['score']:.2f}",
            "yes" if row["user"] else "no",
            f"{row['actions']:.2f}",
            f"{row['words']:.2f}",
            f"{row['runner_up']} ({row['runner_up_score']:.2f})" if row["runner_up"] else "–",
            sets.count(runs_by_recording.get(text_at(row, "recording"), [])),
            row["reason"] or "–",
        )
    return table


def _divergence_note(records: list[tuple[str, JsonObject]]) -> str | None:
    """The delivered observations that differ from the recorded ones, by tool."""
    by_tool: Counter[str] = Counter()
    for _, record in records:
        listed = record.get("divergences")
        divergences = listed if isinstance(listed, list) else []
        by_tool.update(str(d.get("name", "?")) for d in divergences if isinstance(d, dict))
    if not by_tool:
        return None
    listed = ", ".join(f"{name} {count}" for name, count in by_tool.most_common())
    return (
        "Delivered observations that differ from the recorded ones (the fault's own among "
        f"them; a tool τ-bench lacks is answered as an unknown action), by tool: {listed}. "
        "They are in each run's evaluator log, never in the model-visible ledger."
    )


def build(ctx: ReportContext) -> Section:
    """The recordings a replay study replayed."""
    return recordings_section(ctx.loaded, ctx.sets)


def recordings_section(study: Study, sets: RunSets) -> Section:
    """The section and its CSV rows (``recording_matches``)."""
    section = Section(ID, TITLE)
    config = _config(study.record)
    agents = [a for a in (config.agents if config else []) if a.replay is not None]
    if config is None or not agents:
        section.reason = "the study replays no recording"
        return section
    records = _replay_records(study)
    data = config.world_data()
    csv_rows: list[CsvRow] = []
    for agent in agents:
        mine = records.get(agent.id, [])
        csv_rows += _replayed(section, config, data, agent, mine, sets, study.store.root)
    if not config.study.first_tool_call_only:
        section.notes.append([{"t": SEVERAL_CALLS}])
    section.intro = (
        "Which recordings the replay agents re-emitted and how each was tied to its task: "
        "τ²-bench renumbers τ-bench's tasks, so a conversation is matched by its content "
        "(the user it looks up, its writes against each task's actions, the user's words "
        "against the instruction), and an unmatched one is listed here, never guessed."
    )
    if csv_rows:
        section.csvs["recording_matches"] = csv_rows
    return section


def _named_matches(
    study_root: Path, config: StudyConfig, data: Path | None, agent: AgentSettings
) -> list[CsvRow] | None:
    """The matches of the conversations a pairs agent names — as ``run`` kept them in
    ``recordings.json``, or (an older study) read and matched alone now; None for an
    agent that reads its whole recording."""
    replay = agent.replay
    if replay is None or replay.pairs is None:
        return None
    entry = kept_entry(study_root, agent.id, replay.sha256, replay.pairs_sha256)
    if entry is not None:
        return [dict(s["match"]) for s in entry["simulations"] if isinstance(s, dict)]
    factory = RecordingAgentFactory(
        config.resolve(replay.path),
        replay.sha256,
        Selection(split=replay.split),
        data,
        config.resolve(replay.pairs),
        replay.pairs_sha256,
    )
    if not factory.reads_named_only():
        return None
    return [dict(r["match"]) for r in factory.named_rows()]  # type: ignore[call-overload]


def _replayed(
    section: Section,
    config: StudyConfig,
    data: Path | None,
    agent: AgentSettings,
    records: list[tuple[str, JsonObject]],
    sets: RunSets,
    study_root: Path,
) -> list[CsvRow]:
    """One replay agent: its source note, its conversations' matches (τ² recordings) and
    their divergences; returns its rows of ``recording_matches.csv``."""
    assert agent.replay is not None
    path = config.resolve(agent.replay.path)
    runs_by_recording: dict[str, list[str]] = defaultdict(list)
    for run_id, record in records:
        runs_by_recording[str(record.get("recording"))].append(run_id)
    source = f"{agent.id} replays {path.name}"
    if agent.replay.pairs:
        source += f", the exact pairs of {Path(agent.replay.pairs).name}"
    section.notes.append([{"t": source + "."}])
    if not recording_format(agent.replay.format).matches_tasks:
        return []
    try:
        named = _named_matches(study_root, config, data, agent)
        if named is None:
            _, matches = matched_runs(path, agent.replay.sha256, data, agent.replay.split)
        rows = named if named is not None else [m.row() for m in matches]
    except (OSError, ValueError, DataError) as exc:
        section.notes.append([{"t": f"{agent.id}: the recording cannot be read again ({exc})."}])
        return []
    table = _match_table(agent.id, rows, runs_by_recording, sets, named is not None)
    section.tables.append(table)
    note = _divergence_note(records)
    if note:
        section.notes.append([{"t": f"{agent.id}: {note}"}])
    return [{"config_id": agent.id, **row} for row in rows]
