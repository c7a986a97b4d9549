"""A meaning-preserving rewrite of item lines, on the development corpora: an item line
that names an ordered item by name and id and then lists its option values ("Mechanical
Keyboard (item 1151293680): full-size, clicky, no backlight", "- Smart Watch, item_id
9408160950 — gold, leather, LCD") is rewritten with the options before the id, as other
agents write it ("Mechanical Keyboard (full-size, clicky, no backlight) — Item ID
1151293680"). Same item, same values, same words: every measured quantity must stay.

The values a line lists are recognised by the catalogue values the run's ledger
delivered (order and product records), compared case-insensitively as whole words —
this module's own reading, not the reader's. The helpers of :mod:`test_metamorphic`
run and measure the corpora.
"""

from __future__ import annotations

import json
import re

import pytest

from realtext_corpus import TAU2
from sscbench.core.ledger import AssistantEvent, ToolEvent
from test_metamorphic import QUANTITIES, _corpora, _measured, rewrite_message

_ID = re.compile(r"(?:(?:item[ _]?id|item)\s*[:#]?\s*)?`?(\d{10})`?", re.I)


def _catalogue(ledger: list) -> dict[str, tuple[str, set[str]]]:
    """item id -> (product name, every option value of its product the ledger showed),
    for order items and the variants of product records."""
    product_of: dict[str, str] = {}
    names: dict[str, str] = {}
    values: dict[str, set[str]] = {}
    for event in ledger:
        try:
            data = json.loads(event.content) if isinstance(event, ToolEvent) else None
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        for it in data.get("items") or []:
            if isinstance(it, dict) and "item_id" in it:
                pid = str(it.get("product_id"))
                product_of[str(it["item_id"])], names[pid] = pid, str(it.get("name", ""))
                values.setdefault(pid, set()).update(map(str, (it.get("options") or {}).values()))
        for vid, v in (data.get("variants") or {}).items():
            if isinstance(v, dict):
                pid = str(data.get("product_id"))
                product_of[str(vid)], names[pid] = pid, str(data.get("name", ""))
                values.setdefault(pid, set()).update(map(str, (v.get("options") or {}).values()))
    return {iid: (names.get(pid, ""), values.get(pid, set())) for iid, pid in product_of.items()}


def _norm(text: str) -> str:
    return re.sub(r"[\s\u2010-\u2015-]+", " ", text.lower()).strip()


def _run(text: str, known: set[str]) -> int:
    """How far ``text`` is a run of two or more comma-separated parts each naming a
    known value ("size S, red, low ventilation"); 0 when it is not."""
    words = [_norm(k) for k in known]
    end, count = 0, 0
    for m in re.finditer(r"[^,()—–;]+", text):
        if text[end : m.start()].strip() not in ("", ","):
            break
        part = _norm(m.group(0))
        if len(part.split()) > 4 or not any(
            re.search(rf"(?<!\w){re.escape(w)}(?!\w)", part) for w in words
        ):
            break
        end, count = m.start() + len(m.group(0).rstrip()), count + 1
    return end if count >= 2 else 0


def options_before_id(text: str, catalogue: dict[str, tuple[str, set[str]]]) -> str:
    """Each item line "<lead> item <id> (<values>)<rest>" or "<lead> item <id>: <values>
    <rest>" written "<lead> <name> (<values>) — Item ID <id><rest>" (the product's name
    added when the lead does not end with it: an item's name states no option); other
    lines as they are (a replacement line with an arrow too: its values are the new
    item's)."""
    out = []
    for line in text.split("\n"):
        m = _ID.search(line)
        name, known = catalogue.get(m.group(1), ("", set())) if m else ("", set())
        if not m or not known or re.search(r"→|->", line) or len(_ID.findall(line)) != 1:
            out.append(line)
            continue
        after = line[m.end() :]
        paren = re.match(r"\s*\(([^()]*)\)", after)
        sep = re.match(r"\s*(?:—|–|:|,)\s*", after)
        run, rest = "", ""
        if paren and _run(paren.group(1), known) == len(paren.group(1).rstrip()):
            run, rest = paren.group(1).strip(), after[paren.end() :]
        elif sep and (n := _run(after[sep.end() :], known)):
            run, rest = after[sep.end() : sep.end() + n].strip(), after[sep.end() + n :]
        if not run:
            out.append(line)
            continue
        label = line[m.start() : m.start(1)]
        lead = line[: m.start()] + (label if label.rstrip(" `").endswith(":") else "")
        lead = lead.rstrip(" ,(—–")
        if not lead.lower().endswith(name.lower()):
            lead = f"{lead} {name}" if lead.strip() else f"{lead}{name}"
        out.append(f"{lead} ({run}) — Item ID {m.group(1)}{rest}")
    return "\n".join(out)


