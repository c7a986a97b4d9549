"""The fault contract: what an injected fault asserts, and what would refute it.

A contract binds an intervention to the affected fact (target entity and attribute
or state scope), the injected assertion v′ and the authoritative v, the basis from
which counterevidence comes, the sufficiency relation (including any binding the
agent must have seen), the routes through which that evidence can be acquired with
the normal tools, and how long the intervention persists.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

Structure = Literal["co-delivered", "cross-record", "state-transition"]
"""Where counterevidence sits relative to the fault: delivered with it, in another
record, or in the state after a transition."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Target(_Frozen):
    """The affected fact's entity and the attribute or state scope within it."""

    entity_type: Literal["reservation", "payment_method", "order_item", "write_request"]
    entity_id: str
    attribute: str
    related_ids: dict[str, str] = Field(default_factory=dict)


class Interaction(_Frozen):
    """The tool interaction that carries the fault: tool name and identifying arguments."""

    tool: str
    match: dict[str, Any] = Field(default_factory=dict)


class AcquisitionRoute(_Frozen):
    """A normal tool interaction that can deliver counterevidence, and where its arguments come from."""

    tool: str
    arguments: dict[str, str] = Field(
        default_factory=dict,
        description="argument name -> where the agent can obtain it (visible history or task)",
    )
    note: str = ""


class Sufficiency(_Frozen):
    """When delivered observations suffice to contradict v′.

    ``relation`` names the semantic relation (e.g. ``round-trip-order``,
    ``id-category``, ``variant-binding``, ``post-attempt-read``); ``requires`` lists
    what must be model-visible together (e.g. the order item bound to its variant).
    """

    relation: str
    requires: tuple[str, ...] = ()
    semantics: str = Field("", description="the agent-visible semantic basis of the relation")


class FaultContract(_Frozen):
    """Measurement semantics of one injected fault."""

    operator: str
    structure: Structure
    target: Target
    fault_interaction: Interaction
    injected_value: Any
    authoritative_value: Any
    basis: str
    sufficiency: Sufficiency
    acquisition: tuple[AcquisitionRoute, ...] = ()
    persistence: Literal["once", "persistent"] = "once"
    authoritative_source: Literal["independent", "consistent"] = Field(
        "independent",
        description="consistent: the contradiction-relation variant ([world] "
        "consistent_source) made the authoritative source agree with v′, so a read showing "
        "v′ neither refutes it nor shows it true",
    )

    @model_serializer(mode="wrap")
    def _omit_the_default_source(self, handler: SerializerFunctionWrapHandler) -> object:
        """Leave ``authoritative_source`` out while it is ``independent``: the cases files
        of studies recorded before the field existed stay byte-identical, so they resume."""
        data = handler(self)
        if isinstance(data, dict) and self.authoritative_source == "independent":
            data.pop("authoritative_source", None)
        return data
