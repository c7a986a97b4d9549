"""Recorded text as pages show it: capped, the cut stated.

A report or review page shows each recorded text (a message, a tool result, a call's
arguments, an evaluator record, a system prompt) whole up to :data:`SHOWN_CHARS`
characters — far above any real message, so ordinary pages are unchanged — and cuts a
longer one there, saying how much was cut and where the whole text is
(``… [cut: 99,900,000 more characters; full text in runs/X.ledger.jsonl]``, or in a
study whose runs are in shards ``… full text in sscbench show STUDY X``). A 100 MB
message therefore costs a page about 100 KB, not 100 MB per place it appears.
Only pages are capped: measurement, the ledger and ``sscbench show`` read every
character.
"""

from __future__ import annotations

SHOWN_CHARS = 100_000
"""The most characters of one recorded text a page shows."""


def shown(text: str, where: str | None = None, limit: int = SHOWN_CHARS) -> str:
    """``text`` as a page shows it: whole up to ``limit`` characters, else its first
    ``limit`` characters and a visible note of the cut naming ``where`` the full text is."""
    if len(text) <= limit:
        return text
    more = len(text) - limit
    source = f"; full text in {where}" if where else ""
    return f"{text[:limit]}… [cut: {more:,} more characters{source}]"