def _leaves(value: object, catalogue: dict) -> object:
    if isinstance(value, dict):
        return {k: _leaves(v, catalogue) for k, v in value.items()}
    if isinstance(value, list):
        return [_leaves(v, catalogue) for v in value]
    return options_before_id(value, catalogue) if isinstance(value, str) else value


def rewritten(text: str, catalogue: dict) -> str:
    """A message rewritten; a JSON-wrapped message in its string values (still JSON)."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict | list):
        indent = 2 if "\n" in text.strip() else None
        return json.dumps(_leaves(data, catalogue), ensure_ascii=False, indent=indent)
    return options_before_id(text, catalogue)


@pytest.fixture(scope="module")
def corpora(taubench, tmp_path_factory):
    return _corpora(taubench, tmp_path_factory)


# the corpora's item lines are the orchestrator's τ² text: without it the rewrite reaches none
@pytest.mark.shared_data(TAU2)
def test_item_lines_with_the_options_before_the_id_keep_every_quantity(corpora, monkeypatch):
    import test_metamorphic as metamorphic
    from sscbench.study.ledgers import read_ledger

    moved, reached = [], 0
    for study, cases, runs in corpora:
        for run_id in runs:
            ledger = read_ledger(study, run_id)
            catalogue = _catalogue(ledger)
            changed = [
                e
                for e in ledger
                if isinstance(e, AssistantEvent)
                and e.content
                and rewritten(e.content, catalogue) != e.content
            ]
            if not changed:
                continue
            reached += 1
            want = _measured(study, cases, run_id, [])

            def rewrite(text: str, names: list[str], catalogue=catalogue) -> str:
                return rewritten(rewrite_message(text, names), catalogue)

            monkeypatch.setattr(metamorphic, "rewrite_message", rewrite)
            got = _measured(study, cases, run_id, [])
            monkeypatch.undo()
            if got != want:
                moved.append(
                    f"{run_id}: "
                    + ", ".join(f"{q} {want[q]}→{got[q]}" for q in QUANTITIES if got[q] != want[q])
                )
    assert not moved, "\n".join(moved)
    assert reached >= 5  # the rewrite reaches the corpora's item lines


def test_the_rewrite_moves_the_options_before_the_id():
    catalogue = {"3358616356": ("Cycling Helmet", {"S", "M", "red", "low", "high"})}
    text = "- Current item: Cycling Helmet, item ID 3358616356 (size S, red, low ventilation), $197"
    assert options_before_id(text, catalogue) == (
        "- Current item: Cycling Helmet (size S, red, low ventilation) — Item ID 3358616356, $197"
    )
    text = "- Item 3358616356: size S, red — price 622.12"
    assert options_before_id(text, catalogue) == (
        "- Cycling Helmet (size S, red) — Item ID 3358616356 — price 622.12"
    )
    text = "- Current item: 3358616356 (size S, red)"
    assert options_before_id(text, catalogue) == (
        "- Current item: Cycling Helmet (size S, red) — Item ID 3358616356"
    )
    for other in [
        "- Cycling Helmet (item 3358616356): will be exchanged tomorrow",  # no values
        "- 3358616356 → 8573379326 (size M, red)",  # a replacement's values
    ]:
        assert options_before_id(other, catalogue) == other
