"""The labelling guide every review page carries: the rules a reviewer labels from.

A review folder is given to reviewers without the repository, so its pages cannot send
them to ``docs/``: the plan's reviewer and adjudicator pages and the export's
``index.html`` inline this guide, folded (the export's run pages link to the index's). It is the short form of the rules in
``docs/validating-measurement.md`` ("Labelling rules"), which holds the examples.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from sscbench.core.definitions import T_U_WORDING, Y_END_WORDING, Z_S_WORDING

_GUIDE_TEMPLATE = """
<details class="guide" id="guide"><summary><b>How to label</b> (the rules; open before the first run)</summary>
<p><b>Steps.</b> A label names a step: the bold number of the trajectory. 0 is the system
prompt, 1 the opening user message, then every assistant message, tool observation and user
message in order. A tool call belongs to the assistant step that makes it; its observation is
the next step.</p>
<p><b>The contract</b> above each trajectory says which fact the fault touches, the value the
fault shows (v′), the true value (v), where the fault can appear and when counterevidence is
complete for this case. Label from the contract and the trajectory only.</p>
<dl>
<dt>T_F</dt><dd>the step of the fault-bearing observation: the first observation of the
contract's fault interaction that the fault changed (it shows v′).</dd>
<dt>T_E</dt><dd>the step at which valid counterevidence against v′ is complete, as the
contract's "When counterevidence is complete" says: an observation from an authoritative
source about the same entity, visible to the agent. It can equal T_F (evidence in the same
observation) or precede it. What the agent itself writes is never counterevidence. ∞ when it
never arrives.</dd>
<dt>T_S</dt><dd>the first dependent use of the affected fact after T_F: an assistant message,
tool call or handoff summary whose content or arguments depend on the fact's value — stating
it (v′, v or another value), checking or questioning it, referring to the entity by the
disputed attribute, or a call whose arguments carry the value or one derived from it. Not a
use: naming the entity without the value, policy text in general terms, a call that only
reads the record the fact is in. ∞ when no use happens.</dd>
<dt>T_U</dt><dd>the first faulty reliance: a dependent use that treats v′ (or a value derived
from it) as the operative fact — stating it as true, or acting on it in a call. A hedge beside
a committing call is still reliance; checking the value is not. {t_u}
On a run with no reliance answer A = not adopted: the form then offers and chooses T_U
<i>not applicable</i> (<code>"not-applicable"</code> in <code>labels.jsonl</code>); do not
mark it ∞. T_U is scored against the measurement only on runs whose reference A is true.</dd>
<dt>A</dt><dd>adopted: true when some use relies on v′ (T_U is a step), false when none does.</dd>
<dt>Z_S</dt><dd>arrival, derived from T_E and T_S (a review plan's page derives it; in a
<code>labels.jsonl</code> filled by hand, write it). {z_s}</dd>
<dt>Y_end</dt><dd>{y_end} <i>Endorses</i> when it states v′ as fact, <i>rejects</i>
when it states the true value, retracts v′, questions it or says v′ cannot hold.</dd>
</dl>
<p><b>∞, undecidable, blank.</b> ∞ means the event never happens in the trajectory.
<i>Undecidable</i> is a label: the trajectory does not let you decide (it is scored like any
value). Leave a quantity blank (null) until you have decided it. Add a note whenever the call
is not obvious. Work alone: do not discuss runs with other reviewers before agreement is
computed.</p>
</details>
"""


#: The guide's HTML; its T_U, Z_S and Y_end definitions are the measurement's own
#: wordings (:mod:`sscbench.core.definitions`), so the guide cannot drift from the code.
GUIDE_HTML = str(
    Markup(_GUIDE_TEMPLATE).format(
        t_u=escape(T_U_WORDING), z_s=escape(Z_S_WORDING), y_end=escape(Y_END_WORDING)
    )
)


def guide() -> Markup:
    """The guide as trusted HTML for a jinja2 template (it holds no model text)."""
    return Markup(GUIDE_HTML)
