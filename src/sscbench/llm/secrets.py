"""Masking API keys out of every text an endpoint sends that reaches disk or the console.

An endpoint may echo the key back (in an error body, or a hostile model in its
reply), whole or in part, and not always as it was sent: upper-cased, or with spaces
or line breaks put inside it. :func:`redact` replaces the key and every stretch of
text that holds a :data:`FRAGMENT`-character piece of it — matched in any case and
across any whitespace — with ``***``, so neither a whole key nor a telling fragment
is ever stored (ledgers, run pages and ``.eval`` files all hold text redacted here). A key shorter than :data:`FRAGMENT` is
masked wherever it stands as a word of its own, in any case (not inside a longer word, which
would mangle ordinary text without hiding anything).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

FRAGMENT = 6
"""Length of the shortest piece of a key that is masked wherever it appears."""

MASK = "***"

PLACEHOLDER_KEY = "sk-no-key"
"""The key sent when the named environment variable is unset (local servers ignore it)."""


def _normal(text: str) -> tuple[str, list[int]]:
    """``text`` as keys are matched in it (lower case, whitespace dropped) and, for each
    of its characters, where that character stands in ``text``."""
    chars, where = [], []
    for i, char in enumerate(text):
        if char.isspace():
            continue
        low = char.lower()
        chars.append(low if len(low) == 1 else char)
        where.append(i)
    return "".join(chars), where


def _pieces(secret: str) -> set[str]:
    key = "".join(secret.split()).lower()
    return {key[i : i + FRAGMENT] for i in range(len(key) - FRAGMENT + 1)}


def _spans(text: str, secret: str) -> list[tuple[int, int]]:
    """Where ``secret`` or a piece of it stands in ``text``, in any case and with any
    whitespace put inside it (an echo that spaced or upper-cased the key)."""
    if len(secret) < FRAGMENT:
        pattern = rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])"
        return [m.span() for m in re.finditer(pattern, text, re.IGNORECASE)]
    pieces = _pieces(secret)
    rough = "".join(text.split()).lower()  # C speed: most texts hold no piece at all
    if not any(piece in rough for piece in pieces):
        return []
    normal, where = _normal(text)
    spans = []
    for piece in pieces:
        start = normal.find(piece)
        while start != -1:
            spans.append((where[start], where[start + FRAGMENT - 1] + 1))
            start = normal.find(piece, start + 1)
    return spans


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with each key, and each text stretch holding a piece of one, as ``***``.

    Overlapping or touching pieces merge into one masked stretch. The placeholder key
    and empty strings are not secrets.
    """
    if not text:
        return text
    spans: list[tuple[int, int]] = []
    for secret in secrets:
        if secret and secret != PLACEHOLDER_KEY:
            spans.extend(_spans(text, secret))
    if not spans:
        return text
    spans.sort()
    merged = [list(spans[0])]
    for start, end in spans[1:]:
        if start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, last = [], 0
    for start, end in merged:
        out.append(text[last:start])
        out.append(MASK)
        last = end
    out.append(text[last:])
    return "".join(out)
