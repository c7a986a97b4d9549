"""Typed fault parameters: the base every operator's and family's params model derives from.

A case (and a candidate) carries its family's params model, not a dict: each operator or
family declares ``params_model`` beside its own code (``ItemOptionParams`` in
``item_option.py``, ``WriteParams`` in ``write_family.py``), and a field is read as an
attribute that mypy checks. The models are frozen and refuse unknown fields; a
``cases.jsonl`` line is validated against the model its ``operator`` names (the table
:func:`register_params` fills when a family class is defined), so a line with an unknown,
missing or wrongly typed parameter is refused naming the field.

The wire form is the one the dicts had: a model writes the fields it was given, in the
order it was given them (a typed family's study parameters sit where the study put
them), so ``cases.jsonl`` and everything derived from it stay byte-identical.
"""

from __future__ import annotations

from typing import Literal, Self, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

__all__ = ["FamilyParameter", "FaultParams", "P", "params_model", "register_params"]

FamilyParameter = Literal[
    "probability", "burst", "position", "binding_lost", "events", "age", "plausibility"
]
"""A typed family's fault parameters a study may set (``binding_lost``: SubjectBindingLost;
``events``: intervening events of a state family; ``age``: StaleValue; ``plausibility``:
SchemaDrift)."""


class FaultParams(BaseModel):
    """The parameters of one fault case (none here: each family's model adds its own).

    Frozen, unknown fields refused. :meth:`merged` is how a family derives a case's
    parameters from another's (a dict merge: a field already given keeps its place, a
    new one comes last), and the model is written with the fields it was given in the
    order they were given (the wire form of the dicts it replaced).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    _order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _keep_order(cls, data: object, handler: ModelWrapValidatorHandler[Self]) -> Self:
        """Remember the order the fields came in (the wire form writes them so)."""
        model = handler(data)
        if isinstance(data, dict) and not model._order:
            model._order = tuple(str(key) for key in data)
        return model

    @model_serializer(mode="wrap")
    def _as_given(self, handler: SerializerFunctionWrapHandler) -> object:
        """The fields given, in the order given (a field left at its default is not written)."""
        data = handler(self)
        if not isinstance(data, dict):
            return data
        given = self.model_fields_set
        order = [k for k in self._order if k in given]
        order += [k for k in data if k in given and k not in order]
        return {key: data[key] for key in order if key in data}

    def merged(self, first: bool = False, **changes: object) -> Self:
        """These parameters with ``changes`` (validated): a changed field keeps its place
        and a new one comes last, or first with ``first`` (``{**new, **old}``: a field
        already given then keeps its value)."""
        old = self.model_dump()
        data = {**changes, **old} if first else {**old, **changes}
        return self.model_validate(data)

    def extended(self, model: type[P], **changes: object) -> P:
        """These parameters with ``changes`` as ``model`` (a family's model that adds
        fields to these, :meth:`merged`'s order)."""
        return model.model_validate({**self.model_dump(), **changes})

    def as_model(self, model: type[P]) -> P:
        """These parameters as ``model`` (the family's own): the same object when it is
        one, else validated from its fields (a field the model does not know is refused)."""
        if isinstance(self, model):
            return self
        return model.model_validate(self.model_dump())


P = TypeVar("P", bound=FaultParams)

_MODELS: dict[str, type[FaultParams]] = {}


def register_params(name: str, model: type[FaultParams]) -> None:
    """Record that cases of the family ``name`` carry ``model`` (done when the family's
    class is defined, :class:`~sscbench.faults.family.FaultFamily`)."""
    _MODELS[name] = model


def params_model(name: str) -> type[FaultParams]:
    """The params model of the family ``name`` (the bare :class:`FaultParams`, which takes
    no parameter, for a name no family registered)."""
    return _MODELS.get(name, FaultParams)
