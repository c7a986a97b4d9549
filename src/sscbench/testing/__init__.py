"""Test doubles shared by the test suite and the benchmarks (no network beyond localhost)."""

from sscbench.testing.openai_server import OpenAIServer
from sscbench.testing.replies import (
    Drop,
    Fail,
    Raw,
    RecordedRequest,
    Trickle,
    reply,
    sequence,
    text,
    tool_call,
)

__all__ = [
    "Drop",
    "Fail",
    "OpenAIServer",
    "Raw",
    "RecordedRequest",
    "Trickle",
    "reply",
    "sequence",
    "text",
    "tool_call",
]
