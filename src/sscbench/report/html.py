"""The self-contained ``report.html`` (figures inlined, all text escaped)."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, select_autoescape

TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sscbench report: {{ name }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5rem; max-width: 1200px; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.8rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.4rem; text-align: left; vertical-align: top; }
.wrap { overflow-x: auto; }
.card { display: inline-block; border: 1px solid #999; border-radius: 6px; padding: 0.5rem;
        margin: 0.3rem; width: 17rem; font-size: 0.8rem; vertical-align: top; }
.unobserved { background: #f4f4f4; color: #666; }
img { max-width: 100%; }
</style></head><body>
<h1>sscbench report: {{ name }}</h1>
<p>Every rate below names its numerator, denominator, clusters and interval method. Primary
analysis: repetition 0, target-value controls excluded from adoption. Empty strata read
<em>unobserved</em>.</p>
<h2 id="funnel">Execution funnel</h2>
<div class="wrap"><table id="funnel-table"><tr>{% for k in funnel %}<th>{{ k }}</th>{% endfor %}</tr>
<tr>{% for v in funnel.values() %}<td>{{ v }}</td>{% endfor %}</tr></table></div>
{% for fig in figures %}<figure id="fig-{{ fig.name }}"><img alt="{{ fig.title }}"
src="data:image/png;base64,{{ fig.png }}"><figcaption>{{ fig.title }}</figcaption></figure>{% endfor %}
<h2 id="claims">Claims</h2>
{% for c in claims %}<div class="card {{ c.status }}"><b>{{ c.claim }}</b><br>{{ c.operator }} ·
{{ c.config_id }}<br><small>{{ c.required_condition }}</small><br>{{ c.label }}</div>{% endfor %}
<h2 id="cells">Arrival and adoption by operator × configuration</h2>
<div class="wrap"><table id="cell-table"><tr>{% for k in cell_columns %}<th>{{ k }}</th>{% endfor %}</tr>
{% for row in cells %}<tr>{% for k in cell_columns %}<td>{{ row[k] }}</td>{% endfor %}</tr>{% endfor %}
</table></div>
<h2 id="crossing">Case–configuration groups whose arrival crosses strata</h2>
<div class="wrap"><table id="crossing-table"><tr><th>case</th><th>configuration</th><th>strata by repetition</th></tr>
{% for g in crossing %}<tr><td>{{ g.case_id }}</td><td>{{ g.config_id }}</td><td>{{ g.strata }}</td></tr>{% endfor %}
</table></div>
<h2 id="sensitivity">Sensitivity analyses</h2>
<div class="wrap"><table id="sensitivity-table"><tr>{% for k in sensitivity_columns %}<th>{{ k }}</th>{% endfor %}</tr>
{% for row in sensitivity %}<tr>{% for k in sensitivity_columns %}<td>{{ row[k] }}</td>{% endfor %}</tr>{% endfor %}
</table></div>
{% if release %}<h2 id="release">Release evidence of the typed fault families</h2>
<p>Activation over injected runs; detection, containment and escape over activated runs;
recovery where a valid recovery path exists. k/n, estimate and 95% interval; clusters are tasks.</p>
<div class="wrap"><table id="release-table"><tr>{% for k in release.columns %}<th>{{ k }}</th>{% endfor %}</tr>
{% for row in release.rows %}<tr>{% for k in release.columns %}<td>{{ row[k] }}</td>{% endfor %}</tr>{% endfor %}
</table></div>
<h3>Transfer matrix: P(checkpoint invalid | activated), with outcome states</h3>
<div class="wrap"><table id="transfer-table"><tr>{% for k in release.transfer_columns %}<th>{{ k }}</th>{% endfor %}</tr>
{% for row in release.transfer %}<tr>{% for k in release.transfer_columns %}<td>{{ row[k] }}</td>{% endfor %}</tr>{% endfor %}
</table></div>
{% if release.intensity_png %}<figure id="fig-intensity"><img alt="Intensity curves"
src="data:image/png;base64,{{ release.intensity_png }}"><figcaption>Intensity curves (95% intervals)</figcaption></figure>{% endif %}
{% endif %}
{% if paired %}<h2 id="paired">Paired comparison</h2>
<div class="wrap"><table id="paired-table"><tr>{% for k in paired_columns %}<th>{{ k }}</th>{% endfor %}</tr>
{% for row in paired %}<tr>{% for k in paired_columns %}<td>{{ row[k] }}</td>{% endfor %}</tr>{% endfor %}
</table></div>{% endif %}
</body></html>
"""


def render(context: dict[str, Any]) -> str:
    """The report page; every value is HTML-escaped."""
    env = Environment(autoescape=select_autoescape(default=True, default_for_string=True))
    return env.from_string(TEMPLATE).render(**context)
