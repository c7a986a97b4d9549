"""Why runs are missing: each missing run's index reason read as a harness cause
(auth, outage, rate limit, timeout, bad response, crash), what ``run --retry-missing``
runs again, and the lines the command and the report open with.

A missing run is never an outcome of the agent (``DESIGN.md``): it is a run the harness
lost. Those lost to the endpoint (a refused key, an outage, a rate limit, a timeout, a
broken answer) are rerun by ``--retry-missing``; a crash of our own code is rerun too,
since it says nothing about the agent either.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from sscbench.study.folder import IndexEntry
from sscbench.terminal import count

CLEAN_MISSING = "clean run missing"
"""The reason of a faulted run not started because its clean run is missing."""

CAUSES = ("auth", "outage", "rate limit", "timeout", "bad response", "crash", "other")
"""The harness causes a missing run is counted under, in the order they are shown."""

_HTTP = re.compile(r"HTTP (\d{3})")


def missing_cause(reason: str | None) -> str:
    """The harness cause of a missing run's index reason (``"<where> <kind>: <message>"``,
    :meth:`sscbench.core.ledger.HarnessError.reason`)."""
    head = (reason or "").split(": ", 1)[0]
    status = _HTTP.search(head)
    if status:
        code = int(status.group(1))
        if code in (401, 403):
            return "auth"
        if code == 429:
            return "rate limit"
        if code == 408:
            return "timeout"
        return "outage" if code >= 500 else "other"
    if "timed out" in head or "retry-after" in head:
        return "rate limit" if "retry-after" in head else "timeout"
    if "connection" in head:
        return "outage"
    if "bad response" in head:
        return "bad response"
    if "crash" in head:
        return "crash"
    return "other"


def is_retryable_missing(entry: IndexEntry) -> bool:
    """Whether ``--retry-missing`` runs ``entry`` again: every missing run but one whose
    clean run is missing (it follows its clean run, rerun with it)."""
    return entry.status == "missing" and entry.reason != CLEAN_MISSING


def missing_causes(entries: Iterable[IndexEntry]) -> Counter[str]:
    """Missing runs by harness cause (a faulted run whose clean run is missing is counted
    under its clean run's cause, once as that clean run)."""
    return Counter(missing_cause(e.reason) for e in entries if is_retryable_missing(e))


def missing_line(
    entries: Iterable[IndexEntry], rerun: str = "sscbench run ... --retry-missing"
) -> str | None:
    """``N runs missing (lost to the harness, never outcomes): 4 auth, 1 timeout; …``
    ending with the command that reruns them (``rerun``), or None when none is missing."""
    entries = list(entries)
    missing = sum(e.status == "missing" for e in entries)
    if not missing:
        return None
    causes = missing_causes(entries)
    by = ", ".join(f"{causes[c]} {c}" for c in CAUSES if causes[c])
    follow = missing - sum(causes.values())
    after = (
        f" (+{count(follow, 'faulted run')} not started: their clean run is missing)"
        if follow
        else ""
    )
    return (
        f"{count(missing, 'run')} missing, lost to the harness and never counted "
        f"as outcomes: {by or 'no reason recorded'}{after}; rerun them with {rerun}"
    )


def all_missing_cause(entries: Iterable[IndexEntry]) -> str | None:
    """The cause when every run of the study is missing (the most frequent, named with
    its first reason), else None."""
    entries = list(entries)
    if not entries or any(e.status != "missing" for e in entries):
        return None
    causes = missing_causes(entries)
    if not causes:
        return "no reason recorded"
    cause = causes.most_common(1)[0][0]
    first = next(
        e.reason for e in entries if is_retryable_missing(e) and missing_cause(e.reason) == cause
    )
    return f"{cause} ({first})"
