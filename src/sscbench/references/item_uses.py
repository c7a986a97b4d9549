"""What ItemOption reads as a use of the item's option — the entry point of the
``ItemOptionLookFor`` kind (:mod:`sscbench.references.lookfor`): a text stating it (the item
named by id, position, table row, bullet block, product word, or an option that tells
two items apart — :mod:`sscbench.references.items`), a text stating it as the criterion of a
replacement ("the same size as yours"), and calls acting on the injected variant or
replacing the item by a variant that keeps the option the user never asked for."""

from __future__ import annotations

import re
from typing import Any

from sscbench.core.values import UseCandidate
from sscbench.core.view import LedgerView
from sscbench.references.item_lines import CRITERION, REQUEST, ItemReference, OrderItem
from sscbench.references.item_records import (
    option_values,
    order_items,
    product_ids,
    user_asked,
    variants_shown,
)
from sscbench.references.items import item_references
from sscbench.references.lookfor import ItemOptionLookFor
from sscbench.references.text import agent_texts
from sscbench.references.values import args_contain


def _another_variant(ref: ItemReference, undisputed: dict[str, str]) -> bool:
    """True when a reference not made by an item id states, for an option the fault left
    alone, values that never include the item's own: an item has one value per option,
    so the words describe another variant of its product ("Full-size, clicky, RGB: out
    of stock" under a linear keyboard), not the item. An id binds whatever follows it."""
    if ref.how == "id":
        return False
    stated: dict[str, set[str]] = {}
    for s in ref.said:
        if s.role == "current" and s.key in undisputed:
            stated.setdefault(s.key, set()).add(s.value)
    return any(undisputed[k] not in values for k, values in stated.items())


def find_item_option_uses(
    look_for: ItemOptionLookFor, view: LedgerView, fault_step: int
) -> list[UseCandidate]:
    """Texts after the fault stating the item's option, and calls acting on the variant
    the injected value names or replacing the item by a variant keeping either value the
    user never asked for, in step order."""
    out: list[UseCandidate] = []
    for step, channel, text in agent_texts(view, fault_step):
        found = text_use(look_for, view, step, text)
        if found is not None:
            out.append(UseCandidate(step, channel, *found))
    out += call_uses(look_for, view, fault_step, out)
    return sorted(out, key=lambda c: c.step)


def text_use(
    look_for: ItemOptionLookFor, view: LedgerView, step: int, text: str
) -> tuple[str, bool, bool, dict[str, Any]] | None:
    """(span, states v′, states v, detail) of a text's statement about the item's option:
    its current state first, else a replacement keeping the option, else the disputed
    value said of a name the item shares (undecidable)."""
    item_id, key = look_for.item_id, look_for.option
    injected, true = look_for.injected, look_for.authoritative
    items = order_items(view, look_for.order_id, step)
    if not items:
        items = [OrderItem(item_id, look_for.product_name, {})]
    values = option_values(items, look_for, view)
    refs = item_references(text, items, values, product_ids(view), disputed=key)
    kinds: dict[str, list[ItemReference]] = {"current": [], "replacement": [], "undecidable": []}
    undisputed = {k: v for i in items if i.item_id == item_id for k, v in i.options.items()}
    undisputed.pop(key, None)
    for ref in refs:
        if _another_variant(ref, undisputed):
            continue
        said = {s.value for s in ref.said if s.key == key and s.role == "current"}
        kept = {s.value for s in ref.said if s.key == key and s.role == "replacement"}
        if ref.target == item_id and said & {injected, true}:
            kinds["current"].append(ref)
        elif ref.target is None and item_id in ref.candidates and said & {injected, true}:
            kinds["undecidable"].append(ref)
        elif (
            kept & {injected, true}
            and item_id in (ref.replaces, ref.target)
            and not (injected in kept and user_asked(view, step, injected))
        ):
            kinds["replacement"].append(ref)
    for kind in ("current", "replacement", "undecidable"):
        if kinds[kind]:
            span = "\n".join(r.text for r in kinds[kind])
            role = "current" if kind != "replacement" else "replacement"
            said = {s.value for r in kinds[kind] for s in r.said if s.key == key and s.role == role}
            hit_i, hit_t = injected in said, true in said
            detail = {"text": span, "replacement": kind == "replacement"}
            if kind == "undecidable":
                detail["undecidable"] = True
            return span, hit_i, hit_t and (kind != "replacement" or hit_i), detail
    return _criterion_use(text, refs, items, item_id, key)


