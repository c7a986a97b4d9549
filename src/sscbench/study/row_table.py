"""Per-run records held column-wise: a table of codes, one small array per column.

A reader that keeps one record per run (the report's measurement rows) would hold tens
of thousands of pydantic objects, each with its own dict of ~30 slots (~1.4 KB a run
even with the repeated words shared, :mod:`sscbench.study.compact`). :class:`RowTable`
keeps each column as an ``array`` of codes (1, 2 or 4 bytes a run: as wide as the
column's count of distinct values needs) into the column's distinct
values, and each row's shape (which fields it set, which extra keys it has, in order)
as one more code. What grows with the runs is then a few bytes a column plus the
values that really differ from run to run (run ids).

Reading a row gives a :class:`RowView` (two slots): its attributes are read from the
columns, and so are its ``model_fields_set`` and the model's ``VIEW_METHODS`` (methods
that read only those: ``MeasurementRow.has``, ``unread_count``), run on the view itself;
any other attribute or method (``columns``, ``line``, ``model_dump`` ...) is the one of
the record rebuilt from the columns on demand, equal to the record that was added (same
values, same fields set, same JSON), and not kept. A list of views costs ~70 bytes a run.

Values are shared by their JSON form and type (``0``, ``0.0`` and ``False`` stay
apart), so a rebuilt record writes the same line as the one that was added.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Hashable, Iterable, Iterator, Sequence
from enum import Enum
from types import MethodType
from typing import Any, Generic, TypeVar, cast, overload

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)

ABSENT = 0
"""The code of an extra column a row does not have (a declared field is always set in a
record's ``__dict__``, to its value or its default)."""


class _Column:
    """One column: a code per row into the column's distinct values (code 0: absent)."""

    __slots__ = ("_index", "codes", "values")

    def __init__(self, rows: int) -> None:
        self.codes = array("B", bytes(rows))  # rows added before the column existed
        self.values: list[object] = [None]  # code 0: absent
        self._index: dict[Hashable, int] | None = {}

    def add(self, value: object) -> None:
        """Append ``value``'s code (a new code when the column has not seen it)."""
        key = _key(value)
        index = self._index
        assert index is not None, "a frozen table takes no more rows"
        code = index.get(key) if key is not None else None
        if code is None:
            code = len(self.values)
            self.values.append(value)
            if key is not None:
                index[key] = code
            if code >= 1 << (8 * self.codes.itemsize):  # a wider code: 1, 2, then 4 bytes
                self.codes = array("H" if code < 1 << 16 else "I", self.codes)
        self.codes.append(code)

    def freeze(self) -> None:
        """Drop the look-up of values (only reading is left)."""
        self._index = None


def _key(value: object) -> Hashable | None:
    """What makes two values one shared value: equal JSON and types (None: not shared).
    An enum member is never one with its plain value (``Stratum.CLEAN`` is not
    ``"clean"``); a model or a list of them is shared by its type and JSON."""
    if type(value) is str:
        return value
    if value is None or type(value) in (bool, int):
        return (type(value), value)
    if type(value) is float:
        return (float, repr(value))  # -0.0 and nan kept as they are
    if isinstance(value, Enum):
        return (type(value), value.value)
    if isinstance(value, BaseModel):
        return (type(value), value.model_dump_json())
    if isinstance(value, list | tuple) and type(value) in (list, tuple):
        keys = tuple(_key(item) for item in value)
        return None if any(k is None for k in keys) else (type(value), keys)
    try:
        return (type(value), json.dumps(value))
    except (TypeError, ValueError):  # not JSON (a model, an object): kept as it is
        return None


class RowTable(Sequence[Model], Generic[Model]):
    """Records of one pydantic model held column-wise (see the module); a sequence of
    :class:`RowView` read as the records themselves."""

    def __init__(self, model: type[Model], rows: Iterable[Model] = ()) -> None:
        self.model = model
        # the declared fields and their defaults, read once: pydantic's ``model_fields``
        # is a property that built its answer anew on each of millions of reads
        self._defaults = {name: f.default for name, f in model.model_fields.items()}
        # methods a view runs itself, reading only its fields and ``model_fields_set``
        # (the model's ``VIEW_METHODS``), instead of rebuilding the record for the call
        self._methods = {name: getattr(model, name) for name in getattr(model, "VIEW_METHODS", ())}
        self._columns: dict[str, _Column] = {}
        self._shapes: list[tuple[frozenset[str], tuple[str, ...]]] = []
        self._shape_codes: dict[tuple[frozenset[str], tuple[str, ...]], int] = {}
        self._row_shapes = array("I")
        self._length = 0
        for row in rows:
            self.append(row)
        self.freeze()

    def append(self, row: Model) -> None:
        """Add one record (its values, the fields it set and its extra keys)."""
        extra = row.__pydantic_extra__ or {}
        values = {**row.__dict__, **extra}
        shape = (frozenset(row.model_fields_set), tuple(extra))
        self._row_shapes.append(self._shape_codes.setdefault(shape, len(self._shapes)))
        if len(self._shapes) < len(self._shape_codes):
            self._shapes.append(shape)
        for name, value in values.items():
            column = self._columns.get(name)
            if column is None:
                column = self._columns[name] = _Column(self._length)
            column.add(value)
        self._length += 1
        for column in self._columns.values():
            if len(column.codes) < self._length:  # an extra key this row does not have
                column.codes.append(ABSENT)

    def freeze(self) -> None:
        """Drop the look-ups used while adding (the table is read from now on)."""
        for column in self._columns.values():
            column.freeze()
        self._shape_codes = {}

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Model: ...

    @overload
    def __getitem__(self, index: slice) -> list[Model]: ...

    def __getitem__(self, index: int | slice) -> Model | list[Model]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return cast(Model, RowView(self, index))

    def __iter__(self) -> Iterator[Model]:
        for index in range(self._length):
            yield cast(Model, RowView(self, index))

    def value(self, index: int, name: str) -> object:
        """Row ``index``'s value of ``name`` (AttributeError: the row has no such key)."""
        column = self._columns.get(name)
        code = column.codes[index] if column is not None else ABSENT
        if code == ABSENT:
            if name in self._defaults:
                return self._defaults[name]
            raise AttributeError(name)
        return column.values[code]  # type: ignore[union-attr]

    def record(self, index: int) -> Model:
        """Row ``index`` rebuilt as a record, equal to the one added."""
        fields_set, extra = self._shapes[self._row_shapes[index]]
        # every declared field from its column (a row keeps its unset fields' values too:
        # a required field left out of a partial row is None there, never missing)
        declared = {name: self.value(index, name) for name in self._defaults}
        out = self.model.model_construct(_fields_set=set(fields_set), **declared)
        if extra:
            object.__setattr__(
                out, "__pydantic_extra__", {name: self.value(index, name) for name in extra}
            )
        return out


class RowView:
    """One row of a :class:`RowTable`, read as its record (see the module)."""

    __slots__ = ("_index", "_table")

    def __init__(self, table: RowTable[Any], index: int) -> None:
        self._table = table
        self._index = index

    def __getattr__(self, name: str) -> object:
        table = self._table
        column = table._columns.get(name)  # the hot path (millions of reads): inlined
        if column is not None:
            code = column.codes[self._index]
            if code != ABSENT:
                return column.values[code]
        if name in table._defaults or column is not None:
            return table.value(self._index, name)
        if name in table._methods:
            return MethodType(table._methods[name], self)
        if name == "model_fields_set":
            return set(table._shapes[table._row_shapes[self._index]][0])
        return getattr(table.record(self._index), name)

    def __setattr__(self, name: str, value: object) -> None:
        if name in RowView.__slots__:
            object.__setattr__(self, name, value)
            return
        raise AttributeError(f"a table's row is read, not updated ({name})")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RowView):
            if other._table is self._table:
                return other._index == self._index
            other = other._table.record(other._index)
        return bool(self._table.record(self._index) == other)

    __hash__ = None  # type: ignore[assignment]  # as a pydantic record: not hashable

    def __repr__(self) -> str:
        return repr(self._table.record(self._index))


__all__ = ["RowTable", "RowView"]
