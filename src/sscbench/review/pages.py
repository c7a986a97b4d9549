"""Reviewer pages: the contract in plain words and the numbered model-visible trajectory.

A page shows only what a reviewer labels from — the case contract and what the model
saw — and never the run id, configuration, condition (control, literal, clean or
faulted), evaluator log or automatic labels; the one exception is an export asked for
with ``--second-reading``, whose pages of runs the rules marked unread show the rule
reading and the judge model's second reading side by side (no longer blind). Pages are self-contained HTML with every
text escaped (jinja2 autoescape).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TypedDict

from jinja2 import Environment, select_autoescape

from sscbench.core.ledger import AssistantEvent, LedgerEvent, SystemEvent, ToolEvent, UserEvent
from sscbench.core.shown import shown
from sscbench.faults.contract import FaultContract
from sscbench.reading import loads_json
from sscbench.review.guide import guide

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; max-width: 1000px; }
dl.contract dt { font-weight: 600; margin-top: 0.4rem; }
dl.contract dd { margin-left: 1rem; }
.step { border-left: 4px solid #ccc; margin: 0.5rem 0; padding: 0.2rem 0.6rem; }
.step.user { border-color: #3a7; } .step.assistant { border-color: #37c; }
.step.tool { border-color: #c93; } .step.system { border-color: #999; }
.n { font-weight: 700; font-family: monospace; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0.2rem 0; font-size: 0.85rem; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 0.2rem 0.5rem; }
details.guide { border: 1px solid #ccc; border-radius: 4px; padding: 0.4rem 0.8rem; margin: 0.8rem 0; background: #fafafa; }
.abstained { color: #8a4b00; font-weight: 600; }
details.guide dt { font-weight: 600; margin-top: 0.4rem; } details.guide dd { margin-left: 1rem; }
"""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>review {{ review_id }}</title>
<style>{{ style }}</style></head><body>
<h1>Run {{ review_id }}</h1>
<p>Label this run from the contract below and the numbered trajectory only. Write the labels on the line <code>"review_id": "{{ review_id }}"</code>
of <code>labels.jsonl</code>. Steps are the numbers in bold. What each field takes and how to
decide it: <a href="../index.html#guide">How to label</a>, on the review folder's index page.</p>
<h2>The contract</h2>
<dl class="contract">{% for term, text in contract %}<dt>{{ term }}</dt><dd>{{ text }}</dd>
{% endfor %}</dl>
{% if second %}<h2 id="second-reading">The rule reading and a second reading (not blind)</h2>
<p>This export was made with <code>--second-reading</code>: the rules could not fully read
this run ({{ second.unread }} unread{% if second.unread_steps %}: {% for m in second.unread_steps %}step {{ m.step }} {{ m.kind }}{% if m.span %} “{{ m.span }}”{% endif %}{{ "; " if not loop.last }}{% endfor %}{% endif %}), and the judge model
<code>{{ second.model }}</code> read it with the L1 oracle prompt. Its proposals stand beside the
rule reading; neither is a label. Check each quote at its step below.</p>
{% if second.abstention %}<p class="abstained">The judge abstained: {{ second.abstention }} (no reading, never a negative).</p>
{% else %}<table><tr><th>quantity</th><th>rules</th><th>second reader</th><th>quoted evidence</th><th>standing</th></tr>
{% for l in second.lines %}<tr><th>{{ l.quantity }}</th><td>{{ l.rule if l.rule is not none else "–" }}</td><td>{{ l.proposed if l.proposed is not none else "–" }}</td>
<td>{% if l.quote %}<a href="#step-{{ l.quote_step }}">step {{ l.quote_step }}</a>: <q>{{ l.quote }}</q>{% else %}–{% endif %}{% if l.problem %}<div class="abstained">{{ l.problem }}</div>{% endif %}</td><td>{{ l.words }}</td></tr>
{% endfor %}</table>{% endif %}{% endif %}
<h2>What the model saw</h2>
{% for s in steps %}<div class="step {{ s.role }}" id="step-{{ s.step }}">
<span class="n">{{ s.step }}</span> · {{ s.title }}
{% if s.role == "system" %}<details><summary>system prompt ({{ s.length }} characters)</summary>
<pre>{{ s.text }}</pre></details>{% else %}{% if s.text %}<pre>{{ s.text }}</pre>{% endif %}
{% for c in s.calls %}<pre>→ {{ c }}</pre>{% endfor %}{% endif %}</div>
{% endfor %}
</body></html>
"""

INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>{{ style }}</style></head><body>
<h1>{{ title }}</h1>
<p>{{ runs|length }} runs to label. Open each page, then fill its line in
<code>labels.jsonl</code>: T_F, T_E, T_S as a step number, "inf" or "undecidable"; T_U as
a step number, "undecidable" or, when A is false, "not-applicable"; A as true, false or "undecidable"; Z_S as "pre", "late", "absent", "no-use" or
"undecidable"; Y_end as "endorses", "rejects" or "undecidable"; a note. Leave a
field null until you have decided it; keep <code>"review_id"</code> as it is. How to decide
each label: <b>How to label</b> below (every run page links to it).</p>
{{ guide }}
<table><tr><th>run</th><th>steps</th></tr>
{% for r in runs %}<tr><td><a href="pages/{{ r.review_id }}.html">{{ r.review_id }}</a></td>
<td>{{ r.steps }}</td></tr>{% endfor %}</table>
</body></html>
"""