def criterion_pattern(key: str) -> re.Pattern[str]:
    """The item's option stated as the criterion of a replacement: "the same scent
    family", "same size as yours", "matching your current color", "keep the size"."""
    words = [key, *([key.split()[0]] if " " in key and len(key.split()[0]) >= 4 else [])]
    words += [w.replace("color", "colour") for w in words if "color" in w]
    kw = "|".join(re.escape(w).replace(r"\ ", r"[\s_-]+") for w in words)
    return re.compile(
        rf"\b(?:(?:the\s+)?same|identical|matching|keep(?:ing|s)?\s+(?:the|your)(?:\s+same)?)\s+"
        rf"(?:{kw})\b|\b(?:{kw})\s+(?:as|matching)\s+(?:yours\b|your\b|the\s+(?:one|original|current))"
        rf"|\bmatch(?:es|ing)?\s+(?:your|the)\s+(?:\w+\s+){{0,2}}?(?:{kw})\b",
        re.I,
    )


_YOURS = re.compile(
    r"\b(?:yours|your (?:current|existing|original|old)|you (?:have|ordered|bought))\b", re.I
)


def _criterion_use(
    text: str, refs: list[ItemReference], items: list[OrderItem], item_id: str, key: str
) -> tuple[str, bool, bool, dict[str, Any]] | None:
    """A replacement sought by the item's own option ("one in the same size as yours")
    depends on that option: a use, stating neither value (so no stance). The sentence
    must be about the item (a reference to it, or "yours" when only it has the option),
    and not a restated request ("you'd like the same size")."""
    pattern = criterion_pattern(key)
    about = any(item_id in (r.target, r.replaces) or item_id in r.candidates for r in refs)
    others = [r for r in refs if r.target not in (None, item_id) and r.role == "current"]
    alone = [i for i in items if key in i.options] in (
        [],
        [i for i in items if i.item_id == item_id],
    )
    for sentence in re.split(r"(?<=[.!?])\s+|\n", text):
        m = pattern.search(sentence)
        if m is None or REQUEST.search(sentence[: m.start()]):
            continue
        if (about and not others) or (alone and not refs and _YOURS.search(sentence)):
            detail = {"text": sentence, "criterion": True}
            return sentence, False, False, detail
    return None


def _chosen_elsewhere(
    view: LedgerView, fault_step: int, before: int, new_id: str, key: str
) -> bool:
    """True when the agent's last text naming the replacement ``new_id`` before the call
    chose it on another criterion (the cheapest, the one in stock) and not by the
    item's option: the exchange that follows is not derived from the option."""
    texts = [t for s, _, t in agent_texts(view, fault_step) if s < before and new_id in t]
    if not texts:
        return False
    return bool(CRITERION.search(texts[-1])) and not criterion_pattern(key).search(texts[-1])


def call_uses(
    look_for: ItemOptionLookFor, view: LedgerView, fault_step: int, said: list[UseCandidate]
) -> list[UseCandidate]:
    """Calls acting on the injected variant, or replacing the item by a variant keeping
    the injected (or the true) option the user did not ask for."""
    item_id, key = look_for.item_id, look_for.option
    injected, true = look_for.injected, look_for.authoritative
    variants = variants_shown(view)
    out: list[UseCandidate] = []
    for call in view.calls:
        if call.call_step <= fault_step:
            continue
        if args_contain(call.arg("item_ids"), look_for.injected_variant):
            out.append(
                UseCandidate(
                    call.call_step, "tool_call", call.name, True, False, {"tool": call.name}
                )
            )
            continue
        old, new = call.arg("item_ids"), call.arg("new_item_ids")
        if not (isinstance(old, list) and isinstance(new, list) and item_id in old):
            continue
        index = old.index(item_id)
        chosen = variants.get(new[index]) if index < len(new) else None
        value = (chosen or {}).get(key)
        # a variant the user asked for by its option is the user's choice, not derived
        # from what the agent believes of the ordered item
        asked = value is not None and user_asked(view, call.call_step, str(value))
        before = [c for c in said if c.step < call.call_step]
        knows = bool(before) and before[-1].mentions_authoritative  # it last stated v
        if value is None or asked or knows or value not in (injected, true):
            continue
        if _chosen_elsewhere(view, fault_step, call.call_step, str(new[index]), key):
            continue
        out.append(
            UseCandidate(
                call.call_step,
                "tool_call",
                call.name,
                value == injected,
                value == true,
                {"tool": call.name, "kept": value},
            )
        )
    return out
