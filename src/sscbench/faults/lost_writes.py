"""Hooks for a write the store loses while the agent is told it succeeded.

The write really runs, and is then rolled back (``suppress_write``): nothing is
committed, so the world's final state shows the loss. What the agent is told differs
by family — the real receipt (a corrupted effect receipt), the receipt with its
decisive field omitted (a partial payload) — and, for the verifier that drinks from
the same well, the read-backs of the record are served from the same corrupted source
(the state as the lost write would have left it) instead of the authoritative store.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from sscbench.core.injection import Injection, RewriteHook, SuppressHook
from sscbench.faults.case import Case
from sscbench.faults.hooks import HookTag, hook_id
from sscbench.faults.write_family import Burst, matches_write, write_params
from sscbench.reading import loads_json
from sscbench.world.records import READ_TOOLS, reads_booked_record
from sscbench.world.state import Snapshot, WorldState
from sscbench.world.world import World

Receipt = Callable[[str], str | None]
"""Turns the real receipt of the lost write into the one delivered (None: the real one)."""


class SharedSource:
    """The corrupted source a lost write leaves behind: the state as the write would have
    left it, captured before the rollback (None until the write was lost)."""

    def __init__(self) -> None:
        self.snapshot: Snapshot | None = None


def lost_write_hook(
    case: Case, seed: int, tag: HookTag, receipt: Receipt, shared: SharedSource | None = None
) -> Injection:
    """The target write runs and is rolled back; its receipt is ``receipt(real)``.

    Fires for one burst of matched calls (``probability``, ``burst``, seeded); a call the
    tool refuses commits nothing, and its refusal is delivered unchanged.
    """
    burst = Burst(case.params, seed)
    is_target = matches_write(case)

    def match(name: str, arguments: object, state: WorldState) -> bool:
        return is_target(name, arguments, state) and burst.fire()

    def rewrite(observation: str, _arguments: object, state: WorldState) -> str | None:
        if observation.startswith("Error"):
            return None
        if shared is not None:
            shared.snapshot = state.snapshot()
        return receipt(observation)

    return SuppressHook(hook_id(case.case_id, tag), match=match, rewrite=rewrite, persistent=True)


def same_source_readback_hook(case: Case, world: World, shared: SharedSource) -> Injection:
    """Reads of the lost write's record answered from the corrupted source: the read tool
    runs on the state the lost write would have left, so the read-back agrees with the
    receipt. The authoritative state is restored after each read."""
    kind, rid = write_params(case).record
    read = READ_TOOLS[kind]
    write = write_params(case).tool

    def match(name: str, arguments: object, _state: WorldState) -> bool:
        if shared.snapshot is None or not isinstance(arguments, dict):
            return False
        return (name == read.tool and arguments.get(read.id_argument) == rid) or (
            reads_booked_record(write, name)
        )

    def rewrite(observation: str, arguments: object, state: WorldState) -> str | None:
        assert shared.snapshot is not None
        if not isinstance(arguments, dict):  # the matcher only takes call arguments
            return None
        authoritative = state.snapshot()
        state.restore(shared.snapshot)
        try:
            answer = world.tools.specs[read.tool].func(state, **arguments)
        except Exception as exc:  # as τ-bench reports a tool's exception
            answer = f"Error: {exc}"
        finally:
            state.restore(authoritative)
        return str(answer)

    return RewriteHook(
        hook_id(case.case_id, HookTag.SAME_SOURCE), match=match, rewrite=rewrite, persistent=True
    )


def omit_field(observation: str, field: str) -> str | None:
    """The receipt with ``field`` left out, still a valid JSON record (None when the
    receipt is not a JSON object holding that field)."""
    try:
        record = loads_json(observation, max_depth=None)
    except ValueError:
        return None
    if not isinstance(record, dict) or field not in record:
        return None
    return json.dumps({k: v for k, v in record.items() if k != field})
