"""The laboratory's world: a tiny in-memory customer store, the request, the world's verdict."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import NotRequired

from typing_extensions import TypedDict

SYSTEMS = ("weak", "bounded")
CONTROL = "control"

CUSTOMER = "C-101"
BYSTANDER = "C-202"
NEW_ADDRESS = "15 Station Road"
INTERVENING_ADDRESS = "3 Quay Street"
CURRENT_POLICY = "ADDR-POL-v9"
SUPERSEDED_POLICY = "ADDR-POL-v8"
PLANNED_VERSION = 4


@dataclass
class Customer:
    address: str
    version: int


class CustomerRecord(TypedDict):
    """A customer as the world's snapshot holds it."""

    address: str
    version: int


class AuditEntry(TypedDict):
    """A write to the store: the agent's (with its policy and request) or an external one."""

    kind: str  # "agent_write" | "external_write"
    subject: str
    version: int
    policy: NotRequired[str]
    request_id: NotRequired[str]


class Receipt(TypedDict, total=False):
    """What the address service answers to a write."""

    ok: bool
    subject: str
    address: str
    version: int
    replayed: bool
    reason: str
    current_version: int


class ReconciliationItem(TypedDict):
    """An outcome the workflow could not verify, filed for a human."""

    request_id: str
    subject: str
    reason: str


class World(TypedDict):
    """The store's state after a trial (what the oracles judge)."""

    records: dict[str, CustomerRecord]
    current_policy: str
    audit: list[AuditEntry]
    notifications: list[str]
    idempotency: dict[str, Receipt]
    reconciliation: list[ReconciliationItem]


@dataclass
class Store:
    records: dict[str, Customer]
    current_policy: str
    superseded: dict[str, str]
    audit: list[AuditEntry] = field(default_factory=list)
    notifications: list[str] = field(default_factory=list)
    idempotency: dict[str, Receipt] = field(default_factory=dict)
    reconciliation: list[ReconciliationItem] = field(default_factory=list)

    def snapshot(self) -> World:
        return {
            "records": {
                k: CustomerRecord(address=v.address, version=v.version)
                for k, v in sorted(self.records.items())
            },
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
BASELINE_SNAPSHOT = BASELINE.snapshot()


@dataclass(frozen=True)
class Request:
    request_id: str = "REQ-0042"
    actor: str = "user-7"
    authenticated_subject: str = CUSTOMER
    requested_subject: str = CUSTOMER
    new_address: str = NEW_ADDRESS
    supplied_policy: str = CURRENT_POLICY
    planned_version: int = PLANNED_VERSION


def world_contract(world: World) -> bool:
    """Acceptable world state: bystander untouched, at most one agent write,
    every agent write under the current policy, no external write clobbered."""
    base = BASELINE_SNAPSHOT["records"][BYSTANDER]
    if world["records"][BYSTANDER] != base:
        return False
    agent_writes = [e for e in world["audit"] if e["kind"] == "agent_write"]
    if len(agent_writes) > 1:
        return False
    if any(e.get("policy") != world["current_policy"] for e in agent_writes):
        return False
    seen_external: set[str] = set()
    for entry in world["audit"]:
        if entry["kind"] == "external_write":
            seen_external.add(entry["subject"])
        elif entry["subject"] in seen_external:
            return False
    return True


def goal_met(world: World) -> bool:
    return world["records"][CUSTOMER]["address"] == NEW_ADDRESS
