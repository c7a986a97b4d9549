"""Missing runs read as harness causes (:mod:`sscbench.study.missing`): what
``--retry-missing`` reruns, the line the run and the report open with, and the cause a
study with every run missing exits with."""

from __future__ import annotations

import pytest

from sscbench.study.folder import IndexEntry
from sscbench.study.missing import (
    CLEAN_MISSING,
    all_missing_cause,
    is_retryable_missing,
    missing_cause,
    missing_line,
)


@pytest.mark.parametrize(
    ("reason", "cause"),
    [
        ("agent HTTP 401: chat completion ... AuthenticationError", "auth"),
        ("user HTTP 403: forbidden", "auth"),
        ("agent HTTP 503: the service is unavailable", "outage"),
        ("agent connection failed: ...", "outage"),
        ("agent connection lost: ...", "outage"),
        ("agent HTTP 429: rate limited", "rate limit"),
        ("agent retry-after too long: ...", "rate limit"),
        ("agent timed out: no complete response", "timeout"),
        ("agent timed out waiting for the endpoint: ...", "timeout"),
        ("agent bad response: the endpoint answered with no choices", "bad response"),
        ("episode crash: KeyError: 'x'", "crash"),
        ("agent HTTP 400: bad request", "other"),
        (None, "other"),
    ],
)
def test_causes(reason: str | None, cause: str) -> None:
    assert missing_cause(reason) == cause


def _entry(run_id: str, status: str, reason: str | None = None) -> IndexEntry:
    kind = "clean" if run_id.startswith("c") else "faulted"
    return IndexEntry(
        run_id=run_id,
        case_id="x",
        config_id="a",
        repetition=0,
        kind=kind,
        status=status,
        reason=reason,
    )


def test_line_and_all_missing() -> None:
    lost = [
        _entry("c1", "missing", "agent HTTP 401: refused"),
        _entry("f1", "missing", CLEAN_MISSING),
        _entry("c2", "missing", "agent HTTP 401: refused"),
    ]
    assert not is_retryable_missing(lost[1]) and is_retryable_missing(lost[0])
    line = missing_line(lost, "CMD")
    assert line is not None and line.startswith("3 runs missing") and "2 auth" in line
    assert "+1 faulted run not started" in line and line.endswith("rerun them with CMD")
    assert all_missing_cause(lost) == "auth (agent HTTP 401: refused)"
    mixed = [*lost, _entry("c3", "completed")]
    assert all_missing_cause(mixed) is None and missing_line(mixed[3:]) is None
