"""Records in observations and states, for the ``invariants`` oracle: leaf paths, which
records an observation shows, and a clean run's final state by replay."""

from __future__ import annotations

from collections.abc import Iterator

from sscbench.core.arguments import parse_arguments
from sscbench.core.ledger import LedgerEvent
from sscbench.core.view import CallView, LedgerView
from sscbench.world.state import WorldState
from sscbench.world.world import World

Path = tuple[str | int, ...]
RecordKey = tuple[str, str]  # (table, key)


def leaves(value: object, prefix: Path = ()) -> Iterator[tuple[Path, object]]:
    """Every leaf of a JSON value with its path (dict keys and list indices)."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from leaves(item, (*prefix, key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from leaves(item, (*prefix, index))
    else:
        yield prefix, value


def path_text(path: Path) -> str:
    """A path as ``flights.1.date``."""
    return ".".join(str(p) for p in path)


def replay_final_state(world: World, ledger: list[LedgerEvent]) -> WorldState | None:
    """The state a clean run ended in, by replaying its tool calls in a fresh env; None
    when an observation of the replay differs from the one the ledger recorded."""
    env = world.new_env()
    for call in LedgerView(ledger).calls:
        if call.observation is None:
            continue
        arguments, error = parse_arguments(call.raw_arguments)
        observation = error if error is not None else env.execute(call.name, arguments).observation
        if observation != call.observation:
            return None
    return env.state


def observed_records(call: CallView, states: list[WorldState]) -> list[RecordKey]:
    """The records one observation shows: a JSON object with the same field names as a
    version (initial or clean final) of a record named by a string argument of the call or by one of its own ``*_id`` fields."""
    data = call.data
    if not isinstance(data, dict) or not states:
        return []
    names: set[str] = set()
    if isinstance(call.arguments, dict):
        names.update(v for v in call.arguments.values() if isinstance(v, str))
    names.update(v for k, v in data.items() if k.endswith("_id") and isinstance(v, str))
    found = []
    for table in states[0].base.table_names():
        for key in sorted(names):
            versions = [states[0].base.tables[table].get(key)]
            versions += [s.get(table, key) for s in states]
            if any(isinstance(r, dict) and set(r) == set(data) for r in versions):
                found.append((table, key))
    return found
