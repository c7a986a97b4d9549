"""PaySource (airline): a user read shows one payment method with a flipped category.

The retained identifier refutes the flip only where the model-visible history
establishes the relation between an identifier and its category (the tool interface
stating category-prefixed ids, or another delivered record of the same method); a
naming pattern in stored data alone does not count.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from sscbench.core.values import INF, ClassifiedUse, Evidence, Step, UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.case import Candidate, Case
from sscbench.faults.contract import AcquisitionRoute, FaultContract, Sufficiency, Target
from sscbench.faults.family import family_spec, labelled_reads
from sscbench.faults.operators.base import ReadFaultOperator, ScriptedTurn, UserParams
from sscbench.faults.operators.payment_choice import (
    choosing_categories,
    other_methods_categories,
)
from sscbench.faults.operators.uses import classify_value_use
from sscbench.faults.params import FaultParams
from sscbench.faults.typed import Checkpoint, Semantics, Surface, Timing
from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.references.payment_filing import (
    count_references,
    filed_under_headings,
    profile_ids,
)
from sscbench.references.payments import (
    Method,
    payment_methods,
    payment_references,
    payment_roles,
    position,
)
from sscbench.references.text import HANDOFF, agent_texts, clauses
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
        terms = {"payment"}
        for call in view.calls:
            data = call.data if call.observation_step is not None else None
            methods = data.get("payment_methods") if isinstance(data, dict) else None
            if not isinstance(methods, dict):
                continue
            for method in methods.values():
                if isinstance(method, dict):
                    digits = str(method.get("id", "")).rpartition("_")[2]
                    terms.update({digits[-3:], digits[-4:]} if digits.isdigit() else set())
                    terms.add(str(method.get("source", "")).replace("_", " "))
                    terms.update(str(method.get(k) or "") for k in ("brand", "last_four"))
                    terms.add(_amount(method.get("balance", method.get("amount"))))
        return {t for t in terms if t}

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
        pid = contract.target.entity_id
        injected, true = contract.injected_value, contract.authoritative_value
        texts = _text_uses(contract, view, fault_step)
        out = list(texts)
        # the turn's own message speaks beside its call (a handoff summary is a text of its own)
        by_step = {c.step: c for c in sorted(out, key=lambda c: c.channel == "message")}
        for call in view.calls:
            if call.call_step <= fault_step or call.name in (READ, HANDOFF):
                continue
            if not args_contain(call.arguments, pid):
                continue
            said = by_step.get(call.call_step)
            if said is not None and said.detail.get("position"):
                # a hedge beside the call does not cancel it (Def. 3.3)
                relied = said.detail["position"] in ("injected", "both")
                chosen = [said.detail["position"]]
            else:
                asked = choosing_categories(view, call.call_step, texts, contract)
                # a category the turn's other methods already answer did not choose this one
                turn = [c.arguments for c in view.calls if c.call_step == call.call_step]
                others = other_methods_categories(contract, view, call.call_step, turn)
                chosen = sorted((asked - others) & {injected, true})
                if not chosen:
                    continue
                relied = chosen == [injected]
            out.append(
                UseCandidate(
                    call.call_step,
                    "tool_call",
                    call.name,
                    relied,
                    not relied,
                    {"tool": call.name, "requested": chosen},
                )
            )
        return sorted(out, key=lambda c: c.step)

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


def _amount(value: Any) -> str:
    """A balance as a text writes it ("500" for 500.0, "274.5"), or ""."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:g}" if float(value).is_integer() else f"{value:.2f}"
    return ""


def _about(text: str, refs: list[Any]) -> str:
    """The clauses naming the method, each with the clause after it when that one speaks
    of what was just said ("Is that correct?", "This seems odd.")."""
    parts = clauses(text)
    kept: list[str] = []
    for ref in refs:
        index = max(i for i, (start, _) in enumerate(parts) if start <= ref.start)
        for i in (index, index + 1):
            if i == index + 1 and (i >= len(parts) or not _FOLLOW_UP.search(parts[i][1])):
                continue
            if parts[i][1] not in kept:
                kept.append(parts[i][1])
    return " ".join(kept)


_FOLLOW_UP = re.compile(r"\b(that|this|it)\b", re.IGNORECASE)


def _text_uses(contract: FaultContract, view: LedgerView, fault_step: int) -> list[UseCandidate]:
    """The text uses, in order: what each agent text (a message, and a handoff summary of
    the same turn apart) says of the method's category (a phrase fitting it and other
    methods makes the text's use undecidable). A method filed under a category heading,
    or bound by a count of categories over the profile, is said to have that category
    (:mod:`sscbench.references.payment_filing`)."""
    pid = contract.target.entity_id
    injected, true = contract.injected_value, contract.authoritative_value
    ids_state = bool(contract.sufficiency.semantics)
    out: list[UseCandidate] = []
    for step, channel, text in agent_texts(view, fault_step):
        methods = payment_methods(view, step, ids_state)
        methods.setdefault(pid, Method(pid, frozenset()))
        refs = payment_references(text, methods, payment_roles(view, step))
        refs = filed_under_headings(text, refs)
        refs += count_references(text, pid, profile_ids(view, step), methods)
        mine = [r for r in refs if r.entity == pid and r.mentions]
        settled = position(mine, injected, true)
        if settled is not None:
            spans = [r.span for r in mine]
            detail = {"text": _about(text, mine), "position": settled, "value_spans": spans}
            out.append(
                UseCandidate(
                    step,
                    channel,
                    mine[0].span,
                    settled in ("injected", "both"),
                    settled in ("authoritative", "both"),
                    detail,
                )
            )
            continue
        unsure = [r for r in refs if not r.resolved and pid in r.candidates and r.mentions]
        if position(unsure, injected, true) is not None:
            detail = {"text": _about(text, unsure), "candidates": sorted(unsure[0].candidates)}
            out.append(UseCandidate(step, channel, unsure[0].span, False, False, detail))
    return out