_ENV = Environment(autoescape=select_autoescape(default=True, default_for_string=True))


def _value(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def contract_in_words(contract: FaultContract) -> list[tuple[str, str]]:
    """The contract as (term, plain sentence) pairs for a reviewer."""
    t = contract.target
    related = ", ".join(f"{k} {v}" for k, v in sorted(t.related_ids.items()))
    match = ", ".join(
        f"{k} = {_value(v)}" for k, v in sorted(contract.fault_interaction.match.items())
    )
    routes = "; ".join(
        f"{r.tool}({', '.join(f'{k} from {v}' for k, v in sorted(r.arguments.items()))})"
        + (f" — {r.note}" if r.note else "")
        for r in contract.acquisition
    )
    suff = contract.sufficiency
    words = [
        (
            "Affected fact",
            f"the {t.attribute} of {t.entity_type.replace('_', ' ')} {t.entity_id}"
            + (f" (with {related})" if related else ""),
        ),
        (
            "Where the fault can appear",
            f"the observation of {contract.fault_interaction.tool}"
            + (f" called with {match}" if match else ""),
        ),
        ("The asserted value v′ (what the fault shows)", _value(contract.injected_value)),
        ("The authoritative value v (what is true)", _value(contract.authoritative_value)),
        ("Where the truth comes from", contract.basis),
        (
            "When counterevidence is complete",
            (suff.semantics or suff.relation)
            + (f" (needs, visible together: {', '.join(suff.requires)})" if suff.requires else ""),
        ),
        ("How an agent can acquire it", routes or "no normal tool route"),
        (
            "How long the fault lasts",
            "every matching observation"
            if contract.persistence == "persistent"
            else "the first matching observation only",
        ),
    ]
    return words


def _pretty(text: str) -> str:
    try:
        return json.dumps(loads_json(text), indent=1, ensure_ascii=False)
    except ValueError:
        return text


_WHOLE = "the run's ledger"  # a masked page never names the run's file


class Step(TypedDict):
    """One model-visible event as a page shows it (``length``: a system prompt's length
    in characters, 0 for the other roles)."""

    step: int
    calls: list[str]
    text: str
    length: int
    role: str
    title: str


def _step(event: LedgerEvent) -> Step | None:
    """The event as a page step, its texts not yet capped (None: not model-visible)."""
    calls: list[str] = []
    length = 0
    if isinstance(event, SystemEvent):
        role, title, text, length = "system", "system", event.content, len(event.content)
    elif isinstance(event, UserEvent):
        role, title, text = "user", "user", event.content
    elif isinstance(event, AssistantEvent):
        role, title, text = "assistant", "agent", event.content or ""
        calls = [f"{c.name}({_pretty(c.arguments)})" for c in event.tool_calls]
    elif isinstance(event, ToolEvent):
        role, title, text = "tool", f"tool result of {event.name}", _pretty(event.content)
    else:
        return None
    return {
        "step": event.step,
        "calls": calls,
        "text": text,
        "length": length,
        "role": role,
        "title": title,
    }


def trajectory_steps(ledger: list[LedgerEvent]) -> list[Step]:
    """The model-visible events as numbered steps for a page, each text capped
    (:func:`sscbench.core.shown.shown`; the cut stated, the run never named)."""
    steps: list[Step] = []
    for event in ledger:
        item = _step(event)
        if item is None:
            continue
        item["text"] = shown(item["text"], _WHOLE)
        item["calls"] = [shown(call, _WHOLE) for call in item["calls"]]
        steps.append(item)
    return steps


class IndexRow(TypedDict):
    """One run of an export's index page."""

    review_id: str
    steps: int


def render_page(
    review_id: str,
    contract: FaultContract,
    ledger: list[LedgerEvent],
    second: Mapping[str, object] | None = None,
) -> str:
    """One reviewer page (self-contained HTML, all text escaped); ``second`` (only from
    ``review export --second-reading``, which unmasks the page) is the run's rule reading
    and second reading side by side (:func:`sscbench.study.second_reading.run_panel`)."""
    return _ENV.from_string(PAGE).render(
        review_id=review_id,
        style=STYLE,
        contract=contract_in_words(contract),
        steps=trajectory_steps(ledger),
        second=second,
    )


def render_index(title: str, runs: list[IndexRow]) -> str:
    """The export's index page: links to every run's page and the short labelling rules."""
    return _ENV.from_string(INDEX).render(title=title, style=STYLE, runs=runs, guide=guide())
