"""World state: a shared read-only base database with a copy-on-write overlay per env.

Every env of a world shares one parsed base; the records an env changes live in its
own overlay, so reset is clearing a dict (no file is re-read or re-parsed), and
nothing one env writes is visible to another. The hash equals τ-bench's for the same
data and is streamed from cached per-record text pieces.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterator, Mapping
from typing import Any, Generic, TypeVar, cast, overload

from sscbench.world.hashing import record_piece, tuple_text
from sscbench.world.jsoncopy import json_copy


class _Deleted(enum.Enum):
    DELETED = 0


_DELETED = _Deleted.DELETED

Record = Mapping[str, object]
"""A record as the state holds it: a JSON object (a TypedDict of its table's shape)."""
_Slot = Record | _Deleted
Snapshot = dict[str, dict[str, _Slot]]
"""An env's overlay as :meth:`WorldState.snapshot` copies it: the changed records by table
(a deleted record marked), to hand back to :meth:`WorldState.restore`."""
R = TypeVar("R", bound=Mapping[str, object])
R_co = TypeVar("R_co", bound=Mapping[str, object], covariant=True)


class Table(Generic[R_co]):
    """A typed handle of one table: ``db.get(ORDERS, oid)`` is an ``Order`` to mypy.

    The domains declare one per table next to the record's TypedDict
    (``world/retail/tables.py``, ``world/airline/tables.py``); the records are the
    plain dicts read from the data, whose shapes ``tests/world`` validates.
    """

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"Table({self.name!r})"


def _name(table: Table[Record] | str) -> str:
    return table.name if isinstance(table, Table) else table


class BaseData:
    """The parsed, never-mutated initial database of a world, shared by all its envs."""

    # Any: the agents, faults and oracles read base records of every domain by table
    # name; the tools read them through typed :class:`Table` handles.
    def __init__(self, tables: dict[str, dict[str, Any]]):
        for name, table in tables.items():
            if not isinstance(table, dict):
                raise TypeError(f"table {name!r} must be a JSON object keyed by id")
        self.tables = tables
        self._pieces: dict[str, dict[str, str]] = {name: {} for name in tables}
        self._hash: str | None = None

    def piece(self, table: str, key: str) -> str:
        """Cached hash-input text of one base record."""
        cache = self._pieces[table]
        text = cache.get(key)
        if text is None:
            text = cache[key] = record_piece(key, self.tables[table][key])
        return text

    def table_names(self) -> list[str]:
        """Names of the tables, in file order."""
        return list(self.tables)

    def initial_hash(self) -> str:
        """τ-bench hash of the unmodified base (computed once)."""
        if self._hash is None:
            self._hash = WorldState(self).db_hash()
        return self._hash


class TableView(Mapping[str, R]):
    """Read-only view of one table as an env sees it: base records with the overlay applied.

    Iteration follows dict semantics: base keys in file order (replaced records keep
    their place, deleted ones vanish), then inserted keys in insertion order.
    """

    def __init__(self, state: WorldState, name: str):
        self._state = state
        self._name = name
        self._base = state.base.tables[name]
        self._over = state._overlay[name]

    def __getitem__(self, key: str) -> R:
        value = self._over.get(key, None) if self._over else None
        if value is None:
            value = self._over[key] if self._over and key in self._over else self._base[key]
        if value is _DELETED:
            raise KeyError(key)
        return cast(R, value)  # the table's handle names the shape tests/world validates

    def __contains__(self, key: object) -> bool:
        if self._over and key in self._over:
            return self._over[key] is not _DELETED
        return key in self._base

    def __iter__(self) -> Iterator[str]:
        over = self._over
        if not over:
            yield from self._base
            return
        for key in self._base:
            if over.get(key, None) is not _DELETED:
                yield key
        for key, value in over.items():
            if key not in self._base and value is not _DELETED:
                yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)


