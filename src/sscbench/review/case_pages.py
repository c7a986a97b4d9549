"""Case-level review pages: one page per admitted case, blind to every run outcome.

The paper reviews each admitted case on its own: is the affected fact relevant to the
task, is the counterevidence authoritative and sufficient as the agent sees it, does
the fault target the task's entity and request. A page shows what that needs and
nothing else: the contract in plain words, the fault (the observation it sits on, the
asserted and the true value), the fixed injection context (the visible prefix through
the fault-bearing observation) and the witness continuation, with where each of its
arguments was obtainable. Pages are built from the cases file alone: no run, index,
measurement, automatic label or condition is read, so no outcome can reach a page.

The folder also gets ``semantic-review.jsonl`` with one undecided line per case, the
file ``sscbench admit --review`` reads (:mod:`sscbench.admission.semantic`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from jinja2 import Environment, select_autoescape

from sscbench.core.files import staged_folder
from sscbench.core.ledger import LEDGER_EVENT
from sscbench.errors import DataError, naming
from sscbench.faults.case import Case
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.jsonl import write_utf8
from sscbench.review.case_labels import CASE_QUESTIONS
from sscbench.review.pages import STYLE, Step, contract_in_words, trajectory_steps

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>case {{ number }}</title>
<style>{{ style }}</style></head><body>
<h1>Case {{ number }}: {{ case_id }}</h1>
<p>Judge the case itself from this page: the contract, the fault and the witness. Write
your decision on the line <code>"case_id": "{{ case_id }}"</code> of
<code>semantic-review.jsonl</code>: <code>"keep"</code> or <code>"reject"</code> (with a
reason). <a href="../index.html">All cases</a>.</p>
<h2>Questions</h2>
<ol>{% for q in questions %}<li>{{ q }}</li>{% endfor %}</ol>
<h2>The contract</h2>
<dl class="contract">{% for term, text in contract %}<dt>{{ term }}</dt><dd>{{ text }}</dd>
{% endfor %}<dt>Task</dt><dd>{{ task_id }} ({{ world }}, {{ domain }})</dd></dl>
<h2>The injection context (what the agent has seen when the fault is delivered)</h2>
<p>The fault-bearing observation is step {{ fault_step }}.</p>
{% for s in prefix %}{{ step(s) }}{% endfor %}
<h2>The witness: a legal continuation from that context</h2>
<p>Valid counterevidence is complete at step {{ evidence }}; the first dependent use of
the affected fact is at step {{ use }} ({{ use_text }}).</p>
{% for s in continuation %}{{ step(s) }}{% endfor %}
<h3>Where each argument of the witness was obtainable</h3>
<table><tr><th>argument</th><th>value</th><th>from</th><th>step</th></tr>
{% for p in provenance %}<tr><td>{{ p.argument }}</td><td>{{ p.value }}</td>
<td>{{ p.source }}</td><td>{{ p.step if p.step is not none else "–" }}</td></tr>{% endfor %}
</table>
</body></html>
"""

STEP = """{% macro step(s) %}<div class="step {{ s.role }}" id="step-{{ s.step }}">
<span class="n">{{ s.step }}</span> · {{ s.title }}
{% if s.role == "system" %}<details><summary>system prompt ({{ s.length }} characters)</summary>
<pre>{{ s.text }}</pre></details>{% else %}{% if s.text %}<pre>{{ s.text }}</pre>{% endif %}
{% for c in s.calls %}<pre>→ {{ c }}</pre>{% endfor %}{% endif %}</div>
{% endmacro %}"""

INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>case review</title>
<style>{{ style }}</style></head><body>
<h1>Case review: {{ cases|length }} admitted cases</h1>
<p>Open each case, answer its questions, and write <code>"keep"</code> or
<code>"reject"</code> (a rejection with its reason) on its line of
<code>semantic-review.jsonl</code>. <code>sscbench admit --review semantic-review.jsonl</code>
then replaces every rejected case with the next admissible candidate of the same
frozen order.</p>
<table><tr><th>case</th><th>operator</th><th>task</th></tr>
{% for c in cases %}<tr><td><a href="cases/{{ c.page }}">{{ c.case_id }}</a></td>
<td>{{ c.operator }}</td><td>{{ c.task_id }}</td></tr>{% endfor %}</table>
</body></html>
"""

_ENV = Environment(autoescape=select_autoescape(default=True, default_for_string=True))


def _steps(events: Sequence[JsonMapping]) -> list[Step]:
    return trajectory_steps([LEDGER_EVENT.validate_python(e) for e in events])


def render_case_page(number: int, case: Case) -> str:
    """One case's review page (self-contained HTML, every text escaped)."""
    if case.contract is None or case.context is None or case.witness is None:
        raise DataError("<cases>", case.case_id, "not an admitted case (no contract or witness)")
    witness = case.witness
    template = _ENV.from_string(STEP + PAGE)
    return template.render(
        number=number,
        case_id=case.case_id,
        task_id=case.task_id,
        world=case.world,
        domain=case.domain,
        style=STYLE,
        questions=list(CASE_QUESTIONS.values()),
        contract=contract_in_words(case.contract),
        fault_step=case.context.fault_step,
        prefix=_steps(case.context.prefix),
        continuation=_steps(witness.continuation),
        evidence=witness.counterevidence_step,
        use=witness.first_use_step,
        use_text=witness.first_use,
        provenance=[
            {**p.model_dump(), "value": json.dumps(p.value, ensure_ascii=False)}
            for p in witness.provenance
        ],
    )


def page_name(number: int) -> str:
    """The file name of the ``number``-th case's page."""
    return f"case-{number:03d}.html"


def write_case_pages(cases: list[Case], out: Path) -> JsonObject:
    """Write ``out/index.html``, one page per admitted case under ``out/cases/`` and an
    undecided ``out/semantic-review.jsonl``; ``out`` must be new or empty."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise DataError(out, None, "--out must be a new or empty folder")
    admitted = [c for c in cases if c.witness is not None and c.contract is not None]
    if not admitted:
        raise DataError("<cases>", None, "no admitted case (with a contract and a witness)")
    with staged_folder(out) as staging:  # the folder appears whole or not at all
        with naming(staging / "cases"):
            (staging / "cases").mkdir()
        rows = []
        for number, case in enumerate(admitted, start=1):
            write_utf8(staging / "cases" / page_name(number), render_case_page(number, case))
            row = {"case_id": case.case_id, "operator": case.operator, "task_id": case.task_id}
            rows.append({**row, "page": page_name(number)})
        index = _ENV.from_string(INDEX).render(style=STYLE, cases=rows)
        write_utf8(staging / "index.html", index)
        template = "".join(
            json.dumps({"case_id": c.case_id, "decision": None, "reason": ""}) + "\n"
            for c in admitted
        )
        write_utf8(staging / "semantic-review.jsonl", template)
    return {"out": str(out), "cases": len(admitted), "skipped": len(cases) - len(admitted)}


def cases_of(source: Path) -> list[Case]:
    """The cases of a cases file, or of a study folder's ``cases.jsonl``."""
    from sscbench.study.cases import read_cases

    path = source / "cases.jsonl" if source.is_dir() else source
    if not path.is_file():
        raise DataError(path, None, "not found: give a cases.jsonl or a study folder")
    return read_cases(path)
