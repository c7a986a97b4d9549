"""Build the real-text development corpus (``tests/data/realtext/``) into a study folder.

The corpus is a list of faulted runs. Each names an admitted case (pinned in
``cases.jsonl``), a recording by ``(task_id, trial)`` — τ-bench's gpt-4o airline runs in
``historical_trajectories/gpt-4o-airline.json``, or the hand-written retail runs in
``retail-recordings.json`` — and a list of small edits to that recording. The edited
recording is replayed whole (every assistant and user turn, :class:`ReplayAgent` /
:class:`ReplayUser`) against the case's faulted env through ``run_episode``: the
injection fires at the one tool-execution point when the recorded call reaches it.
The result is an ordinary study folder (``cases.jsonl``, ``index.jsonl``,
``runs/*.ledger.jsonl``, ``runs/*.evaluator.jsonl``) that ``sscbench measure`` and
``sscbench agreement`` read; ``labels.jsonl`` holds the hand labels.

Edits (``turn`` = index among the recording's assistant messages, 0-based, counted in
the original recording; several edits apply together):

* ``{"op": "text", "turn": k, "content": "..."}`` — replace the turn's text (or
  ``"replace": [[old, new], ...]`` — substitute within the recorded text);
* ``{"op": "args", "turn": k, "call": 0, "arguments": {...}}`` — replace a call's arguments;
* ``{"op": "insert", "before": k, "content": ..., "tool_calls": [{"name", "arguments"}],
  "user_reply": "..."}`` — insert a new assistant turn before turn k (``before`` equal
  to the number of turns appends); a text turn needs ``user_reply``;
* ``{"op": "delete", "turn": k}`` — drop turn k (with its tool messages, or with the
  user reply that followed it);
* ``{"op": "user", "turn": k, "content": "..."}`` — replace the user reply that follows
  text turn k (``turn: -1`` is the opening user message).

Usage: ``python tests/realtext_corpus.py --out DIR [--data ../shared/tau-bench]``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from sscbench.agents.replay import (
    RecordedMessage,
    RecordedRun,
    ReplayAgent,
    ReplayUser,
    load_trajectories,
)
from sscbench.core.ledger import RunStart
from sscbench.faults.registry import get_operator
from sscbench.run.builders import read_cases
from sscbench.run.episode import run_episode
from sscbench.run.storage import IndexEntry, StudyDir
from sscbench.world.load import load_world

HERE = Path(__file__).resolve().parent / "data" / "realtext"
AIRLINE_RECORDING = "historical_trajectories/gpt-4o-airline.json"
CONFIG_ID = "gpt-4o-replay"


def _messages(run: RecordedRun) -> list[dict[str, Any]]:
    return [m.model_dump(exclude_none=True) for m in run.traj]


def _turn_groups(messages: list[dict[str, Any]]) -> tuple[list[dict], list[list[dict]]]:
    """Split a trajectory into its head (system, opening user) and one group per assistant turn.

    A group is the assistant message with what follows it up to the next assistant
    message (its tool messages, or the user reply).
    """
    head: list[dict] = []
    groups: list[list[dict]] = []
    for message in messages:
        if message["role"] == "assistant":
            groups.append([message])
        elif groups:
            groups[-1].append(message)
        else:
            head.append(message)
    return head, groups


def _new_turn(edit: dict[str, Any], number: int) -> list[dict]:
    calls = [
        {
            "id": f"edit_call_{number}_{i}",
            "type": "function",
            "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
        }
        for i, c in enumerate(edit.get("tool_calls") or [])
    ]
    message: dict[str, Any] = {"role": "assistant", "content": edit.get("content")}
    if calls:
        message["tool_calls"] = calls
        return [
            message,
            *(
                {
                    "role": "tool",
                    "tool_call_id": c["id"],
                    "name": c["function"]["name"],
                    "content": "(replayed)",
                }
                for c in calls
            ),
        ]
    if "user_reply" not in edit:
        raise ValueError(f"insert before turn {edit['before']}: a text turn needs 'user_reply'")
    return [message, {"role": "user", "content": edit["user_reply"]}]


def _edited_text(text: str | None, edit: dict[str, Any], number: int) -> str:
    """A turn's new text: ``content`` outright, or ``replace`` pairs applied to the recorded text."""
    if "content" in edit:
        return edit["content"]
    text = text or ""
    for old, new in edit["replace"]:
        if old not in text:
            raise ValueError(f"edit {number}: {old!r} is not in turn {edit['turn']}'s text")
        text = text.replace(old, new)
    return text


