"""Checks a scripted agent makes on the record a write rests on, before it writes.

* **Schema validation** (``Profile.schema_check``): the record the block holds (the
  latest read of it) is compared with the
  contract of its kind (:data:`RECORD_CONTRACT`: field names, JSON types, and domains —
  a known order status, a non-empty list, an address with its keys, a count >= 0).
  ``"names"`` checks only that every contract field is there under its name; ``"full"``
  checks name, type and domain. A record failing the check is read once more; when the
  fresh answer fails too, it is not acted on: the agent says which field it could not
  find and makes no change. Without a check (``"off"``)
  the agent goes on with what it has, filling what is missing from defaults — as an
  agent that fills a missing field from conversation memory does.
* **Freshness** (``Profile.freshness_check``): right before a write whose tool checks no
  record state of its own (τ-bench's reservation writes) — after the user confirmed it,
  just before the call — the record is read again and
  compared with the read the plan rests on; a record that changed in between is not
  written: the agent reports what it now shows and makes no change. Writes whose tool
  refuses a record in the wrong state (the retail order writes) rely on that refusal.

A clean record passes both checks, so every other fault and every clean run behaves as
before (the freshness re-read is one more read before a reservation write).
"""

from __future__ import annotations

from collections.abc import Callable

from sscbench.agents.scripted.transcript import Block, Script
from sscbench.agents.scripted.turns import Turns
from sscbench.agents.scripted_plan import PlanStep
from sscbench.json_types import JsonObject, JsonValue
from sscbench.world.records import READ_TOOLS, RESERVATION_WRITES

ORDER_STATUSES = frozenset(
    {
        "pending",
        "pending (item modified)",
        "processed",
        "delivered",
        "cancelled",
        "return requested",
        "exchange requested",
    }
)
_ADDRESS_KEYS = ("address1", "city", "country", "zip")


# The domains are asked only of a value of the field's JSON type (checked first).


def _nonempty(value: JsonValue) -> bool:
    return isinstance(value, (list, dict)) and len(value) > 0


def _address(value: JsonValue) -> bool:
    return isinstance(value, dict) and all(
        isinstance(value.get(k), str) and value.get(k) for k in _ADDRESS_KEYS
    )


def _count(value: JsonValue) -> bool:
    return isinstance(value, int) and value >= 0


Field = tuple[type, Callable[[JsonValue], bool]]
"""A contract field: its JSON type and the domain its value must lie in."""

RECORD_CONTRACT: dict[str, dict[str, Field]] = {
    "order": {
        "status": (str, lambda v: v in ORDER_STATUSES),
        "items": (list, _nonempty),
        "address": (dict, _address),
        "payment_history": (list, _nonempty),
    },
    "reservation": {
        "flights": (list, _nonempty),
        "passengers": (list, _nonempty),
        "total_baggages": (int, _count),
        "nonfree_baggages": (int, _count),
        "payment_history": (list, _nonempty),
        "cabin": (str, lambda v: v in ("basic_economy", "economy", "business")),
    },
    "user": {
        "address": (dict, _address),
        "payment_methods": (dict, _nonempty),
    },
}
"""Per record kind, the fields a write rests on, with their types and domains."""


def contract_problem(kind: str, record: JsonObject, level: str) -> tuple[str, str] | None:
    """The first contract field ``record`` fails at check ``level`` ("names" or "full"),
    with what is wrong with it; None when it passes (or the kind has no contract)."""
    for name, (json_type, in_domain) in RECORD_CONTRACT.get(kind, {}).items():
        if name not in record:
            return name, "missing"
        if level == "names":
            continue
        value = record[name]
        if not isinstance(value, json_type) or isinstance(value, bool):
            return name, f"of the wrong type ({type(value).__name__})"
        if not in_domain(value):
            return name, f"with an impossible value ({value!r})"
    return None


class RecordChecks(Turns):
    """The schema and freshness checks of a write block."""

    def _record_passes_schema(self, step: PlanStep, kind: str, block: Block) -> Script[bool]:
        """Whether the write may rest on the record the block holds (re-read once when it
        fails the contract: the answer may have been a passing glitch); when not, the
        refusal was said."""
        level = self.profile.schema_check
        held = block.user if kind == "user" else block.record
        if level == "off" or held is None or held.error or not held.record:
            return True
        problem = contract_problem(kind, held.record, level)
        if problem is None:
            return True
        read = READ_TOOLS[kind]
        rid = (
            step.kwargs.get(read.id_argument)
            if kind != "user"
            else held.arguments.get(read.id_argument)
        )
        again = yield from self._call(read.tool, {read.id_argument: rid}, "schema_recheck")
        if not again.error and again.record:
            problem = contract_problem(kind, again.record, level)
            if problem is None:
                if kind == "user":
                    block.user = again
                else:
                    block.record = again
                return True
        field, what = problem
        yield from self._say(
            f"The system returned {kind} {rid} with its '{field}' field {what}, so I cannot "
            "check this change against the record. I have not made the change: no change "
            "was made. Please try again later or contact support."
        )
        return False

    def _record_is_fresh(self, step: PlanStep, kind: str, block: Block) -> Script[bool]:
        """Re-read the record right before a write whose tool checks no state; whether it is
        unchanged since the read the plan rests on (block.record becomes the re-read). When
        it changed, the agent said so and makes no change."""
        if (
            not self.profile.freshness_check
            or step.name not in RESERVATION_WRITES
            or block.record is None
            or block.record.error
        ):
            return True
        read = READ_TOOLS[kind]
        rid = step.kwargs.get(read.id_argument)
        fresh = yield from self._call(read.tool, {read.id_argument: rid}, "freshness")
        if fresh is None or fresh.error or not fresh.record:
            return True  # nothing fresher to compare with: the plan's read stands
        before = block.record.record
        if fresh.record == before:
            block.record = fresh
            return True
        changed = sorted(
            k for k in {*before, *fresh.record} if before.get(k) != fresh.record.get(k)
        )
        shown = (
            f"status '{fresh.record['status']}'"
            if "status" in changed and isinstance(fresh.record.get("status"), str)
            else "changed " + ", ".join(changed)
        )
        yield from self._say(
            f"I read {kind} {rid} again right before changing it, and it changed since my first "
            f"read: it now shows {shown}. The change would rest on an outdated record, so I "
            "have not made it: no change was made."
        )
        return False


__all__ = ["ORDER_STATUSES", "RECORD_CONTRACT", "RecordChecks", "contract_problem"]
