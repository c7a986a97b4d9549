"""A config's validation errors in plain words: every problem at once, one line each,
naming the field, with "did you mean" for a misspelt key.

pydantic reports all the problems of a TOML file in one ``ValidationError``; a user who
sees only the first fixes the file once per problem. :func:`config_problems` turns each
error into a line ``field study.repetitons: not a setting of [study]; did you mean
`repetitions`?``, the suggestion drawn (``difflib.get_close_matches``) from the field
names of the table the key was found in. Kept apart from ``config.py``'s field
definitions: it reads any pydantic model.
"""

from __future__ import annotations

import difflib
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from sscbench.errors import DataError


def field_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as the TOML reader writes it: ``agents[0].replay.path``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation may hold (``X``, ``X | None``, ``list[X]``,
    ``dict[str, X]``, ``Annotated[X, ...]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    out: list[type[BaseModel]] = []
    origin = typing.get_origin(annotation)
    if origin is not None or isinstance(annotation, types.UnionType):
        for arg in typing.get_args(annotation):
            out.extend(_models_in(arg))
    return out


def _table_model(model: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The model of the table that ``loc`` (less its last key) leads to, or ``None``."""
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None:
            return None
        if isinstance(part, int):
            continue  # a list index: the element's model is the list field's model
        fields = {f.alias or name: f for name, f in current.model_fields.items()}
        field = fields.get(str(part)) or current.model_fields.get(str(part))
        if field is None:
            return None
        found = _models_in(field.annotation)
        current = found[0] if len(found) == 1 else None
    return current


def _names(model: type[BaseModel]) -> list[str]:
    """The keys a table of ``model`` accepts (a field's alias where it has one)."""
    return [field.alias or name for name, field in model.model_fields.items()]


def _problem(model: type[BaseModel], error: ErrorDetails) -> tuple[str | None, str]:
    """One pydantic error as (field, plain message)."""
    loc = tuple(error["loc"])
    field = field_path(loc) or None
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden" and loc:
        table = _table_model(model, loc[:-1])
        where = field_path(loc[:-1])
        table_name = f"[{where}]" if "[" not in where else f"`{where}`"
        message = f"not a setting of {table_name}" if where else "not a table of a study config"
        if table is not None:
            close = difflib.get_close_matches(str(loc[-1]), _names(table), n=1, cutoff=0.6)
            if close:
                message += f"; did you mean `{close[0]}`?"
    elif error["type"] == "missing":
        message = "required, but not given"
    elif isinstance(error.get("input"), str | int | float | bool):
        message += f" (the file says {error['input']!r})"
    return field, message


def config_problems(model: type[BaseModel], exc: ValidationError) -> list[tuple[str | None, str]]:
    """Every problem of ``exc`` as (field, plain message), in the order pydantic found them."""
    return [_problem(model, error) for error in exc.errors()]


def config_error(path: str | Path, model: type[BaseModel], exc: ValidationError) -> DataError:
    """The ``DataError`` of a config that failed validation: one problem reads as before
    (``FILE, field F: why``); several are listed one line each under the file's name."""
    problems = config_problems(model, exc)
    if len(problems) == 1:
        field, message = problems[0]
        return DataError(path, field, message)
    lines = [f"  field {field}: {why}" if field else f"  {why}" for field, why in problems]
    return DataError(path, None, f"{len(problems)} problems:\n" + "\n".join(lines))
