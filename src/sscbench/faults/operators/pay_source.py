"""PaySource (airline): a user read shows one payment method with a flipped category.

The retained identifier refutes the flip only where the model-visible history
establishes the relation between an identifier and its category (the tool interface
stating category-prefixed ids, or another delivered record of the same method); a
naming pattern in stored data alone does not count.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from sscbench.core.values import INF, ClassifiedUse, Evidence, Step, UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.case import Candidate, Case
from sscbench.faults.contract import AcquisitionRoute, FaultContract, Sufficiency, Target
from sscbench.faults.family import family_spec, labelled_reads
from sscbench.faults.operators.base import ReadFaultOperator, ScriptedTurn, UserParams
from sscbench.faults.operators.uses import classify_value_use
from sscbench.faults.params import FaultParams
from sscbench.faults.typed import Checkpoint, Semantics, Surface, Timing
from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.references.lookfor import PaymentLookFor
from sscbench.references.payment_uses import find_payment_uses, payment_terms
from sscbench.references.values import args_contain
from sscbench.world.task import Action
from sscbench.world.world import World

READ = "get_user_details"
PaymentCategory = Literal["credit_card", "gift_card", "certificate"]
"""The payment categories PaySource flips (a PayPal method is left alone)."""
FLIP: dict[str, PaymentCategory] = {
    "credit_card": "gift_card",
    "gift_card": "credit_card",
    "certificate": "credit_card",
}


class PaySourceParams(UserParams):
    """One payment method of the task's user, its category (``source``) and the category
    the fault shows (``injected_source``)."""

    payment_id: str
    source: PaymentCategory
    injected_source: PaymentCategory


WORDS = {
    "credit_card": ("credit card", "credit-card"),
    "gift_card": ("gift card", "gift-card"),
    "certificate": ("certificate",),
}
PAYMENT_ARGS = ("payment_id", "payment_methods", "payment_method_id")


def interface_relation(world: World) -> str:
    """Where the agent-visible interface ties ids to categories ('' when it does not)."""
    text = world.policy + json.dumps(world.tool_schemas())
    if all(re.search(rf"'{c}_\d+", text) for c in ("credit_card", "gift_card", "certificate")):
        return "the tool interface names payment ids by category ('credit_card_…', 'gift_card_…', 'certificate_…')"
    return ""


class PaySource(ReadFaultOperator[PaySourceParams]):
    """Flip one payment method's category in the user's profile as delivered."""

    name = "PaySource"
    params_model = PaySourceParams
    # a payment made with the method may have chosen it by its category (unread marks)
    fact_argument_keys = ("payment_id", "payment_method_id")
    spec = family_spec(
        name=name,
        surface=Surface.TOOL,
        timing=Timing.DURING_EXECUTION,
        semantics=Semantics.CORRUPTION,
        entry_checkpoint=Checkpoint.CONTEXT,
        description="a payment method's category is misreported in one read; the user "
        "profile refutes it",
        expected_barrier="re-read of the user profile before stating or using the source",
        safe_response="check the payment method against the profile before use",
        recoverable=True,
        severity=3,
    )

    def unread_terms(self, contract: FaultContract, view: LedgerView, fault_step: int) -> set[str]:
        """Words naming payment methods as the profile showed them (each method's category
        in words, brand, last four digits, id suffix, balance) and ``payment``: a sentence with one of them
        beside a word no reader knows may write a category in a form no reader read."""
        return payment_terms(view)

    def params(self, owner: Case | Candidate) -> PaySourceParams:
        """The parameters of a PaySource case or candidate."""
        return owner.params.as_model(PaySourceParams)

    def early_on_first_write(self, params: FaultParams, first_write: Action) -> bool:
        """Early when the task's first write pays with the relabelled method."""
        payment_id = params.as_model(PaySourceParams).payment_id
        return payment_id in {str(value) for value in first_write.kwargs.values()}

    def calibration_fact(self, case: Case) -> str:
        """The calibration-label key of the payment method's category."""
        return f"payment:{self.params(case).payment_id}:category"

    def labelled_evidence(self, case: Case, labels: JsonMapping, t_f: int) -> Step:
        """T_E from the labels: the first read of the user's profile."""
        steps = labelled_reads(labels, "get_user_details", user_id=self.params(case).user_id)
        return min(steps) if steps else INF

    domain = "airline"
    structure = "co-delivered"
    default_max_steps = 40
    paper_candidates = 120
    read_tool = READ
    basis = "the retained payment id in the same observation"

    def enumerate(self, world: World) -> list[Candidate]:
        """(user, payment method) for each distinct task user, on that user's first task."""
        users = world.base.tables["users"]
        out: list[Candidate] = []
        seen: set[str] = set()
        for task in world.tasks:
            user = users.get(task.user_id)
            if not user or task.user_id in seen:
                continue
            seen.add(task.user_id)
            for pid, method in user.get("payment_methods", {}).items():
                source = method.get("source")
                if source not in FLIP:
                    continue
                out.append(
                    Candidate(
                        candidate_id=f"{world.source}/airline:{task.task_id}:{self.name}:{pid}",
                        operator=self.name,
                        world=world.source,
                        domain="airline",
                        task_id=task.task_id,
                        cluster=task.user_id,
                        rank=len(out),
                        params=PaySourceParams(
                            user_id=task.user_id,
                            payment_id=pid,
                            source=source,
                            injected_source=FLIP[source],
                        ),
                        literal=any(args_contain(a.kwargs, pid) for a in task.actions),
                    )
                )
        return out

    def validate(self, candidate: Candidate, world: World) -> list[str]:
        """The flip must change the category and the task must pay with something."""
        p = self.params(candidate)
        reasons = []
        if p.injected_source == p.source or p.injected_source not in FLIP:
            reasons.append("injected category is not a different payment category")
        user = world.base.tables["users"].get(p.user_id, {})
        if p.payment_id not in user.get("payment_methods", {}):
            reasons.append("payment method is not the user's")
        task = world.task(candidate.task_id)
        pays = [a for a in task.actions if any(k in a.kwargs for k in PAYMENT_ARGS)]
        if not pays:
            reasons.append("task makes no payment")
        return reasons

    # ---- the contract and the hook (built by ReadFaultOperator) -------------------------
    def read_match(self, p: PaySourceParams) -> tuple[str, str]:
        """The read of the user's profile."""
        return "user_id", p.user_id

    def subject(self, p: PaySourceParams) -> str:
        """A payment (the method is not named)."""
        return "a payment"

    def mutate(self, p: PaySourceParams, data: JsonObject) -> None:
        """One method's category flipped in the profile as delivered."""
        methods = data["payment_methods"]
        method = methods[p.payment_id] if isinstance(methods, dict) else None
        if not isinstance(method, dict):
            raise KeyError(p.payment_id)
        method["source"] = p.injected_source

    def target(self, p: PaySourceParams, world: World) -> Target:
        """The category of one payment method."""
        return Target(
            entity_type="payment_method",
            entity_id=p.payment_id,
            attribute="category",
            related_ids={"user_id": p.user_id},
        )

    def fault_values(self, p: PaySourceParams) -> tuple[JsonValue, JsonValue]:
        """The flipped category and the true one."""
        return p.injected_source, p.source

    def sufficiency(self, world: World) -> Sufficiency:
        """The retained id refutes the flip where the id-category relation is visible."""
        return Sufficiency(
            relation="id-category",
            requires=("the payment id delivered", "the id-category relation visible"),
            semantics=interface_relation(world),
        )

    def acquisition(self) -> tuple[AcquisitionRoute, ...]:
        """A second read of the profile."""
        return (
            AcquisitionRoute(
                tool=READ,
                arguments={"user_id": "user message"},
                note="co-delivered; a second read shows the true category",
            ),
        )

    def witness_turns(self, case: Case, world: World, view: LedgerView) -> list[ScriptedTurn]:
        """Co-delivered: a message naming the method and the category it was shown with."""
        p = self.params(case)
        words = WORDS[p.injected_source][0]
        return [
            ScriptedTurn(
                "assistant",
                content=f"You can pay with {p.payment_id} ({words}).",
                proposed_use=True,
            )
        ]

    # ---- relations --------------------------------------------------------------------
    def counterevidence(
        self, contract: FaultContract, view: LedgerView, fault_step: int
    ) -> Evidence:
        """The id delivered where its category is visible: at once if the interface states the
        relation, else at the first delivered record showing the method's true category."""
        pid = contract.target.entity_id
        for call in view.calls:
            step = call.observation_step
            if step is None or not call.observation or pid not in call.observation:
                continue
            if contract.sufficiency.semantics and pid.startswith(contract.authoritative_value):
                return Evidence(step, (step,), "the delivered id carries its category")
            data = call.data
            methods = data.get("payment_methods") if isinstance(data, dict) else None
            if isinstance(methods, dict):
                shown = (methods.get(pid) or {}).get("source")
                if shown == contract.authoritative_value:
                    return Evidence(step, (step,), "a delivered record shows the true category")
        return Evidence(INF, (), "no delivered observation establishes the category")

    def extract_uses(
        self, contract: FaultContract, view: LedgerView, fault_step: int
    ) -> list[UseCandidate]:
        """Texts saying what category the method has, however they name it; payment calls
        whose choice of the method follows from its category.

        The method may be named by id, last digits, id suffix, brand, balance, a definite
        category ("your only gift card") or role ("the original payment method"): a
        phrase counts when it identifies the method among those the ledger showed before
        the step (:mod:`sscbench.references.payments`); a list of the user's methods with
        their categories says each one's. A phrase that fits this method and others and
        says a category is an undecidable use, never a guess. A payment call is a use
        only when the category decided it: the turn's own text, the user's request (this
        turn or the one before) or the agent's listing the user accepted names the
        category, and no other method the turn pays with answers it; a call that would be
        the same under either category does not depend on it.
        """
        return find_payment_uses(self.look_for(contract), view, fault_step)

    def look_for(self, contract: FaultContract) -> PaymentLookFor:
        """What to look for: the method's category, v′ and v, and whether the interface's
        ids state their category (the contract's sufficiency semantics)."""
        return PaymentLookFor(
            method_id=contract.target.entity_id,
            injected=contract.injected_value,
            authoritative=contract.authoritative_value,
            ids_state_category=bool(contract.sufficiency.semantics),
            read_tool=READ,
        )

    def classify(
        self, contract: FaultContract, view: LedgerView, candidate: UseCandidate
    ) -> ClassifiedUse:
        """The flipped category said of the method is reliance; a payment call chosen by the
        category relies on the flip when the category that chose it is the flipped one."""
        if candidate.detail.get("candidates"):
            return ClassifiedUse(
                candidate,
                UseLabel.UNDECIDABLE,
                "a phrase that fits this method and others says a category",
            )
        if candidate.channel == "tool_call":
            if candidate.mentions_injected:
                return ClassifiedUse(
                    candidate,
                    UseLabel.FAULTY_RELIANCE,
                    "pays with the method as the category it has only in the faulty record",
                )
            return ClassifiedUse(
                candidate, UseLabel.DEPENDENT_USE, "pays with the method by its true category"
            )
        return classify_value_use(candidate, view)
