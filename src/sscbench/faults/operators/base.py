"""The operator plugin API and what the four operators share.

An operator enumerates candidates from a world and its tasks, checks their validity,
builds the contract and the injections of a case, scripts the visible prefix that
reaches the fault-bearing observation and the witness continuation after it, and
supplies its contract's relations to measurement: what counts as counterevidence in
a delivered history, and which references count as uses of the affected fact.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar

from sscbench.core.injection import Injection, RewriteHook
from sscbench.core.values import ClassifiedUse, Evidence, Stance, UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.case import Candidate, Case, ValueSource
from sscbench.faults.contract import (
    AcquisitionRoute,
    FaultContract,
    Interaction,
    Structure,
    Sufficiency,
    Target,
)
from sscbench.faults.family import FaultFamily
from sscbench.faults.params import FaultParams, P
from sscbench.json_types import JsonObject, JsonValue
from sscbench.reading import loads_json
from sscbench.world.task import Task
from sscbench.world.world import World

USER_READ = "get_user_details"
"""The read of the user's profile that opens most prefixes."""


@dataclass(frozen=True)
class ScriptedTurn:
    """One scripted step of a prefix or witness: an agent message, a tool call or a user reply."""

    role: Literal["assistant", "user"]
    content: str | None = None
    tool: str | None = None
    arguments: JsonObject | None = None
    provenance: dict[str, tuple[ValueSource, int | None, str]] = field(default_factory=dict)
    proposed_use: bool = False


def user_prefix_message(user_id: str, subject: str) -> str:
    """The opening user message of a prefix: who the user is and what it is about."""
    return f"Hi, my user id is {user_id}. I need help with {subject}."


def sentence_around(text: str, span: str) -> str:
    """The sentence of ``text`` that contains ``span``."""
    index = text.lower().find(span.lower())
    if index < 0:
        return text
    start = max(text.rfind(".", 0, index), text.rfind("\n", 0, index), text.rfind("?", 0, index))
    end_candidates = [i for i in (text.find(". ", index), text.find("\n", index)) if i >= 0]
    end = min(end_candidates) if end_candidates else len(text)
    return text[start + 1 : end + 1].strip()


def find_value(
    events_view: LedgerView, value: str, before: int
) -> tuple[ValueSource, int | None, str]:
    """Where an argument value was visible before ``before``: (source, step, path)."""
    for message in events_view.messages:
        if message.step >= before:
            break
        if message.role == "user" and value in message.content:
            return ("user", message.step, "content")
        if message.role == "system" and value in message.content:
            return ("system", message.step, "content")
    for call in events_view.calls:
        if call.observation_step is None or call.observation_step >= before:
            continue
        if call.observation and value in call.observation:
            return ("observation", call.observation_step, _path_of(call.data, value) or "")
    return ("missing", None, "")


def _path_of(data: object, value: str, path: str = "$") -> str | None:
    if data == value:
        return path
    if isinstance(data, dict):
        for k, v in data.items():
            found = _path_of(v, value, f"{path}.{k}")
            if found:
                return found
        for k in data:
            if k == value:
                return f"{path}.{k}(key)"
    if isinstance(data, list):
        for i, v in enumerate(data):
            found = _path_of(v, value, f"{path}[{i}]")
            if found:
                return found
    return None


