"""Names for JSON data that crosses a seam: τ-bench records, tool arguments and results,
lines of the study files.

One home for them, at the bottom of the house, so that every package says "a JSON
object" the same way and mypy checks what is read out of one (a value must be narrowed
before it is used as a string, a number, a list or an object) instead of ``Any``
letting any use through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import JsonValue

__all__ = ["JsonArray", "JsonMapping", "JsonObject", "JsonValue"]

JsonObject = dict[str, JsonValue]
"""A JSON object made or owned here (mutable)."""

JsonMapping = Mapping[str, JsonValue]
"""A JSON object only read (accepts any mapping whose values are JSON)."""

JsonArray = Sequence[JsonValue]
"""A JSON array only read."""
