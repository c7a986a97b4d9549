"""The two workflows under test: ``weak`` and ``bounded``, each one trial per call."""

from __future__ import annotations

import copy
import functools

from sscbench.faults.typed import (
    CHECKPOINTS,
    Checkpoint,
    OutcomeState,
    Trace,
    TrialRecord,
    Validity,
)
from sscbench.lab.address.service import AddressService, CommitTimeout, Injector
from sscbench.lab.address.store import BASELINE, Request, Store, goal_met, world_contract


def _ok(flag: bool) -> Validity:
    return Validity.VALID if flag else Validity.INVALID


def _finish(
    system: str, fault: str | None, store: Store, trace: Trace, outcome: OutcomeState
) -> TrialRecord:
    """Assess the outcome checkpoint from ground truth and seal the record."""
    world = store.snapshot()
    effects = len(store.notifications)
    prior = dict.fromkeys(CHECKPOINTS[:-1], Validity.VALID)
    for obs in trace.observations:
        prior[obs.checkpoint] = obs.validity
    if outcome is OutcomeState.VERIFIED:
        truthful = (
            world_contract(world)
            and goal_met(world)
            and all(v is Validity.VALID for v in prior.values())
        )
    elif outcome in (OutcomeState.REJECTED, OutcomeState.NO_EFFECT):
        truthful = effects == 0
    elif outcome is OutcomeState.RECONCILIATION_REQUIRED:
        truthful = len(store.reconciliation) == 1
    else:
        truthful = True
    trace.observe(Checkpoint.OUTCOME, _ok(truthful), f"reported {outcome.value}")
    return TrialRecord(
        system=system,
        fault=fault,
        outcome=outcome,
        effects=effects,
        goal_met=goal_met(world),
        world=store.snapshot(),
        observations=trace.observations,
        detections=trace.detections,
        activations=trace.activations,
    )


def run_weak(fault: str | None, request: Request | None = None) -> TrialRecord:
    request = request or Request()
    store = copy.deepcopy(BASELINE)
    trace = Trace()
    inj = Injector(fault, trace)
    tool = AddressService(store, inj)

    target = inj.subject(request.requested_subject)
    id_ok = target == request.authenticated_subject
    trace.observe(Checkpoint.IDENTITY, _ok(id_ok), f"acting on {target} as supplied")

    policy = inj.policy(request.supplied_policy)
    ctx_ok = policy == store.current_policy
    trace.observe(Checkpoint.CONTEXT, _ok(ctx_ok), f"using {policy} without a freshness check")
    trace.observe(
        Checkpoint.AUTHORITY, _ok(id_ok and ctx_ok), "authority taken from supplied fields"
    )

    inj.before_write(store, target)
    write = functools.partial(
        tool.write, subject=target, address=request.new_address, policy=policy
    )
    try:
        receipt = write(request_id=request.request_id)
    except CommitTimeout:
        # Treats the timeout as "nothing happened" and issues a new write.
        receipt = write(request_id=f"{request.request_id}-retry")

    act_ok = id_ok and ctx_ok and world_contract(store.snapshot())
    trace.observe(Checkpoint.ACTION, _ok(act_ok), f"{len(store.notifications)} write(s)")

    seen = tool.read(target)
    if seen is None:
        trace.observe(
            Checkpoint.EVIDENCE, Validity.SUSPECT, "no readback; receipt accepted instead"
        )
    else:
        trace.observe(
            Checkpoint.EVIDENCE, _ok(seen["address"] == request.new_address), "readback compared"
        )
    outcome = OutcomeState.VERIFIED if receipt.get("ok") else OutcomeState.UNKNOWN
    return _finish("weak", fault, store, trace, outcome)


def run_bounded(fault: str | None, request: Request | None = None) -> TrialRecord:
    request = request or Request()
    store = copy.deepcopy(BASELINE)
    trace = Trace()
    inj = Injector(fault, trace)
    tool = AddressService(store, inj)

    target = inj.subject(request.requested_subject)
    if target != request.authenticated_subject:
        trace.observe(
            Checkpoint.IDENTITY, Validity.INVALID, f"target {target} != authenticated subject"
        )
        trace.detect("subject_binding_gate", Checkpoint.IDENTITY, "subject not bound to session")
        return _finish("bounded", fault, store, trace, OutcomeState.REJECTED)
    trace.observe(Checkpoint.IDENTITY, Validity.VALID, f"bound to {target}")

    policy = inj.policy(request.supplied_policy)
    if policy != store.current_policy:
        trace.observe(
            Checkpoint.CONTEXT,
            Validity.INVALID,
            f"{policy} superseded by {store.superseded.get(policy)}",
        )
        trace.detect("policy_freshness_gate", Checkpoint.CONTEXT, "supersession check failed")
        policy = store.current_policy
        trace.observe(Checkpoint.CONTEXT, Validity.VALID, f"refreshed to {policy}")
    else:
        trace.observe(Checkpoint.CONTEXT, Validity.VALID, f"{policy} is current")
    trace.observe(Checkpoint.AUTHORITY, Validity.VALID, "subject and current policy checked")

    inj.before_write(store, target)
    key = f"{request.request_id}:{target}:address"
    write = functools.partial(
        tool.write,
        subject=target,
        address=request.new_address,
        policy=policy,
        request_id=request.request_id,
        expected_version=request.planned_version,
        key=key,
    )
    try:
        receipt = write()
    except CommitTimeout:
        receipt = write()
        if receipt.get("replayed"):
            trace.detect(
                "idempotent_retry", Checkpoint.ACTION, "timeout resolved: commit found under key"
            )

    if not receipt.get("ok"):
        trace.observe(
            Checkpoint.ACTION,
            Validity.INVALID,
            f"planned on v{request.planned_version}, store at v{receipt['current_version']}",
        )
        trace.detect("compare_and_set_gate", Checkpoint.ACTION, "version conflict; write refused")
        return _finish("bounded", fault, store, trace, OutcomeState.NO_EFFECT)
    trace.observe(
        Checkpoint.ACTION, _ok(world_contract(store.snapshot())), f"receipt v{receipt['version']}"
    )

    seen = tool.read(target)
    if seen is None:
        trace.observe(Checkpoint.EVIDENCE, Validity.SUSPECT, "authoritative readback unavailable")
        trace.detect(
            "unknown_outcome_gate", Checkpoint.EVIDENCE, "no observation; success withheld"
        )
        store.reconciliation.append(
            {"request_id": request.request_id, "subject": target, "reason": "readback_unavailable"}
        )
        return _finish("bounded", fault, store, trace, OutcomeState.RECONCILIATION_REQUIRED)
    matches = seen["address"] == request.new_address and seen["version"] == receipt["version"]
    trace.observe(Checkpoint.EVIDENCE, _ok(matches), "readback compared with receipt")
    if not matches:
        store.reconciliation.append(
            {"request_id": request.request_id, "subject": target, "reason": "readback_mismatch"}
        )
        return _finish("bounded", fault, store, trace, OutcomeState.RECONCILIATION_REQUIRED)
    return _finish("bounded", fault, store, trace, OutcomeState.VERIFIED)


RUNNERS = {"weak": run_weak, "bounded": run_bounded}