class FaultOperator(FaultFamily, ABC, Generic[P]):
    """A fault family of SSCBench: enumeration, validity, contract, injection and relations.

    ``P`` is the operator's params model (``params_model``, declared beside it);
    :meth:`params` reads a case's or candidate's parameters as it.
    """

    domain: str
    structure: Structure
    default_max_steps: int = 30
    paper_candidates: int | None = None

    @abstractmethod
    def params(self, owner: Case | Candidate) -> P:
        """The parameters of a case or candidate of this operator, as its params model."""

    # ---- candidates ------------------------------------------------------------------
    @abstractmethod
    def enumerate(self, world: World) -> list[Candidate]:
        """Every candidate of the world, with stable ids, in a frozen order (``rank``)."""

    @abstractmethod
    def validate(self, candidate: Candidate, world: World) -> list[str]:
        """Reasons the candidate is not a valid fault (empty when valid)."""

    @abstractmethod
    def contract(self, candidate: Candidate, world: World) -> FaultContract:
        """The fault contract of a valid candidate."""

    def _hook_id(self, case: Case) -> str:
        return f"{case.case_id}:{self.name}"

    @abstractmethod
    def injections(self, case: Case, world: World) -> list[Injection]:
        """The hooks that put this case's fault into a run."""

    # ---- admission scripts -----------------------------------------------------------
    @abstractmethod
    def prefix_turns(self, candidate: Candidate, world: World) -> list[ScriptedTurn]:
        """Agent and user turns from the start through the fault-bearing call."""

    @abstractmethod
    def witness_turns(self, case: Case, world: World, view: LedgerView) -> list[ScriptedTurn]:
        """A legal continuation after the prefix meant to deliver counterevidence before use."""

    # ---- relations for measurement ---------------------------------------------------
    @abstractmethod
    def counterevidence(
        self, contract: FaultContract, view: LedgerView, fault_step: int
    ) -> Evidence:
        """T_E: when delivered observations first suffice to contradict v′."""

    @abstractmethod
    def extract_uses(
        self, contract: FaultContract, view: LedgerView, fault_step: int
    ) -> list[UseCandidate]:
        """Post-fault references to the affected entity and value, derived values included."""

    @abstractmethod
    def classify(
        self, contract: FaultContract, view: LedgerView, candidate: UseCandidate
    ) -> ClassifiedUse:
        """Dependent use, faulty reliance, verification, not a use, or undecidable."""

    def stance(
        self, contract: FaultContract, view: LedgerView, use: ClassifiedUse
    ) -> Stance | None:
        """The explicit stance toward v′ a classified message or handoff use takes, if any.

        A handoff summary communicates the agent's position to the next agent, so it
        counts as a stance like a message does; calls take none.
        """
        if use.candidate.channel not in ("message", "handoff"):
            return None
        if use.label is UseLabel.FAULTY_RELIANCE:
            return Stance.ENDORSES
        if use.label is UseLabel.DEPENDENT_USE and use.candidate.mentions_authoritative:
            return Stance.REJECTS
        if use.label is UseLabel.VERIFICATION:  # questioning v′ is declining to endorse it
            return Stance.REJECTS
        return None

    # ---- unread marks (sscbench.measure.unread): what the readers could not interpret --
    fact_argument_keys: tuple[str, ...] = ()
    """Call argument keys that carry a value of the fact when they name the affected entity
    (a payment id for a payment's category): such a call with no use extracted is marked
    ``unclassified-call``. Empty: no argument carries the fact."""

    def unread_terms(self, contract: FaultContract, view: LedgerView, fault_step: int) -> set[str]:
        """Words naming the affected entity or its value beyond the contract's ids and
        values (a sentence naming one beside a word no reader knows is marked); default none."""
        return set()

    def read_spans(
        self, contract: FaultContract, view: LedgerView, text: str
    ) -> list[tuple[int, int]]:
        """Spans of an agent text this operator's readers consumed beyond the dates the
        date reader returns (unknown words inside them are not marked); default none."""
        return []

    def cases_for(self, world: World, task: Task) -> list[Case]:
        """Cases from valid candidates of one task, without admission (for quick studies)."""
        out = []
        for candidate in self.enumerate(world):
            if candidate.task_id == task.task_id and not self.validate(candidate, world):
                out.append(case_from(self, candidate, world))
        return out


class UserParams(FaultParams):
    """Parameters of an operator on one task user's records: the user (who opens the
    conversation) first."""

    user_id: str


U = TypeVar("U", bound=UserParams)


