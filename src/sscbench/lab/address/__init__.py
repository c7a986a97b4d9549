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

The package: ``store`` (the world: store, request, verdict), ``catalogue`` (the five
typed fault families), ``service`` (the address service and its injector), ``systems``
(the weak and bounded workflows) and ``harness`` (the suite, its JSON and summary).
"""

from __future__ import annotations

from sscbench.lab.address.catalogue import (
    CATALOGUE,
    FAULTS,
    INTERVENING_UPDATE,
    READBACK_UNAVAILABLE,
    STALE_POLICY,
    SUBJECT_SWAP,
    TIMEOUT_AFTER_COMMIT,
)
from sscbench.lab.address.harness import (
    ContainmentBreach,
    LabResult,
    run_lab,
    summary_line,
)
from sscbench.lab.address.service import (
    AddressService,
    CommitTimeout,
    Injector,
)
from sscbench.lab.address.store import (
    BASELINE,
    BASELINE_SNAPSHOT,
    BYSTANDER,
    CONTROL,
    CURRENT_POLICY,
    CUSTOMER,
    INTERVENING_ADDRESS,
    NEW_ADDRESS,
    PLANNED_VERSION,
    SUPERSEDED_POLICY,
    SYSTEMS,
    Customer,
    Request,
    Store,
    goal_met,
    world_contract,
)
from sscbench.lab.address.systems import (
    RUNNERS,
    run_bounded,
    run_weak,
)

__all__ = [
    "BASELINE",
    "BASELINE_SNAPSHOT",
    "BYSTANDER",
    "CATALOGUE",
    "CONTROL",
    "CURRENT_POLICY",
    "CUSTOMER",
    "FAULTS",
    "INTERVENING_ADDRESS",
    "INTERVENING_UPDATE",
    "NEW_ADDRESS",
    "PLANNED_VERSION",
    "READBACK_UNAVAILABLE",
    "RUNNERS",
    "STALE_POLICY",
    "SUBJECT_SWAP",
    "SUPERSEDED_POLICY",
    "SYSTEMS",
    "TIMEOUT_AFTER_COMMIT",
    "AddressService",
    "CommitTimeout",
    "ContainmentBreach",
    "Customer",
    "Injector",
    "LabResult",
    "Request",
    "Store",
    "goal_met",
    "run_bounded",
    "run_lab",
    "run_weak",
    "summary_line",
    "world_contract",
]
