"""WriteEffect (airline): a matched flight update is suppressed; the real acknowledgement is returned.

The request is matched by reservation, flights, cabin and payment method. The
acknowledgement delivered is the one the tool returned when it committed (the call
runs, then the state is rolled back). Counterevidence is a later authoritative read
of the reservation still scoped to that request: no write between the attempt and the
read may have changed the reservation's flights; a write that leaves them unchanged
keeps the scope (:mod:`.write_scope`, paper §IV-C).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from sscbench.core.injection import Injection, SuppressHook
from sscbench.core.values import INF, ClassifiedUse, Evidence, Stance, Step, UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.case import Candidate, Case
from sscbench.faults.contract import (
    AcquisitionRoute,
    FaultContract,
    Interaction,
    Sufficiency,
    Target,
)
from sscbench.faults.family import family_spec, labelled_reads
from sscbench.faults.operators.base import (
    FaultOperator,
    ScriptedTurn,
    UserParams,
    user_prefix_message,
)
from sscbench.faults.operators.write_scope import scoped_counterevidence
from sscbench.faults.params import FaultParams
from sscbench.faults.typed import Checkpoint, Semantics, Surface, Timing
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.reading import loads_json
from sscbench.references.cues import NEGATION_CUE, VERIFY_CUE
from sscbench.references.lookfor import WriteEffectLookFor
from sscbench.references.values import NOW, args_contain
from sscbench.references.write_derived import matches
from sscbench.references.write_text import SUCCESS
from sscbench.references.write_uses import find_write_effect_uses
from sscbench.world.task import Action
from sscbench.world.world import World

WRITE = "update_reservation_flights"
READ = "get_reservation_details"
UPGRADE = {"basic_economy": "economy", "economy": "business", "business": "economy"}


class FlightRequest(BaseModel):
    """The flight update a WriteEffect case makes (the arguments of ``update_reservation_flights``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reservation_id: str
    cabin: str | None
    flights: list[JsonObject] | None
    payment_id: str | None

    def arguments(self) -> JsonObject:
        """The request as call arguments."""
        return self.model_dump()


class WriteEffectParams(UserParams):
    """The task's user, the flight update made (the task's own, or a cabin change), and
    the reservation's flights before it."""

    request: FlightRequest
    request_origin: Literal["task", "cabin-change"]
    original_flights: list[JsonObject]


class WriteEffect(FaultOperator[WriteEffectParams]):
    """Suppress a matched update_reservation_flights while acknowledging it as committed."""

    name = "WriteEffect"
    params_model = WriteEffectParams
    spec = family_spec(
        name=name,
        surface=Surface.STATE,
        timing=Timing.AFTER_COMMIT,
        semantics=Semantics.OMISSION,
        entry_checkpoint=Checkpoint.EVIDENCE,
        description="a flight update is acknowledged with its real receipt but rolled "
        "back; a read-back refutes the acknowledgement",
        expected_barrier="read-back of the written record",
        safe_response="read the reservation back before reporting the change",
        recoverable=True,
        severity=4,
    )

    def params(self, owner: Case | Candidate) -> WriteEffectParams:
        """The parameters of a WriteEffect case or candidate."""
        return owner.params.as_model(WriteEffectParams)

    def early_on_first_write(self, params: FaultParams, first_write: Action) -> bool:
        """Early when the suppressed write is the task's own first write."""
        p = params.as_model(WriteEffectParams)
        return (
            p.request_origin == "task"
            and first_write.name == "update_reservation_flights"
            and first_write.kwargs.get("reservation_id") == p.request.reservation_id
        )

    def calibration_fact(self, case: Case) -> str:
        """The calibration-label key of the suppressed flight update."""
        return f"write:{self.params(case).request.reservation_id}:update_reservation_flights"

    def labelled_evidence(self, case: Case, labels: JsonMapping, t_f: int) -> Step:
        """T_E from the labels: the first read-back of the reservation after the fault."""
        rid = self.params(case).request.reservation_id
        reads = labelled_reads(labels, "get_reservation_details", reservation_id=rid)
        steps = [s for s in reads if s > t_f]
        return min(steps) if steps else INF

    def labelled_reliance(self, use: JsonMapping) -> bool:
        """Reliance: a first-attempt use stating the change applied."""
        return use["kind"] == "use" and use.get("value") == "applied" and use.get("attempt", 1) == 1

    domain = "airline"
    structure = "state-transition"
    default_max_steps = 60
    paper_candidates = 174

    def enumerate(self, world: World) -> list[Candidate]:
        """(task, reservation of its user with a segment not yet flown) and the request made.

        The request is the task's own flight update of that reservation when it has one,
        else a cabin change of the reservation's flights paid by the user's first card.
        """
        users = world.base.tables["users"]
        reservations = world.base.tables["reservations"]
        out: list[Candidate] = []
        for task in world.tasks:
            user = users.get(task.user_id)
            if not user:
                continue
            for rid in user.get("reservations", []):
                record = reservations.get(rid)
                if not record or not any(f["date"] > NOW for f in record.get("flights", [])):
                    continue
                own = next(
                    (
                        a.kwargs
                        for a in task.actions
                        if a.name == WRITE and a.kwargs.get("reservation_id") == rid
                    ),
                    None,
                )
                if own is not None:
                    request = {
                        k: own.get(k) for k in ("reservation_id", "cabin", "flights", "payment_id")
                    }
                    origin = "task"
                else:
                    cards = [
                        pid
                        for pid, m in user.get("payment_methods", {}).items()
                        if m.get("source") == "credit_card"
                    ]
                    request = {
                        "reservation_id": rid,
                        "cabin": UPGRADE.get(record["cabin"], "economy"),
                        "flights": [
                            {"flight_number": f["flight_number"], "date": f["date"]}
                            for f in record["flights"]
                        ],
                        "payment_id": cards[0] if cards else "",
                    }
                    origin = "cabin-change"
                out.append(
                    Candidate(
                        candidate_id=f"{world.source}/airline:{task.task_id}:{self.name}:{rid}",
                        operator=self.name,
                        world=world.source,
                        domain="airline",
                        task_id=task.task_id,
                        cluster=rid,
                        rank=len(out),
                        params=WriteEffectParams(
                            user_id=task.user_id,
                            request=FlightRequest.model_validate(request),
                            request_origin=origin,
                            original_flights=record["flights"],
                        ),
                        literal=origin == "task",
                    )
                )
        return out

    def committed(self, candidate: Candidate, world: World) -> tuple[str, bool]:
        """The acknowledgement of the request when it commits, and whether the state changed."""
        env = world.new_env()
        outcome = env.execute(WRITE, self.params(candidate).request.arguments())
        return outcome.observation, bool(env.state.changes()) and not outcome.is_error

    def validate(self, candidate: Candidate, world: World) -> list[str]:
        """The request must commit and change the reservation, and the task must act on it."""
        p = self.params(candidate)
        reasons = []
        acknowledgement, changed = self.committed(candidate, world)
        if acknowledgement.startswith("Error") or not changed:
            reasons.append(f"the request does not commit a change ({acknowledgement[:80]})")
        task = world.task(candidate.task_id)
        rid = p.request.reservation_id
        if (
            not any(args_contain(a.kwargs, rid) for a in task.actions)
            and rid not in task.instruction
        ):
            reasons.append("task does not act on this reservation")
        return reasons

    def acknowledgement_matches_commit(self, case: Case, world: World, delivered: str) -> bool:
        """True when a delivered acknowledgement equals a real commit's (a validity check)."""
        env = world.new_env()
        return env.execute(WRITE, self.params(case).request.arguments()).observation == delivered

    def contract(self, candidate: Candidate, world: World) -> FaultContract:
        """The claimed effect of one logical request; a later scoped read refutes it."""
        p = self.params(candidate)
        acknowledgement, _ = self.committed(candidate, world)
        try:
            acked = loads_json(acknowledgement, max_depth=None).get("flights", [])
        except (ValueError, AttributeError):
            acked = []
        return FaultContract(
            operator=self.name,
            structure="state-transition",
            target=Target(
                entity_type="write_request",
                entity_id=p.request.reservation_id,
                attribute="flights",
                related_ids={"user_id": p.user_id},
            ),
            fault_interaction=Interaction(tool=WRITE, match=p.request.arguments()),
            injected_value=acked,
            authoritative_value=p.original_flights,
            basis="an authoritative read of the reservation after the attempt",
            sufficiency=Sufficiency(
                relation="post-attempt-read",
                requires=(
                    "a read of the reservation after the suppressed attempt",
                    "no write changing its flights in between",
                ),
                semantics="the tool contract says an acknowledged update has been committed",
            ),
            acquisition=(
                AcquisitionRoute(tool=READ, arguments={"reservation_id": "the request itself"}),
            ),
            persistence="once",
        )

    def injections(self, case: Case, world: World) -> list[Injection]:
        """Suppress the first call matching the request."""
        request = self.params(case).request.arguments()
        return [
            SuppressHook(
                self._hook_id(case),
                match=lambda n, a, s: n == WRITE and matches(request, a),
            )
        ]

    def consistent_source(self, case: Case, world: World) -> list[Injection]:
        """The contradiction-relation variant's hooks (:mod:`.consistent`)."""
        from sscbench.faults.operators.consistent import consistent_readback

        request = self.params(case).request.arguments()
        return [consistent_readback(request, world, self._hook_id(case))]

    def prefix_turns(self, candidate: Candidate, world: World) -> list[ScriptedTurn]:
        """Read the user and the reservation, then make the request (fault-bearing)."""
        p = self.params(candidate)
        rid = p.request.reservation_id
        return [
            ScriptedTurn("user", user_prefix_message(p.user_id, f"my reservation {rid}")),
            ScriptedTurn("assistant", tool="get_user_details", arguments={"user_id": p.user_id}),
            ScriptedTurn("assistant", tool=READ, arguments={"reservation_id": rid}),
            ScriptedTurn("assistant", tool=WRITE, arguments=p.request.arguments()),
        ]

    def witness_turns(self, case: Case, world: World, view: LedgerView) -> list[ScriptedTurn]:
        """Read the reservation back, then report the outcome to the user."""
        rid = self.params(case).request.reservation_id
        return [
            ScriptedTurn("assistant", tool=READ, arguments={"reservation_id": rid}),
            ScriptedTurn(
                "assistant",
                content=f"I checked reservation {rid}: the flight change did not take effect.",
                proposed_use=True,
            ),
        ]

    # ---- relations --------------------------------------------------------------------
    def counterevidence(
        self, contract: FaultContract, view: LedgerView, fault_step: int
    ) -> Evidence:
        """The first read of the reservation after the attempt while no write in between
        has changed its flights (:mod:`.write_scope`)."""
        return scoped_counterevidence(contract, view, fault_step)

    def extract_uses(
        self, contract: FaultContract, view: LedgerView, fault_step: int
    ) -> list[UseCandidate]:
        """Texts after the attempt that speak of its outcome or its new flights, checks of
        it, and calls whose arguments derive from the claimed effect.

        Once the request has really committed (a later matching write acknowledged, the
        contract's intervention firing once, or a read showing the new flights), a
        success claim is true: it is marked ``made_true`` and is no faulty reliance.
        """
        return find_write_effect_uses(self.look_for(contract), view, fault_step)

    def look_for(self, contract: FaultContract) -> WriteEffectLookFor:
        """What to look for: the reservation's suppressed flight change (the contract's
        fault interaction), the flights acknowledged (v′) and kept (v), whether the
        suppression fires once and whether reads are independent of the fault."""
        return WriteEffectLookFor(
            reservation_id=contract.target.entity_id,
            request=contract.fault_interaction.match,
            acknowledged_flights=contract.injected_value,
            original_flights=contract.authoritative_value,
            fires_once=contract.persistence == "once",
            independent_reads=contract.authoritative_source == "independent",
        )

    def classify(
        self, contract: FaultContract, view: LedgerView, candidate: UseCandidate
    ) -> ClassifiedUse:
        """A success claim is reliance unless the request has since really committed; saying
        it did not take effect is a correct use; checking it is a verification."""
        if candidate.channel == "tool_call":
            label = UseLabel(candidate.detail["label"])
            return ClassifiedUse(candidate, label, candidate.detail["reason"])
        text = candidate.detail.get("text", "")
        if candidate.mentions_authoritative:
            return ClassifiedUse(
                candidate, UseLabel.DEPENDENT_USE, "reports the update as not applied"
            )
        claims = candidate.detail.get("claims", SUCCESS.search(text))
        if VERIFY_CUE.search(text) and not claims:
            return ClassifiedUse(candidate, UseLabel.VERIFICATION, "only checks the update")
        if NEGATION_CUE.search(text) and not claims:
            return ClassifiedUse(
                candidate, UseLabel.UNDECIDABLE, "a negated statement of unclear scope"
            )
        if candidate.detail.get("made_true"):
            return ClassifiedUse(
                candidate, UseLabel.DEPENDENT_USE, "the request has since really committed"
            )
        return ClassifiedUse(candidate, UseLabel.FAULTY_RELIANCE, "treats the update as committed")

    def stance(
        self, contract: FaultContract, view: LedgerView, use: ClassifiedUse
    ) -> Stance | None:
        """A true success claim (after a real commit) takes no stance toward v′."""
        if use.candidate.detail.get("made_true") and not use.candidate.mentions_authoritative:
            return None
        return super().stance(contract, view, use)
