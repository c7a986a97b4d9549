"""Verification-surface families: the evidence used to declare completion is damaged.

* ``CorruptedReceipt`` — the write is lost (rolled back after it ran) while its full
  success receipt is delivered. The read-back comes from the authoritative store and
  refutes the receipt: this is the independent-source variant.
* ``SameSourceReadback`` — the same lost write, but the read-backs of the record are
  served from the same corrupted source as the receipt, so receipt and read-back agree
  on the wrong value ("the verifier that drinks from the same well"). A read-back
  barrier cannot hold here; only an independent source could. Run beside
  ``CorruptedReceipt`` it is the paired contrast: same fault, verifier dependent vs
  independent.
"""

from __future__ import annotations

from sscbench.core.injection import Injection
from sscbench.faults.case import Case
from sscbench.faults.families import _Family
from sscbench.faults.lost_writes import SharedSource, lost_write_hook, same_source_readback_hook
from sscbench.world.world import World


def _real(receipt: str) -> str | None:
    return None  # the real receipt of the write that was then lost


class CorruptedReceipt(_Family):
    """A success receipt for a write the store lost; the authoritative read-back refutes it."""

    name = "CorruptedReceipt"

    def injections(self, case: Case, world: World, seed: int = 0) -> list[Injection]:
        return [lost_write_hook(case, seed, "receipt", _real)]


class SameSourceReadback(_Family):
    """A lost write whose read-back is served from the same corrupted source as its receipt."""

    name = "SameSourceReadback"

    def injections(self, case: Case, world: World, seed: int = 0) -> list[Injection]:
        shared = SharedSource()
        return [
            lost_write_hook(case, seed, "receipt", _real, shared),
            same_source_readback_hook(case, world, shared),
        ]