def apply_edits(run: RecordedRun, edits: list[dict[str, Any]]) -> RecordedRun:
    """The recording with the corpus edits applied (turn numbers of the original)."""
    head, groups = _turn_groups(_messages(run))
    inserts: dict[int, list[list[dict]]] = {}
    deleted: set[int] = set()
    for number, edit in enumerate(edits):
        op = edit["op"]
        if op == "insert":
            inserts.setdefault(edit["before"], []).append(_new_turn(edit, number))
            continue
        turn = edit["turn"]
        if op == "user" and turn == -1:
            opening = [m for m in head if m["role"] == "user"]
            opening[0]["content"] = edit["content"]
            continue
        if not 0 <= turn < len(groups):
            raise ValueError(f"edit {number}: turn {turn} out of range ({len(groups)} turns)")
        group = groups[turn]
        if op == "text":
            group[0]["content"] = _edited_text(group[0].get("content"), edit, number)
        elif op == "args":
            call = group[0]["tool_calls"][edit.get("call", 0)]
            call["function"]["arguments"] = json.dumps(edit["arguments"])
        elif op == "delete":
            deleted.add(turn)
        elif op == "user":
            replies = [m for m in group if m["role"] == "user"]
            if not replies:
                raise ValueError(f"edit {number}: turn {turn} has no user reply")
            replies[0]["content"] = edit["content"]
        else:
            raise ValueError(f"edit {number}: unknown op {op!r}")
    out = list(head)
    for index in range(len(groups) + 1):
        for group in inserts.get(index, []):
            out.extend(group)
        if index < len(groups) and index not in deleted:
            out.extend(groups[index])
    data = run.model_dump()
    data["traj"] = [RecordedMessage.model_validate(m).model_dump() for m in out]
    return RecordedRun.model_validate(data)


def load_spec(root: Path = HERE) -> dict[str, Any]:
    """The corpus spec: ``corpus.json`` (runs with their edits)."""
    return json.loads((root / "corpus.json").read_text("utf-8"))


def _recordings(data: Path, root: Path) -> dict[tuple[str, str, int], RecordedRun]:
    out: dict[tuple[str, str, int], RecordedRun] = {}
    for run in load_trajectories(data / AIRLINE_RECORDING):
        out[("airline", run.taubench_task_id(), int(run.trial or 0))] = run
    retail = root / "retail-recordings.json"
    if retail.exists():
        for run in load_trajectories(retail):
            out[("retail", run.taubench_task_id(), int(run.trial or 0))] = run
    return out


def build_corpus(out: str | Path, data: str | Path, root: Path = HERE) -> StudyDir:
    """Replay every corpus run against its faulted case and write the study folder ``out``."""
    out, data = Path(out), Path(data)
    spec = load_spec(root)
    cases = {c.case_id: c for c in read_cases(root / "cases.jsonl")}
    recordings = _recordings(data, root)
    worlds = {d: load_world("tau-bench", d, data, 0) for d in ("airline", "retail")}
    if out.exists():
        shutil.rmtree(out)
    store = StudyDir(out)
    spec_text = json.dumps(spec, sort_keys=True)
    store.initialize(
        hashlib.sha256(spec_text.encode()).hexdigest(),
        json.dumps({"corpus": "tests/data/realtext"}),
        "# real-text development corpus (tests/realtext_corpus.py)\n",
        list(cases.values()),
        ({"faulted_run_id": r["run_id"], "case_id": r["case_id"]} for r in spec["runs"]),
    )
    for number, item in enumerate(spec["runs"]):
        case = cases[item["case_id"]]
        world = worlds[case.domain]
        run = apply_edits(recordings[(case.domain, case.task_id, item["trial"])], item["edits"])
        operator = get_operator(case.operator)
        result = asyncio.run(
            run_episode(
                world,
                world.task(case.task_id),
                ReplayAgent(run),
                ReplayUser(run),
                system_prompt=world.policy,
                injections=operator.injections(case, world),
                max_steps=case.max_steps,
            )
        )
        assert result.end is not None
        start = RunStart(
            run_id=item["run_id"],
            case_id=case.case_id,
            config_id=CONFIG_ID,
            repetition=number,
            kind="faulted",
            world=world.name,
            task_id=case.task_id,
            max_steps=case.max_steps,
            seed=0,
        )
        digest, log_digest = store.write_run(
            item["run_id"], result.ledger, [start, *result.evaluator, result.end]
        )
        store.append_index(
            IndexEntry(
                run_id=item["run_id"],
                case_id=case.case_id,
                config_id=CONFIG_ID,
                repetition=number,
                kind="faulted",
                status=result.end.status,
                ledger_sha256=digest,
                evaluator_sha256=log_digest,
                reward=result.end.reward,
                triggered=result.end.triggered,
                termination=result.end.termination,
                agent_turns=result.end.agent_turns,
            )
        )
    return store


def show_ledger(store: StudyDir, run_id: str) -> str:
    """The model-visible ledger of one run as numbered steps (no measurement, no labels)."""
    lines = []
    for raw in store.ledger_lines(run_id)[1:]:
        event = json.loads(raw)
        text = event.get("content") or ""
        if event["type"] == "assistant" and event.get("tool_calls"):
            calls = "; ".join(f"{c['name']}({c['arguments']})" for c in event["tool_calls"])
            text = (text + " " if text else "") + f"CALL {calls}"
        if event["type"] == "tool":
            text = f"[{event['name']}] {text}"
        if event["type"] == "system":
            text = text[:60] + "..."
        lines.append(f"{event['step']:>3} {event['type']:<9} {text}")
    return "\n".join(lines)


def main() -> None:
    """Command line: build the corpus study folder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "tau-bench")
    )
    parser.add_argument("--show", nargs="*", help="print these runs' numbered ledgers (no build)")
    args = parser.parse_args()
    if args.show is not None:
        for run_id in args.show:
            print(f"=== {run_id}")
            print(show_ledger(StudyDir(args.out), run_id))
        return
    store = build_corpus(args.out, args.data)
    print(f"wrote {store.root}")


if __name__ == "__main__":
    main()
