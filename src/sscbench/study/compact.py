"""Compact copies of per-run records kept in memory (index entries, measurement rows).

A reader that keeps one record per run (the report's rows, ``Study.entries``) holds
tens of thousands of small pydantic objects whose words repeat from run to run: the
case, configuration, operator, stratum and status of a run, and the set of columns a
row has. :class:`Compactor` rebuilds each record with those repeated values shared:
one copy of each short string (the same value, so every comparison, hash and JSON
line is unchanged), one frozen set of field names per distinct shape, and one copy of
each distinct model nested in a record (a scripted run's zero usage). A record's
own unique words (its run id, hashes) are kept as they are, so the shared table grows
with the study's cases and configurations, not with its runs.

A compact record equals the one it was made from (``==``, ``model_dump``, the lines
written from it); its field set is frozen, so a record is read, never updated in place
(``model_copy(update=...)`` fails loudly on one instead of changing every row's shape).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)

SHARED_LENGTH = 120
"""Strings up to this length are shared (longer ones are prose: error texts, quotes)."""

UNIQUE_FIELDS = frozenset({"run_id", "faulted_run_id", "ledger_sha256", "evaluator_sha256"})
"""Fields whose value differs from run to run: kept, not added to the shared table."""


class Compactor:
    """Rebuilds pydantic records with shared strings and field sets (see the module)."""

    def __init__(self) -> None:
        self._strings: dict[str, str] = {}
        self._shapes: dict[frozenset[str], frozenset[str]] = {}
        self._models: dict[tuple[Any, ...], BaseModel] = {}

    def record(self, model: Model) -> Model:
        """A copy of ``model`` (and of the models inside it) with repeated values shared."""
        shape = frozenset(model.model_fields_set)
        values = {
            name: value if name in UNIQUE_FIELDS else self.value(value)
            for name, value in model.__dict__.items()
        }
        out = type(model).model_construct(
            _fields_set=self._shapes.setdefault(shape, shape),  # type: ignore[arg-type]
            **values,
        )
        extra = model.__pydantic_extra__
        if extra is not None:
            object.__setattr__(out, "__pydantic_extra__", self.value(extra))
        return out

    def value(self, value: Any) -> Any:
        """``value`` with its short strings shared, containers rebuilt alike."""
        if isinstance(value, str):
            # an enum member (a stratum, a stance) is one object already, and must stay
            # itself: an equal plain word shared first would take its place
            if type(value) is not str or len(value) > SHARED_LENGTH:
                return value
            return self._strings.setdefault(value, value)
        if isinstance(value, BaseModel):
            return self._shared(self.record(value))
        if isinstance(value, list):
            return [self.value(x) for x in value]
        if isinstance(value, tuple):
            return tuple(self.value(x) for x in value)
        if isinstance(value, dict):
            return {
                self.value(k): v if k in UNIQUE_FIELDS else self.value(v) for k, v in value.items()
            }
        return value

    def _shared(self, model: Model) -> Model:
        """One copy of each distinct model inside a record (a scripted run's zero usage is
        the same for every run); a model holding a list or dict is kept as it is."""
        try:
            key = (
                type(model),
                model.model_fields_set,
                # the type too: 0 and 0.0 (or 1 and True) are equal but not the same JSON
                *(
                    (k, type(v), id(v) if isinstance(v, BaseModel) else v)
                    for k, v in model.__dict__.items()
                ),
            )
            return self._models.setdefault(key, model)  # type: ignore[return-value]
        except TypeError:  # an unhashable value: not shared
            return model


__all__ = ["Compactor"]
