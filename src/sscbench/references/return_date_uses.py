"""ReturnDate's use extraction: which agent texts and calls carry the return date.

The entry point of the ``ReturnDateLookFor`` kind (:mod:`sscbench.references.lookfor`).
A text states the return when, in its sentences about the reservation (by id, flight
number, route or position; see :func:`sscbench.references.reservations.scoped_sentences`), it
writes the injected date or the true date as the return (the readers of
:mod:`sscbench.references.return_date_text`). A call carries it when its
arguments bind the date to a return leg, or to the reservation itself. A date derived
from either by the shift the user asked for is a use of the date it derives from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sscbench.core.values import UseCandidate
from sscbench.core.view import CallView, LedgerView
from sscbench.references.dates import find_date_references, record_year
from sscbench.references.lookfor import ReturnDateLookFor
from sscbench.references.reservations import reservations_shown, scoped_sentences
from sscbench.references.return_date_text import (
    SAME_DATES,
    around,
    flown,
    leg_dates,
    requested_shifts,
    return_sentences,
    shifted,
    split_legs,
    states_injected_date,
    states_true_return,
    without_clock,
)
from sscbench.references.text import HANDOFF, agent_texts
from sscbench.references.values import NOW, args_contain


def find_return_date_uses(
    look_for: ReturnDateLookFor, view: LedgerView, fault_step: int
) -> list[UseCandidate]:
    """Texts and calls after the fault carrying either date of ``look_for`` as the return,
    in step order: explicit statements of v or v′ (texts and calls), then dates derived
    from them."""
    facts = _Facts.of(look_for, view, fault_step)
    explicit = _text_uses(facts, view, fault_step) + _call_uses(facts, view, fault_step)
    derived = _derived_uses(facts, view, fault_step, sorted(explicit, key=lambda c: c.step))
    return sorted(explicit + derived, key=lambda c: c.step)


@dataclass(frozen=True)
class _Facts:
    """What extraction needs of the description and the fault-bearing record."""

    rid: str
    read: str
    injected: str
    true: str
    year: int
    routes: set[str]
    outbound_dates: set[str]
    return_flights: set[str]
    ambiguous: bool  # the true date says nothing when an outbound leg flies that day too
    past: bool  # a return dated before "now" by the fault has "already flown"

    @classmethod
    def of(cls, look_for: ReturnDateLookFor, view: LedgerView, fault_step: int) -> _Facts:
        """The facts of one description on one ledger."""
        outbound_dates = set(look_for.outbound_dates)
        true, injected = look_for.authoritative, look_for.injected
        return cls(
            rid=look_for.reservation_id,
            read=look_for.read_tool,
            injected=injected,
            true=true,
            year=record_year([true, injected]),
            routes=set(look_for.return_routes),
            outbound_dates=outbound_dates,
            return_flights=_return_flights(view, fault_step),
            ambiguous=true in outbound_dates,
            past=injected < NOW <= true,
        )


def _scoped(facts: _Facts, view: LedgerView, step: int, content: str) -> list[str] | None:
    """The sentences of a text about the reservation (see ``scoped_sentences``), with any
    sentence saying a trip keeps "the same dates" when the text is about it at all."""
    content = without_clock(content, facts.year)
    kept = scoped_sentences(content, facts.rid, reservations_shown(view, step))
    if not kept:
        return kept
    keep = set(kept)
    parts = [x for x in re.split(r"(?<=[.!?])\s+|\n+", content) if x]
    return [x for x in parts if x in keep or SAME_DATES.search(x)]


def _text_uses(facts: _Facts, view: LedgerView, fault_step: int) -> list[UseCandidate]:
    """Agent texts stating the injected or the true return date."""
    out = []
    for step, channel, content in agent_texts(view, fault_step):
        kept = _scoped(facts, view, step, content)
        lines = without_clock(content, facts.year) if kept is None else "\n".join(kept)
        text = lines.replace("\n", " ") if kept is not None else content
        hit_i = states_injected_date(lines, facts.injected, facts.year) or (
            facts.past and flown(text, facts.return_flights)
        )
        hit_t = states_true_return(
            lines, facts.true, facts.year, facts.outbound_dates, facts.ambiguous
        )
        span = hit_i or hit_t
        if span:
            isos = {facts.injected} if hit_i else {facts.true}
            detail = {"text": text, "window": around(lines, span, isos, facts.year)}
            out.append(UseCandidate(step, channel, span, bool(hit_i), bool(hit_t), detail))
    return out


def _call_uses(facts: _Facts, view: LedgerView, fault_step: int) -> list[UseCandidate]:
    """Calls whose arguments carry the injected or the true return date."""
    out = []
    for call, dates in _dated_calls(facts, view, fault_step):
        has_i = facts.injected in dates
        has_t = facts.true in dates
        if has_i or has_t:
            detail: dict[str, Any] = {"tool": call.name, "arguments": call.arguments}
            out.append(UseCandidate(call.call_step, "tool_call", call.name, has_i, has_t, detail))
    return out


def _dated_calls(
    facts: _Facts, view: LedgerView, fault_step: int
) -> list[tuple[CallView, set[str]]]:
    """(call, the dates its arguments give the return) for calls after the fault: dates
    bound to a return leg (flight number, route), and any date of a call on the
    reservation itself (unless the true date is an outbound date as well)."""
    out = []
    for call in view.calls:
        arguments = call.arguments
        if call.call_step <= fault_step or call.name in (facts.read, HANDOFF):
            continue
        if not isinstance(arguments, dict):
            continue
        dates = leg_dates(arguments, facts.routes, facts.return_flights)
        if call.arg("reservation_id") == facts.rid:
            for value in (facts.injected, facts.true):
                if args_contain(arguments, value) and not (value == facts.true and facts.ambiguous):
                    dates.add(value)
        out.append((call, dates))
    return out


def _derived_uses(
    facts: _Facts, view: LedgerView, fault_step: int, explicit: list[UseCandidate]
) -> list[UseCandidate]:
    """Texts and calls giving the return a date derived from v or v′ by the shift the user
    asked for ("back by one day": v ± 1), with the stance of the date it derives from.

    The derivation is read from what the agent last stated of the return: once it stated
    v′, only v′ ± n derives from it (a date v + n beside a stated v′ is a new date the
    agent chose, not the true one moved). A step that states v or v′ itself is read as
    stated."""
    stated = {c.step for c in explicit}
    excluded = {facts.true, facts.injected} | facts.outbound_dates
    out = []
    steps: list[tuple[int, str, Any]] = list(agent_texts(view, fault_step))
    steps += [(c.call_step, "tool_call", d) for c, d in _dated_calls(facts, view, fault_step)]
    for step, channel, found in sorted(steps, key=lambda t: t[0]):
        shifts = requested_shifts(view, step)
        if step in stated or not shifts:
            continue
        last = next((c for c in reversed(explicit) if c.step < step), None)
        targets = {
            kind: shifted(source, shifts) - excluded
            for kind, source in (("t", facts.true), ("i", facts.injected))
            if last is None
            or (last.mentions_authoritative if kind == "t" else last.mentions_injected)
        }
        use = _derived_use(facts, view, step, channel, found, targets)
        if use is not None:
            out.append(use)
    return out


def _derived_use(
    facts: _Facts,
    view: LedgerView,
    step: int,
    channel: str,
    found: Any,
    targets: dict[str, set[str]],
) -> UseCandidate | None:
    """The use at one step of a date in ``targets`` (by the source it derives from)."""
    hits: dict[str, str] = {}
    if channel == "tool_call":
        for kind, dates in targets.items():
            if found & dates:
                hits[kind] = sorted(found & dates)[0]
        detail: dict[str, Any] = {"derived": True}
    else:
        kept = _scoped(facts, view, step, found)
        lines = without_clock(found, facts.year) if kept is None else "\n".join(kept)
        for reference in find_date_references(return_sentences(lines), facts.year):
            for kind, dates in targets.items():
                if reference.iso in dates:
                    hits.setdefault(kind, reference.expression)
        detail = {"text": lines.replace("\n", " "), "derived": True}
    if not hits:
        return None
    span = hits.get("t") or hits["i"]
    if channel != "tool_call":
        detail["window"] = around(lines, span, set().union(*targets.values()), facts.year)
    return UseCandidate(step, channel, span, "i" in hits, "t" in hits, detail)


def _return_flights(view: LedgerView, fault_step: int) -> set[str]:
    """Flight numbers of the return legs in the fault-bearing record."""
    call = view.observation_at(fault_step)
    data = call.data if call is not None else None
    if not isinstance(data, dict):
        return set()
    _, back = split_legs(data)
    return {str(data["flights"][i].get("flight_number", "")).upper() for i in back}
