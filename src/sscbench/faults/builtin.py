"""The built-in fault families, as classes: the one list the registry loads.

``SuppressWrite`` is the simple fault of the default study; the four SSCBench operators
are listed in :mod:`sscbench.faults.operators` and every typed family in
:mod:`sscbench.faults.surfaces`. A new family is one more line in one of those lists.
"""

from __future__ import annotations

from pydantic import Field

from sscbench.core.injection import Injection, SuppressHook
from sscbench.faults.case import Case
from sscbench.faults.family import FaultFamily
from sscbench.faults.hooks import HookTag, hook_id
from sscbench.faults.operators import SSCBENCH_OPERATORS
from sscbench.faults.params import FaultParams
from sscbench.faults.surfaces import ALL_FAMILIES
from sscbench.json_types import JsonObject
from sscbench.world.task import Task
from sscbench.world.tools import ToolKind
from sscbench.world.world import World


class SuppressParams(FaultParams):
    """The write SuppressWrite suppresses: its ``tool`` and the identifying arguments
    (``match``) the call must carry."""

    tool: str
    match: JsonObject = Field(default_factory=dict)


class SuppressWrite(FaultFamily):
    """Suppress a task's first ground-truth write while returning its real acknowledgement.

    Matches the call by tool name and the values of its identifying arguments
    (``match`` of :class:`SuppressParams`); fires once.
    """

    name = "SuppressWrite"
    params_model = SuppressParams

    def injections(self, case: Case, world: World) -> list[Injection]:
        """One hook suppressing the matched write."""
        p = case.params.as_model(SuppressParams)
        tool, expected = p.tool, p.match

        def match(name: str, arguments: object, _state: object) -> bool:
            return (
                name == tool
                and isinstance(arguments, dict)
                and all(arguments.get(k) == v for k, v in expected.items())
            )

        return [SuppressHook(hook_id(case.case_id, HookTag.SUPPRESS), match=match)]

    def cases_for(self, world: World, task: Task) -> list[Case]:
        """One case per task whose ground truth has a write with an id argument."""
        for action in task.actions:
            spec = world.tools.specs.get(action.name)
            if spec is None or spec.kind is not ToolKind.WRITE or spec.ends_episode:
                continue
            keys = [k for k in ("reservation_id", "order_id", "user_id") if k in action.kwargs]
            if not keys:
                continue
            return [
                Case(
                    case_id=f"{world.name}:{task.task_id}:SuppressWrite",
                    operator=self.name,
                    world=world.source,
                    domain=world.domain,
                    task_id=task.task_id,
                    max_steps=30,
                    params=SuppressParams(
                        tool=action.name, match={keys[0]: action.kwargs[keys[0]]}
                    ),
                )
            ]
        return []


BUILTIN_FAMILIES: tuple[type[FaultFamily], ...] = (
    SuppressWrite,
    *SSCBENCH_OPERATORS,
    *ALL_FAMILIES,
)
"""Every built-in family, in registration order (the typed families in table order)."""
