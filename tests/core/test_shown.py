"""Recorded text on pages: whole up to SHOWN_CHARS, else cut with the cut stated."""

from __future__ import annotations

from sscbench.core.shown import SHOWN_CHARS, shown


def test_ordinary_text_is_shown_whole():
    text = "x" * SHOWN_CHARS
    assert shown(text, "runs/r.ledger.jsonl") is text


def test_a_long_text_is_cut_and_says_how_much_and_where():
    text = "ab" * 60_000
    page = shown(text, "runs/r.ledger.jsonl", limit=1_000)
    assert page.startswith(text[:1_000]) and len(page) < 1_100
    assert page.endswith("… [cut: 119,000 more characters; full text in runs/r.ledger.jsonl]")
    assert shown(text, limit=10).endswith("… [cut: 119,990 more characters]")
