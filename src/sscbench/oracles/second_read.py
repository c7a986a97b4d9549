"""``sscbench second-read STUDY``: send the marked runs to the judge model, write
``second_reading.jsonl``.

Only completed faulted runs whose measurement row has ``unread > 0`` are sent, at most
``max_runs`` of them in index order (the rest are recorded as not sent, with that
reason); a row without ``unread`` was not checked and is never sent. Every marked run
gets one line: the proposals, or the abstention's reason — a failed call (a 401, an
outage after its retries), an unparsable answer, a case without a contract, an endpoint
that never answered (then the later runs are recorded as not sent, and the command
stops with :class:`~sscbench.errors.EndpointUnreachable` after writing the file).
The study is verified and locked; the measurement rows are read (checked against their
seal) and never written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sscbench.errors import DataError, EndpointUnreachable
from sscbench.llm.endpoint import EndpointConfig
from sscbench.oracles.base import OracleSettings
from sscbench.oracles.chat import CallFailed, ChatCaller
from sscbench.oracles.second_reader import PROMPT_SHA256, parse_second, second_messages
from sscbench.progress import progress
from sscbench.study.rows import MeasurementRow
from sscbench.study.seal import file_sha256
from sscbench.study.second_reading import (
    SECOND_READING,
    SecondReading,
    compare,
    is_marked,
    unread_of,
    unread_steps_of,
    write_second_reading,
)
from sscbench.study.study import Study


@dataclass
class SecondReadResult:
    """What one ``second-read`` did: the file, the runs it saw, and why any stopped."""

    path: Path
    readings: list[SecondReading]
    unchecked: int  # faulted rows without an unread count (not checked, never sent)
    calls: int = 0
    stopped: EndpointUnreachable | None = None
    standings: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def answered(self) -> int:
        """Marked runs the judge gave proposals for."""
        return sum(r.answered for r in self.readings)


def marked_rows(study: Study) -> tuple[list[MeasurementRow], int]:
    """The completed faulted rows marked unread, in index order, and how many faulted
    rows carry no unread count at all (not checked)."""
    rows = [r for r in study.measurements.values() if r.kind == "faulted"]
    rows = [r for r in rows if r.status == "completed"]
    unchecked = sum(unread_of(r) is None for r in rows)
    return [r for r in rows if is_marked(r)], unchecked


def _reading(
    row: MeasurementRow, endpoint: EndpointConfig, measured: str | None, **fields: object
) -> SecondReading:
    return SecondReading(
        run_id=row.run_id,
        model=endpoint.model,
        base_url=endpoint.base_url,
        prompt_sha256=PROMPT_SHA256,
        measured_from=measured,
        unread=unread_of(row) or 0,
        unread_steps=unread_steps_of(row),
        **fields,
    )


def read_one(
    study: Study, row: MeasurementRow, chat: ChatCaller, measured: str | None = None
) -> SecondReading:
    """One marked run's reading (``measured``: the sha256 of the measurements that marked
    it); EndpointUnreachable propagates (the study's stop)."""
    endpoint = chat.config
    case = study.cases.get(str(row.case_id))
    if case is None or case.contract is None:
        return _reading(row, endpoint, measured, abstention="the case has no fault contract")
    world = study.worlds.get(case.domain)
    ledger = study.ledger(row.run_id)
    messages = second_messages(
        ledger,
        world.tool_schemas() if world is not None else [],
        world.policy if world is not None else "",
        case.contract,
    )
    try:
        text = chat.ask(messages, f"second reading of {row.run_id}")
    except CallFailed as exc:
        return _reading(row, endpoint, measured, abstention=f"call failed: {exc}")
    try:
        proposals, reason = parse_second(text, ledger)
    except ValueError as exc:
        return _reading(
            row, endpoint, measured, abstention=f"unparsable answer: {chat.redact(str(exc))}"
        )
    return _reading(row, endpoint, measured, proposals=proposals, reason=chat.redact(reason)[:500])


def second_read(
    root: str | Path, endpoint: EndpointConfig | None, max_runs: int
) -> SecondReadResult:
    """Read the study's marked runs with the judge at ``endpoint`` and write
    ``STUDY/second_reading.jsonl`` (atomically); DataError when there is no judge model
    or no measurement."""
    from sscbench.study.lock import StudyLock
    from sscbench.study.verify import verify_study

    study = Study.require(root)
    if endpoint is None:
        raise DataError(
            "[second_reader]",
            "endpoint",
            "the study configures no judge model: add [oracles.endpoint] or "
            "[second_reader.endpoint] (base_url, model) to its config",
        )
    if not study.measurements_path.exists():
        raise DataError(study.measurements_path, None, "not measured yet: run sscbench measure")
    with StudyLock(study.root):
        verify_study(study.root, keep_entries=False)
        marked, unchecked = marked_rows(study)
        result = SecondReadResult(study.root / SECOND_READING, [], unchecked)
        _read_all(study, marked, endpoint, max_runs, result)
        write_second_reading(result.path, result.readings)
    result.standings = standings(result.readings, study.measurements)
    return result


def _read_all(
    study: Study,
    marked: list[MeasurementRow],
    endpoint: EndpointConfig,
    max_runs: int,
    result: SecondReadResult,
) -> None:
    """Read each marked run (within the bound) into ``result``; after an unreachable
    endpoint, the rest are recorded as not sent."""
    chat = ChatCaller(OracleSettings(endpoint=endpoint), "second-reader")
    measured = file_sha256(study.measurements_path)
    try:
        with progress("second reading", len(marked)) as bar:
            for index, row in enumerate(marked):
                bar.advance()
                if index >= max_runs:
                    why = f"not sent: beyond [second_reader] max_runs = {max_runs}"
                elif result.stopped is not None:
                    why = f"not sent: the endpoint is unreachable ({result.stopped.reason})"
                else:
                    try:
                        result.readings.append(read_one(study, row, chat, measured))
                        continue
                    except EndpointUnreachable as exc:
                        result.stopped = exc
                        why = f"call failed: the endpoint is unreachable ({exc.reason})"
                result.readings.append(_reading(row, endpoint, measured, abstention=why))
    finally:
        result.calls = chat.requests
        chat.close()


def standings(
    readings: list[SecondReading], rows: dict[str, MeasurementRow]
) -> dict[str, dict[str, int]]:
    """Per quantity, how many valid proposals agree with the rules, disagree, decide
    where the rules are undecided, and how many proposals are invalid."""
    out: dict[str, dict[str, int]] = {}
    for reading in readings:
        row = rows.get(reading.run_id)
        if row is None:
            continue
        for quantity, standing in compare(reading, row).items():
            counts = out.setdefault(quantity, {})
            counts[standing] = counts.get(standing, 0) + 1
    return out


__all__ = ["SecondReadResult", "marked_rows", "read_one", "second_read", "standings"]