class ReadFaultOperator(FaultOperator[U]):
    """An operator whose fault rewrites one JSON read (ReturnDate, PaySource, ItemOption).

    The base builds the contract, the hook and the prefix; the operator declares only
    what differs: the read (:attr:`read_tool`, :meth:`read_match`), the rewrite
    (:meth:`mutate`), the affected fact (:meth:`target`, :meth:`fault_values`), where
    counterevidence comes from (:attr:`basis`, :meth:`sufficiency`, :meth:`acquisition`)
    and what the opening user message is about (:meth:`subject`).
    """

    read_tool: ClassVar[str]
    """The fault-bearing read."""
    basis: ClassVar[str]
    """Where the authoritative value comes from (the contract's ``basis``)."""

    @abstractmethod
    def read_match(self, p: U) -> tuple[str, str]:
        """The identifying argument of the fault-bearing read: (name, value)."""

    @abstractmethod
    def mutate(self, p: U, data: JsonObject) -> bool | None:
        """Edit the read's parsed observation in place (False: leave it as delivered)."""

    @abstractmethod
    def target(self, p: U, world: World) -> Target:
        """The affected entity and attribute."""

    @abstractmethod
    def fault_values(self, p: U) -> tuple[JsonValue, JsonValue]:
        """The injected value v′ and the authoritative v."""

    @abstractmethod
    def sufficiency(self, world: World) -> Sufficiency:
        """When delivered observations suffice to contradict v′."""

    @abstractmethod
    def acquisition(self) -> tuple[AcquisitionRoute, ...]:
        """Normal tool interactions that can deliver counterevidence."""

    @abstractmethod
    def subject(self, p: U) -> str:
        """What the opening user message asks help with ("my order #W…")."""

    def contract(self, candidate: Candidate, world: World) -> FaultContract:
        """The fault contract of a valid candidate, from the operator's declarations."""
        p = self.params(candidate)
        key, value = self.read_match(p)
        injected, authoritative = self.fault_values(p)
        return FaultContract(
            operator=self.name,
            structure=self.structure,
            target=self.target(p, world),
            fault_interaction=Interaction(tool=self.read_tool, match={key: value}),
            injected_value=injected,
            authoritative_value=authoritative,
            basis=self.basis,
            sufficiency=self.sufficiency(world),
            acquisition=self.acquisition(),
            persistence="once",
        )

    def injections(self, case: Case, world: World) -> list[Injection]:
        """One hook rewriting the first matching read (:meth:`mutate`)."""
        p = self.params(case)
        key, value = self.read_match(p)

        def mutate(data: JsonObject) -> bool | None:
            return self.mutate(p, data)

        return [json_read_injection(self._hook_id(case), self.read_tool, key, value, mutate)]

    def prefix_turns(self, candidate: Candidate, world: World) -> list[ScriptedTurn]:
        """The user names what it is about; the agent reads the user (unless that is the
        fault-bearing read), then makes the fault-bearing read."""
        p = self.params(candidate)
        user_id = p.user_id
        key, value = self.read_match(p)
        turns = [ScriptedTurn("user", user_prefix_message(user_id, self.subject(p)))]
        if self.read_tool != USER_READ:
            turns.append(ScriptedTurn("assistant", tool=USER_READ, arguments={"user_id": user_id}))
        turns.append(ScriptedTurn("assistant", tool=self.read_tool, arguments={key: value}))
        return turns


def json_read_injection(
    hook_id: str, tool: str, key: str, value: str, mutate: Callable[[JsonObject], bool | None]
) -> Injection:
    """A once-firing hook rewriting the JSON observation of ``tool`` called with ``key=value``.

    ``mutate(data)`` edits the parsed observation in place (returning False to leave
    it as delivered); an observation that is not the expected JSON is left alone.
    """

    def rewrite(observation: str, _arguments: object, _state: object) -> str | None:
        try:
            data = loads_json(observation, max_depth=None)
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        try:
            if mutate(data) is False:
                return None
        except (json.JSONDecodeError, KeyError, IndexError, TypeError, AttributeError):
            return None
        return json.dumps(data)

    return RewriteHook(
        hook_id,
        match=lambda n, a, s: n == tool and isinstance(a, dict) and a.get(key) == value,
        rewrite=rewrite,
    )


def case_from(
    operator: FaultOperator[Any], candidate: Candidate, world: World, **extra: Any
) -> Case:
    """A case carrying a candidate's parameters and contract (plus admission records)."""
    return Case(
        case_id=candidate.candidate_id,
        operator=operator.name,
        world=candidate.world,
        domain=candidate.domain,
        task_id=candidate.task_id,
        max_steps=operator.default_max_steps,
        params=candidate.params,
        contract=operator.contract(candidate, world),
        control=candidate.control,
        literal=candidate.literal,
        cluster=candidate.cluster,
        rank=candidate.rank,
        **extra,
    )
