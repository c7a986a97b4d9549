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
from sscbench.testing.shapes import ShapeChecked, shape_problems

__all__ = [
    "Drop",
    "Fail",
    "OpenAIServer",
    "Raw",
    "RecordedRequest",
    "ShapeChecked",
    "Trickle",
    "reply",
    "sequence",
    "shape_problems",
    "text",
    "tool_call",
]
