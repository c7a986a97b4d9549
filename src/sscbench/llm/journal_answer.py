"""A recorded model answer, the request key it answers, and the per-run journal files of
earlier versions (``runs/<run-id>.partial.jsonl``), still read when such a study resumes.

An answer is the body of one completed model response as it arrived (``json`` value or
``text``), the role that asked, the sha256 of the request's bytes and the retries it
took. A resumed run is answered from its recorded answers in order while each request's
role and hash match (:class:`~sscbench.llm.journal.ResponseJournal`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.json_types import JsonValue
from sscbench.jsonl import dumps_line
from sscbench.reading import loads_json

JOURNAL_FORMAT = 1
SUFFIX = ".partial.jsonl"
"""The per-run journal file of earlier versions: read on resume, then removed."""

HASH_PIECE = 2047
"""Bytes hashed per call: below hashlib's threshold (2,048) for letting go of the
interpreter lock, which on the event loop's thread hands it to a waiting writer thread
and makes the loop wait for it back (a convoy) for a hash of a few microseconds."""


def request_hash(content: bytes) -> str:
    """The key of a request: the sha256 of the bytes sent (hashed in pieces that keep
    the interpreter lock, :data:`HASH_PIECE`; the digest is the same)."""
    digest = hashlib.sha256()
    view = memoryview(content)
    for start in range(0, len(view), HASH_PIECE):
        digest.update(view[start : start + HASH_PIECE])
    return digest.hexdigest()


@dataclass(frozen=True)
class Answer:
    """One completed model response: the body as it arrived and the retries before it."""

    role: str
    request_sha256: str
    kind: str  # "json": the decoded body; "text": a body that was not JSON
    value: JsonValue
    retries: int = 0
    rate_limited: int = 0
    body: bytes | None = field(default=None, compare=False, repr=False)
    """The ``json`` body's bytes as they arrived (a live answer), for :func:`answer_line`."""

    def fields(self) -> dict[str, JsonValue]:
        """The answer's fields as a journal line holds them."""
        return {
            "role": self.role,
            "request_sha256": self.request_sha256,
            "kind": self.kind,
            "value": self.value,
            "retries": self.retries,
            "rate_limited": self.rate_limited,
        }


SPLIT_BYTES = (b"\n", b"\x00")
"""Bytes a body written into a line as it is may not hold: the line's end, and NUL (JSON
text in UTF-16 or UTF-32, which the decoder also takes, has it)."""
ESCAPED_UTF8 = (b"\xef\xbb\xbf", b"\xed", b"\xe2\x80\xa8", b"\xe2\x80\xa9", b"\xc2\x85")
"""UTF-8 a line never holds as it is (:func:`~sscbench.jsonl.json_safe`): a byte order
mark, the lead byte of surrogates (and of some Hangul, which is then encoded again) and
the line breaks U+2028, U+2029 and U+0085."""


def body_fits_a_line(body: bytes) -> bool:
    """Whether a JSON body, as it arrived, can stand for its value in a journal line as
    it is: one line of UTF-8 that :func:`~sscbench.jsonl.dumps_line` would not escape.
    The value is then not encoded again: a tenth of a live answer's cost on the event
    loop at concurrency 256 (``benchmarks/overhead.py``)."""
    if any(piece in body for piece in SPLIT_BYTES):
        return False
    return body.isascii() or not any(piece in body for piece in ESCAPED_UTF8)


def answer_line(run_id: str, attempt: str, answer: Answer) -> bytes:
    """A live answer's line of a journal book: its fields, the ``json`` body as it arrived
    when it fits a line (:func:`body_fits_a_line`; it decodes to the same value), else the
    value encoded."""
    row: dict[str, JsonValue] = {"run": run_id, "attempt": attempt, **answer.fields()}
    body = answer.body
    if answer.kind != "json" or body is None or not body_fits_a_line(body):
        return (dumps_line(row) + "\n").encode("utf-8")
    del row["value"]
    return (dumps_line(row)[:-1] + ',"value":').encode("utf-8") + body + b"}\n"


def parse_answer(row: object) -> Answer | None:
    """The answer a decoded journal line holds, or None for a line that holds none."""
    if not isinstance(row, dict):
        return None
    try:
        answer = Answer(
            role=row["role"],
            request_sha256=row["request_sha256"],
            kind=row["kind"],
            value=row["value"],
            retries=int(row.get("retries", 0)),
            rate_limited=int(row.get("rate_limited", 0)),
        )
    except (ValueError, KeyError, TypeError):
        return None
    ok = isinstance(answer.role, str) and isinstance(answer.request_sha256, str)
    return answer if ok and answer.kind in ("json", "text") else None


def read_journal(path: Path, run_id: str) -> tuple[list[Answer], str | None]:
    """The answers a per-run journal file of earlier versions holds (its whole lines up
    to the first torn one), and why it cannot be used at all (None when it can, or when
    there is none)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], None
    except OSError as exc:
        return [], f"unreadable: {exc.strerror or exc}"
    lines = data.split(b"\n")[:-1]  # a last line without its newline was cut by a kill
    if not lines:
        return [], None
    try:
        header = loads_json(lines[0])
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("sscbench_journal") != JOURNAL_FORMAT:
        return [], "its first line is not a journal header of format 1"
    if header.get("run_id") != run_id:
        return [], f"it is the journal of run {header.get('run_id')!r}"
    answers = []
    for raw in lines[1:]:
        try:
            answer = parse_answer(loads_json(raw))
        except ValueError:
            answer = None
        if answer is None:
            break
        answers.append(answer)
    return answers, None


__all__ = [
    "SUFFIX",
    "Answer",
    "answer_line",
    "body_fits_a_line",
    "parse_answer",
    "read_journal",
    "request_hash",
]
