"""The address service the workflows call, and the injector that makes it misbehave."""

from __future__ import annotations

from typing import TypedDict

from sscbench.faults.typed import (
    Checkpoint,
    Trace,
)
from sscbench.lab.address.catalogue import (
    INTERVENING_UPDATE,
    READBACK_UNAVAILABLE,
    STALE_POLICY,
    SUBJECT_SWAP,
    TIMEOUT_AFTER_COMMIT,
)
from sscbench.lab.address.store import (
    BYSTANDER,
    INTERVENING_ADDRESS,
    SUPERSEDED_POLICY,
    Receipt,
    Store,
)


class Readback(TypedDict):
    """A customer's record as the service reads it back."""

    subject: str
    address: str
    version: int


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
    ) -> Receipt:
        if key is not None and key in self.store.idempotency:
            replay = self.store.idempotency[key].copy()
            replay["replayed"] = True
            return replay
        rec = self.store.records[subject]
        if expected_version is not None and rec.version != expected_version:
            return {"ok": False, "reason": "version_conflict", "current_version": rec.version}
        rec.address = address
        rec.version += 1
        receipt: Receipt = {
            "ok": True,
            "subject": subject,
            "address": address,
            "version": rec.version,
        }
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
            self.store.idempotency[key] = receipt.copy()
        self.injector.after_commit()
        answer = receipt.copy()
        answer["replayed"] = False
        return answer

    def read(self, subject: str) -> Readback | None:
        if self.injector.readback_blocked():
            return None
        rec = self.store.records[subject]
        return {"subject": subject, "address": rec.address, "version": rec.version}
