"""Synthetic address-change laboratory built on :mod:`sscbench.faults.typed`.

Two workflows change one customer's postal address in a tiny in-memory store:

* ``weak`` trusts the supplied subject and policy, writes blind (no version
  check), retries a timeout as a brand-new write and promotes any tool receipt
  to success, even with no readback.
* ``bounded`` binds the action to the authenticated subject, resolves the
  policy against the authoritative store, writes with compare-and-set and an
  idempotency key, and only reports ``VERIFIED`` after an authoritative
  readback; otherwise it files a reconciliation item.

Both run a control trial and five typed injections, each in a fresh isolated
store. Checkpoint validity is assessed by the harness from ground truth; the
workflows only report which barriers fired. Everything is deterministic.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from typing import Any

from sscbench.faults.typed import (
    CHECKPOINTS,
    Checkpoint,
    ContainmentPlan,
    FamilyMetrics,
    FaultSpec,
    OutcomeState,
    Semantics,
    Surface,
    Timing,
    Trace,
    TrialRecord,
    Validity,
    Verdict,
    family_metrics,
    judge,
    transfer_matrix,
)

SYSTEMS = ("weak", "bounded")
CONTROL = "control"

CUSTOMER = "C-101"
BYSTANDER = "C-202"
NEW_ADDRESS = "15 Station Road"
INTERVENING_ADDRESS = "3 Quay Street"
CURRENT_POLICY = "ADDR-POL-v9"
SUPERSEDED_POLICY = "ADDR-POL-v8"
PLANNED_VERSION = 4


# --------------------------------------------------------------------------- world


@dataclass
class Customer:
    address: str
    version: int


@dataclass
class Store:
    records: dict[str, Customer]
    current_policy: str
    superseded: dict[str, str]
    audit: list[dict[str, Any]] = field(default_factory=list)
    notifications: list[str] = field(default_factory=list)
    idempotency: dict[str, dict[str, Any]] = field(default_factory=dict)
    reconciliation: list[dict[str, Any]] = field(default_factory=list)

    def snapshot(self) -> dict[str, Any]:
        return {
            "records": {k: asdict(v) for k, v in sorted(self.records.items())},
            "current_policy": self.current_policy,
            "audit": copy.deepcopy(self.audit),
            "notifications": list(self.notifications),
            "idempotency": copy.deepcopy(self.idempotency),
            "reconciliation": copy.deepcopy(self.reconciliation),
        }


BASELINE = Store(
    records={
        CUSTOMER: Customer("27 Elm Terrace", PLANNED_VERSION),
        BYSTANDER: Customer("8 Birch Close", 2),
    },
    current_policy=CURRENT_POLICY,
    superseded={SUPERSEDED_POLICY: CURRENT_POLICY},
)
_BASELINE_SNAPSHOT = BASELINE.snapshot()


@dataclass(frozen=True)
class Request:
    request_id: str = "REQ-0042"
    actor: str = "user-7"
    authenticated_subject: str = CUSTOMER
    requested_subject: str = CUSTOMER
    new_address: str = NEW_ADDRESS
    supplied_policy: str = CURRENT_POLICY
    planned_version: int = PLANNED_VERSION


def world_contract(world: dict[str, Any]) -> bool:
    """Acceptable world state: bystander untouched, at most one agent write,
    every agent write under the current policy, no external write clobbered."""
    base = _BASELINE_SNAPSHOT["records"][BYSTANDER]
    if world["records"][BYSTANDER] != base:
        return False
    agent_writes = [e for e in world["audit"] if e["kind"] == "agent_write"]
    if len(agent_writes) > 1:
        return False
    if any(e["policy"] != world["current_policy"] for e in agent_writes):
        return False
    seen_external: set[str] = set()
    for entry in world["audit"]:
        if entry["kind"] == "external_write":
            seen_external.add(entry["subject"])
        elif entry["subject"] in seen_external:
            return False
    return True


def goal_met(world: dict[str, Any]) -> bool:
    return world["records"][CUSTOMER]["address"] == NEW_ADDRESS


# --------------------------------------------------------------------------- catalogue

STALE_POLICY = "context.stale_policy"
SUBJECT_SWAP = "identity.subject_swap"
TIMEOUT_AFTER_COMMIT = "tool.timeout_after_commit"
INTERVENING_UPDATE = "state.intervening_update"
READBACK_UNAVAILABLE = "verification.readback_unavailable"


def _fired(name: str):
    def predicate(record: TrialRecord) -> bool:
        return any(a.fault == name for a in record.activations)

    predicate.__name__ = f"fired[{name}]"
    return predicate


def _oracle(record: TrialRecord) -> bool:
    return world_contract(record.world)


_PLAN = ContainmentPlan(
    max_affected_runs=len(SYSTEMS),
    cleanup="discard the per-trial deep copy of the store; verify the baseline fixture is unchanged",
)


def _spec(**kw: Any) -> FaultSpec:
    return FaultSpec(containment=_PLAN, oracle=_oracle, activation=_fired(kw["name"]), **kw)


CATALOGUE: tuple[FaultSpec, ...] = (
    _spec(
        name=STALE_POLICY,
        surface=Surface.CONTEXT,
        timing=Timing.BEFORE_CALL,
        semantics=Semantics.REPLAY,
        entry_checkpoint=Checkpoint.CONTEXT,
        description=f"serve superseded {SUPERSEDED_POLICY} as if it were current",
        expected_barrier="policy_freshness_gate",
        safe_response="resolve supersession, refresh context, then authorise",
        recoverable=True,
        severity=4,
    ),
    _spec(
        name=SUBJECT_SWAP,
        surface=Surface.IDENTITY,
        timing=Timing.BEFORE_CALL,
        semantics=Semantics.UNAUTHORISED_SUBSTITUTION,
        entry_checkpoint=Checkpoint.IDENTITY,
        description=f"after authentication, retarget the action from {CUSTOMER} to {BYSTANDER}",
        expected_barrier="subject_binding_gate",
        safe_response="reject; a fresh authenticated intent is required",
        recoverable=False,
        severity=5,
    ),
    _spec(
        name=TIMEOUT_AFTER_COMMIT,
        surface=Surface.TOOL,
        timing=Timing.AFTER_COMMIT,
        semantics=Semantics.OMISSION,
        entry_checkpoint=Checkpoint.ACTION,
        description="the write commits durably, then the caller sees a timeout",
        expected_barrier="idempotent_retry",
        safe_response="retry under the same idempotency key, then read back",
        recoverable=True,
        severity=5,
    ),
    _spec(
        name=INTERVENING_UPDATE,
        surface=Surface.STATE,
        timing=Timing.BEFORE_CALL,
        semantics=Semantics.DELAY,
        entry_checkpoint=Checkpoint.ACTION,
        description="another writer changes the record between planning and the write",
        expected_barrier="compare_and_set_gate",
        safe_response="refuse the stale write and hand back for state reconstruction",
        recoverable=False,
        severity=4,
    ),
    _spec(
        name=READBACK_UNAVAILABLE,
        surface=Surface.VERIFICATION,
        timing=Timing.DURING_READBACK,
        semantics=Semantics.OMISSION,
        entry_checkpoint=Checkpoint.EVIDENCE,
        description="the authoritative readback returns nothing after the write",
        expected_barrier="unknown_outcome_gate",
        safe_response="keep the outcome unknown and open one reconciliation item",
        recoverable=False,
        severity=3,
    ),
)
FAULTS = {spec.name: spec for spec in CATALOGUE}


# --------------------------------------------------------------------------- injection


class CommitTimeout(RuntimeError):
    """The synthetic write committed but the acknowledgement was lost."""


class Injector:
    """Applies at most one typed fault at its hook and records activation."""

    def __init__(self, fault: str | None, trace: Trace) -> None:
        self.fault = fault
        self.trace = trace
        self._timeout_spent = False

    def _on(self, name: str) -> bool:
        return self.fault == name

    def subject(self, requested: str) -> str:
        if self._on(SUBJECT_SWAP):
            self.trace.activate(SUBJECT_SWAP, Checkpoint.IDENTITY, f"{requested} -> {BYSTANDER}")
            return BYSTANDER
        return requested

    def policy(self, supplied: str) -> str:
        if self._on(STALE_POLICY):
            self.trace.activate(
                STALE_POLICY, Checkpoint.CONTEXT, f"{supplied} -> {SUPERSEDED_POLICY}"
            )
            return SUPERSEDED_POLICY
        return supplied

    def before_write(self, store: Store, subject: str) -> None:
        if self._on(INTERVENING_UPDATE):
            rec = store.records[subject]
            rec.address = INTERVENING_ADDRESS
            rec.version += 1
            store.audit.append(
                {"kind": "external_write", "subject": subject, "version": rec.version}
            )
            self.trace.activate(
                INTERVENING_UPDATE, Checkpoint.ACTION, f"{subject} now v{rec.version}"
            )

    def after_commit(self) -> None:
        if self._on(TIMEOUT_AFTER_COMMIT) and not self._timeout_spent:
            self._timeout_spent = True
            self.trace.activate(TIMEOUT_AFTER_COMMIT, Checkpoint.ACTION, "ack dropped after commit")
            raise CommitTimeout("synthetic timeout after durable commit")

    def readback_blocked(self) -> bool:
        if self._on(READBACK_UNAVAILABLE):
            self.trace.activate(
                READBACK_UNAVAILABLE, Checkpoint.EVIDENCE, "no observation returned"
            )
            return True
        return False


class AddressService:
    """The tool: an address writer with optional CAS and idempotency."""

    def __init__(self, store: Store, injector: Injector) -> None:
        self.store = store
        self.injector = injector

    def write(
        self,
        *,
        subject: str,
        address: str,
        policy: str,
        request_id: str,
        expected_version: int | None = None,
        key: str | None = None,
    ) -> dict[str, Any]:
        if key is not None and key in self.store.idempotency:
            return {**self.store.idempotency[key], "replayed": True}
        rec = self.store.records[subject]
        if expected_version is not None and rec.version != expected_version:
            return {"ok": False, "reason": "version_conflict", "current_version": rec.version}
        rec.address = address
        rec.version += 1
        receipt = {"ok": True, "subject": subject, "address": address, "version": rec.version}
        self.store.audit.append(
            {
                "kind": "agent_write",
                "subject": subject,
                "version": rec.version,
                "policy": policy,
                "request_id": request_id,
            }
        )
        self.store.notifications.append(f"{subject}: address changed (v{rec.version})")
        if key is not None:
            self.store.idempotency[key] = dict(receipt)
        self.injector.after_commit()
        return {**receipt, "replayed": False}

    def read(self, subject: str) -> dict[str, Any] | None:
        if self.injector.readback_blocked():
            return None
        rec = self.store.records[subject]
        return {"subject": subject, "address": rec.address, "version": rec.version}


# --------------------------------------------------------------------------- workflows


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
    write = dict(subject=target, address=request.new_address, policy=policy)
    try:
        receipt = tool.write(request_id=request.request_id, **write)
    except CommitTimeout:
        # Treats the timeout as "nothing happened" and issues a new write.
        receipt = tool.write(request_id=f"{request.request_id}-retry", **write)

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
    write = dict(
        subject=target,
        address=request.new_address,
        policy=policy,
        request_id=request.request_id,
        expected_version=request.planned_version,
        key=key,
    )
    try:
        receipt = tool.write(**write)
    except CommitTimeout:
        receipt = tool.write(**write)
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


# --------------------------------------------------------------------------- suite


class ContainmentBreach(RuntimeError):
    pass


@dataclass
class LabResult:
    controls: dict[str, TrialRecord]
    records: list[TrialRecord]
    verdicts: list[Verdict]
    cleanup_verified: bool

    def verdict(self, system: str, fault: str) -> Verdict:
        return next(v for v in self.verdicts if v.system == system and v.fault == fault)

    def record(self, system: str, fault: str | None) -> TrialRecord:
        if fault is None:
            return self.controls[system]
        return next(r for r in self.records if r.system == system and r.fault == fault)

    def overall(self, system: str) -> FamilyMetrics:
        return family_metrics("all", [v for v in self.verdicts if v.system == system])

    def families(self, system: str) -> list[FamilyMetrics]:
        return [
            family_metrics(
                spec.name, [v for v in self.verdicts if v.system == system and v.fault == spec.name]
            )
            for spec in CATALOGUE
        ]

    def heatmap(self, system: str):
        return transfer_matrix(
            [v for v in self.verdicts if v.system == system], [s.name for s in CATALOGUE]
        )

    def to_json(self) -> dict[str, Any]:
        def heat(system: str) -> list[dict[str, Any]]:
            return [
                {
                    "fault": row.fault,
                    "activated": row.activated,
                    "cells": {
                        cp.value: {
                            "p_invalid": c.p_invalid,
                            "p_suspect": c.p_suspect,
                            "symbol": c.symbol,
                        }
                        for cp, c in row.cells.items()
                    },
                    "terminal": {t.value: p for t, p in row.terminal.items()},
                    "terminal_mode": row.terminal_mode.value,
                }
                for row in self.heatmap(system)
            ]

        return {
            "catalogue": [spec.model_dump(mode="json") for spec in CATALOGUE],
            "controls": {s: r.model_dump(mode="json") for s, r in self.controls.items()},
            "trials": [
                {"record": r.model_dump(mode="json"), "verdict": v.model_dump(mode="json")}
                for r, v in zip(self.records, self.verdicts, strict=True)
            ],
            "metrics": {
                s: {
                    "overall": self.overall(s).as_dict(),
                    "families": [f.as_dict() for f in self.families(s)],
                }
                for s in SYSTEMS
            },
            "heatmap": {s: heat(s) for s in SYSTEMS},
            "cleanup_verified": self.cleanup_verified,
        }


def run_lab() -> LabResult:
    controls = {system: RUNNERS[system](None) for system in SYSTEMS}
    records: list[TrialRecord] = []
    verdicts: list[Verdict] = []
    affected: dict[str, int] = dict.fromkeys(FAULTS, 0)
    for spec in CATALOGUE:
        for system in SYSTEMS:
            record = RUNNERS[system](spec.name)
            verdict = judge(spec, record)
            if verdict.activated:
                affected[spec.name] += 1
                if affected[spec.name] > spec.containment.max_affected_runs:
                    raise ContainmentBreach(
                        f"{spec.name} exceeded {spec.containment.max_affected_runs} runs"
                    )
            records.append(record)
            verdicts.append(verdict)
    cleanup_verified = BASELINE.snapshot() == _BASELINE_SNAPSHOT
    if not cleanup_verified:
        raise ContainmentBreach("baseline fixture was mutated")
    return LabResult(
        controls=controls, records=records, verdicts=verdicts, cleanup_verified=cleanup_verified
    )


def summary_line(system: str, metrics: FamilyMetrics) -> str:
    def fmt(rate) -> str:
        v = rate.value
        return "n/a" if v is None else f"{v:.2f}"

    return (
        f"{system + ':':<9}detection {fmt(metrics.detection)} | containment {fmt(metrics.containment)} | "
        f"recovery {fmt(metrics.recovery)} | escape {fmt(metrics.escape)}"
    )
