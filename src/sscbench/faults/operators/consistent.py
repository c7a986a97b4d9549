"""The contradiction-relation variant of ItemOption and WriteEffect (the paper's second
paired check, ``[world] consistent_source``): hooks under which the authoritative source
agrees with the injected assertion, so nothing the agent can read refutes it. The state
is never changed; :mod:`sscbench.run.executor` adds the hooks before the fault's own.
"""

from __future__ import annotations

import json

from sscbench.core.injection import Injection, RewriteHook
from sscbench.faults.operators.base import json_read_injection
from sscbench.json_types import JsonObject, JsonValue
from sscbench.reading import loads_json
from sscbench.references.write_derived import matches
from sscbench.world.state import WorldState
from sscbench.world.world import World

PRODUCT = "get_product_details"
WRITE = "update_reservation_flights"
READ = "get_reservation_details"


def consistent_product(
    item_id: str, injected: dict[str, JsonValue], product_id: str, hook_id: str
) -> Injection:
    """The contradiction-relation variant: every read of the item's product shows the
    ordered item's variant with the injected options, so the authoritative source
    agrees with v′ and nothing the agent can read refutes it (the paper's paired check).
    The state is never changed."""

    def mutate(data: JsonObject) -> bool:
        variants = data["variants"]
        variant = variants[item_id] if isinstance(variants, dict) else None
        if not isinstance(variant, dict) or variant.get("options") == injected:
            return False
        variant["options"] = dict(injected)
        return True

    hook = json_read_injection(f"{hook_id}:consistent", PRODUCT, "product_id", product_id, mutate)
    hook.persistent = True
    return hook


def _as_acknowledged(live: JsonObject, before: object, acked: object) -> JsonObject:
    """The live record with the acknowledged change laid over it: each field the
    acknowledgement changed shows its acknowledged value while the live field still
    holds the value from before the attempt; a list that only grew since (a payment
    history) shows the acknowledged list plus what was appended; a field something else
    changed shows as it is."""
    if not isinstance(before, dict) or not isinstance(acked, dict):
        return live
    out = dict(live)
    for key, value in acked.items():
        old = before.get(key)
        if value == old or key not in live:
            continue
        now = live[key]
        if now == old:
            out[key] = value
        elif isinstance(now, list) and isinstance(old, list) and now[: len(old)] == old:
            out[key] = [*value, *now[len(old) :]] if isinstance(value, list) else now
    return out


def consistent_readback(request: JsonObject, world: World, hook_id: str) -> Injection:
    """The contradiction-relation variant: once the suppressed request was attempted,
    reads of the reservation show the change the acknowledgement describes on top of
    whatever else happened to the record since (:func:`_as_acknowledged`), so the
    read-back agrees with the acknowledgement (the paper's paired check). Reads
    before the attempt are untouched; the state is never changed.

    The hook must come before the fault's own hook: its matcher sees the attempt
    before the suppressing hook takes it, and computes the committed record then
    (the write run on the live state and rolled back at once).
    """
    rid = str(request["reservation_id"])
    tool = world.tools.specs[WRITE].func
    shown: dict[str, object] = {}  # "acked": committed record, "before": the record then

    def match(name: str, arguments: object, state: WorldState) -> bool:
        if name == WRITE and matches(request, arguments) and "acked" not in shown:
            before = state.get("reservations", rid)
            snapshot = state.snapshot()
            try:
                acknowledgement = tool(state, **dict(arguments))  # type: ignore[call-overload]
            except Exception:  # a request the tool refuses commits nothing
                acknowledgement = "Error"
            finally:
                state.restore(snapshot)
            if isinstance(acknowledgement, str) and not acknowledgement.startswith("Error"):
                shown.update(acked=loads_json(acknowledgement, max_depth=None), before=before)
            return False
        return (
            "acked" in shown
            and name == READ
            and isinstance(arguments, dict)
            and arguments.get("reservation_id") == rid
        )

    def rewrite(observation: str, _arguments: object, state: WorldState) -> str | None:
        live = state.get("reservations", rid)
        if not isinstance(live, dict):
            return None
        return json.dumps(_as_acknowledged(live, shown["before"], shown["acked"]))

    return RewriteHook(f"{hook_id}:consistent", match=match, rewrite=rewrite, persistent=True)
