"""Cross-record invariants of the ``invariants`` oracle: values that always agree across
tables.

A node of a record (a dict anywhere inside it) that carries two id fields — e.g. an
order item's ``product_id`` and ``item_id`` — references a node of another table's
record: the record named by one id (``products[product_id]``) holds a dict keyed by
the other id (``variants[item_id]``). Leaves the two nodes share (``options.color``,
``price``) form a *relation*: (table, node path with list indices as ``*``, the two id
fields, the other table, the leaf). A relation is an invariant when every instance of
it agrees in the initial state and in every clean final state; an observation showing
a node whose leaf differs from the referenced node's value contradicts it.
"""

from __future__ import annotations

from collections.abc import Iterator

from sscbench.oracles.records import Path, leaves
from sscbench.world.state import WorldState

Relation = tuple[
    str, Path, str, str, str, Path
]  # table, node pattern, ref id, key id, table2, leaf


def _ids(node: dict[str, object]) -> dict[str, str]:
    """A node's string ``*_id`` fields, in its key order."""
    return {k: v for k, v in node.items() if k.endswith("_id") and isinstance(v, str)}


def _id_nodes(value: object, prefix: Path = ()) -> Iterator[tuple[Path, dict[str, object]]]:
    """Dict nodes with at least two string ``*_id`` fields, with their paths."""
    if isinstance(value, dict):
        if len(_ids(value)) >= 2:
            yield prefix, value
        for key, item in value.items():
            yield from _id_nodes(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _id_nodes(item, (*prefix, index))


def _keyed(value: object, key: str, depth: int = 3) -> object:
    """A dict entry keyed ``key`` anywhere within ``depth`` levels of ``value``."""
    if not isinstance(value, dict) or depth < 0:
        return None
    if isinstance(value.get(key), dict):
        return value[key]
    for item in value.values():
        found = _keyed(item, key, depth - 1)
        if found is not None:
            return found
    return None


def pattern(path: Path) -> Path:
    """A node path with list indices replaced by ``*``."""
    return tuple("*" if isinstance(p, int) else p for p in path)


def instances(
    table: str, record: object, state: WorldState
) -> Iterator[tuple[Relation, Path, object, object]]:
    """Every relation instance in one record: (relation, leaf path in the record, the
    record's value, the referenced value)."""
    tables = [t for t in state.base.table_names() if t != table]
    for path, node in _id_nodes(record):
        ids = _ids(node)
        for ref in ids:
            for other in tables:
                target = state.get(other, ids[ref])
                if not isinstance(target, dict):
                    continue
                for key in ids:
                    if key == ref:
                        continue
                    referenced = _keyed(target, ids[key])
                    if referenced is None:
                        continue
                    theirs = dict(leaves(referenced))
                    for leaf, value in leaves(node):
                        if leaf and leaf[0] not in ids and leaf in theirs:
                            relation = (table, pattern(path), ref, key, other, leaf)
                            yield relation, (*path, *leaf), value, theirs[leaf]


def mine_relations(table: str, key: str, states: list[WorldState]) -> set[Relation]:
    """Relations of one record that agree in every instance of every given state."""
    agree: set[Relation] = set()
    broken: set[Relation] = set()
    for state in states:
        record = state.get(table, key)
        for relation, _, mine, theirs in instances(table, record, state):
            (agree if mine == theirs else broken).add(relation)
    return agree - broken