class WorldState:
    """One env's database: the shared base plus this env's copy-on-write overlay.

    Tools read records with :meth:`get` or :meth:`table` and never mutate what those
    return; they change a record by mutating the copy returned by :meth:`edit`, and
    add one with :meth:`insert`. Given a :class:`Table` handle they return the record
    under its table's shape; given a table's name, untyped (callers that read records
    of any domain narrow what they read).
    """

    def __init__(self, base: BaseData):
        self.base = base
        self._overlay: dict[str, dict[str, _Slot]] = {name: {} for name in base.tables}

    # ---- reading -------------------------------------------------------------------
    @overload
    def table(self, name: Table[R]) -> TableView[R]: ...
    @overload
    def table(self, name: str) -> TableView[Any]: ...
    def table(self, name: Table[Record] | str) -> TableView[Any]:
        """Read-only mapping view of a table."""
        return TableView(self, _name(name))

    @overload
    def get(self, table: Table[R], key: str, default: None = None) -> R | None: ...
    @overload
    def get(self, table: str, key: str, default: object = None) -> Any: ...
    def get(self, table: Table[Record] | str, key: str, default: object = None) -> object:
        """A record (read-only) or ``default`` when absent."""
        name = _name(table)
        over = self._overlay[name]
        if key in over:
            value = over[key]
            return default if value is _DELETED else value
        return self.base.tables[name].get(key, default)

    # ---- writing -------------------------------------------------------------------
    @overload
    def edit(self, table: Table[R], key: str) -> R: ...
    @overload
    def edit(self, table: str, key: str) -> Any: ...
    def edit(self, table: Table[Record] | str, key: str) -> object:
        """A mutable copy of a record, owned by this env; raises KeyError when absent."""
        name = _name(table)
        over = self._overlay[name]
        if key in over:
            value = over[key]
            if value is _DELETED:
                raise KeyError(key)
            return value
        copy = over[key] = json_copy(self.base.tables[name][key])
        return copy

    @overload
    def insert(self, table: Table[R], key: str, record: R) -> None: ...
    @overload
    def insert(self, table: str, key: str, record: Record) -> None: ...
    def insert(self, table: Table[Record] | str, key: str, record: Record) -> None:
        """Add or replace a whole record."""
        self._overlay[_name(table)][key] = record

    def delete(self, table: str, key: str) -> None:
        """Remove a record."""
        self._overlay[table][key] = _DELETED

    # ---- lifecycle -----------------------------------------------------------------
    def reset(self) -> None:
        """Back to the initial state: drop the overlay."""
        for over in self._overlay.values():
            over.clear()

    def snapshot(self) -> Snapshot:
        """A deep copy of the overlay, to restore later with :meth:`restore`."""
        return {
            t: {k: (v if v is _DELETED else json_copy(v)) for k, v in o.items()}
            for t, o in self._overlay.items()
        }

    def restore(self, snapshot: Snapshot) -> None:
        """Return to a state taken by :meth:`snapshot`."""
        self._overlay = {
            t: {k: (v if v is _DELETED else json_copy(v)) for k, v in o.items()}
            for t, o in snapshot.items()
        }

    def to_dict(self) -> dict[str, dict[str, Record]]:
        """The full database as plain dicts (a copy of changed records; base records shared)."""
        return {name: {k: self.table(name)[k] for k in self.table(name)} for name in self._overlay}

    # ---- comparing and hashing -----------------------------------------------------
    def changes(self) -> dict[tuple[str, str], str | None]:
        """Every record that differs from the base: its hash-input text, or None if deleted.

        Two states over the same base have equal τ-bench hashes exactly when their
        ``changes()`` are equal, which makes comparing states cost only the changes.
        """
        out: dict[tuple[str, str], str | None] = {}
        for name, over in self._overlay.items():
            base = self.base.tables[name]
            for key, value in over.items():
                if value is _DELETED:
                    if key in base:
                        out[(name, key)] = None
                    continue
                piece = record_piece(key, value)
                if key in base and piece == self.base.piece(name, key):
                    continue
                out[(name, key)] = piece
        return out

    def db_hash(self) -> str:
        """τ-bench's ``sha256(str(to_hashable(data)))`` of this state."""
        h = hashlib.sha256()
        tables = sorted(self._overlay)
        h.update(b"(")
        for i, name in enumerate(tables):
            over = self._overlay[name]
            pieces = []
            for key in sorted(self.table(name)):
                if key in over:
                    pieces.append(record_piece(key, over[key]))
                else:
                    pieces.append(self.base.piece(name, key))
            text = "(" + repr(name) + ", " + tuple_text(pieces) + ")"
            if i:
                text = ", " + text
            h.update(text.encode("utf-8"))
        h.update(b",)" if len(tables) == 1 else b")")
        return h.hexdigest()
