"""τ-bench's state hash, reproduced exactly and made incremental.

τ-bench hashes a database as ``sha256(str(to_hashable(data)))``. ``str`` of a tuple is
the ``repr`` of its elements joined by ``", "`` inside parentheses, so the hash of a
database whose tables are dicts can be streamed from one cached text piece per record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any


def to_hashable(item: object) -> object:
    """Turn JSON-like data into nested tuples with dict keys sorted, as τ-bench does."""
    if isinstance(item, dict):
        return tuple((key, to_hashable(value)) for key, value in sorted(item.items()))
    if isinstance(item, list):
        return tuple(to_hashable(element) for element in item)
    if isinstance(item, set):
        # a set's elements are hashable and, as in τ-bench, must compare with each other
        elements: list[Any] = [to_hashable(element) for element in item]
        return tuple(sorted(elements))
    return item


def consistent_hash(value: object) -> str:
    """sha256 hex digest of ``str(value)``: τ-bench's ``consistent_hash``."""
    return hashlib.sha256(str(value).encode("utf-8")).hexdigest()


def data_hash(data: Mapping[str, object]) -> str:
    """The reference hash of a whole database: ``consistent_hash(to_hashable(data))``."""
    return consistent_hash(to_hashable(data))


def record_piece(key: str, record: object) -> str:
    """The text that one ``(key, record)`` pair contributes to the database's hash input."""
    return repr((key, to_hashable(record)))


def tuple_text(pieces: Iterable[str]) -> str:
    """``repr`` of a tuple whose elements have the given reprs (one element keeps its comma)."""
    items = list(pieces)
    if len(items) == 1:
        return "(" + items[0] + ",)"
    return "(" + ", ".join(items) + ")"
