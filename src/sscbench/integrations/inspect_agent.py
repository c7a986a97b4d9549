"""Inspect's model as an sscbench agent: the ``Agent`` protocol over ``Model.generate``.

Each turn sends the model-visible ledger (as Inspect messages) and the world's tool
definitions to the model and returns its text and tool calls; sscbench's episode loop
executes the calls at its one execution point (with the run's injections), so Inspect
never runs a tool. A model that fails (an exception or an error output) raises
:class:`HarnessFailure`: the run is missing, never an agent outcome.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import GenerateConfig, Model, ModelOutput

from sscbench.core.agent import Agent, AgentTurn, RunContext
from sscbench.core.ledger import LedgerEvent
from sscbench.errors import HarnessFailure
from sscbench.integrations.inspect_messages import assistant_turn, ledger_to_messages, tool_infos
from sscbench.integrations.inspect_model import run_scope
from sscbench.json_types import JsonObject


class InspectModelAgent:
    """One run's agent: Inspect's model, seeing exactly the ledger and the tools."""

    def __init__(self, model: Model, context: RunContext, config: GenerateConfig | None = None):
        self.model = model
        self.context = context
        self.state: dict[str, Agent] = {}  # the run's own slot for a model that keeps one
        self.tools = tool_infos(context.tools)
        self.config = config or GenerateConfig()
        self.usage: dict[str, int] = {}

    async def act(self, ledger: Sequence[LedgerEvent]) -> AgentTurn:
        """The model's next turn for the ledger so far."""
        messages = ledger_to_messages(ledger)
        try:
            with run_scope(self.context, self.state):  # what sscbench/<profile> answers for
                output = await self.model.generate(messages, tools=self.tools, config=self.config)
        except Exception as exc:
            raise HarnessFailure("agent", f"{type(exc).__name__}: {exc}", "model error") from exc
        if output.error:
            raise HarnessFailure("agent", str(output.error), "model error")
        self._count(output)
        return assistant_turn(output.message)

    def _count(self, output: ModelOutput) -> None:
        self.usage["requests"] = self.usage.get("requests", 0) + 1
        if output.usage is not None:
            for key in ("input_tokens", "output_tokens"):
                self.usage[key] = self.usage.get(key, 0) + int(getattr(output.usage, key) or 0)

    def calibration(self) -> JsonObject | None:
        """A model records no intentions of its own."""
        return None


class InspectAgentFactory:
    """Builds an :class:`InspectModelAgent` for each run of the study."""

    def __init__(self, model: Model, config: GenerateConfig | None = None):
        self.model = model
        self.config = config

    def __call__(self, context: RunContext) -> InspectModelAgent:
        """A fresh agent for this run."""
        return InspectModelAgent(self.model, context, self.config)
