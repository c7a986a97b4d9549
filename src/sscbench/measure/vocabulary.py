"""What words a run's readers can be expected to know: English and the run's own context.

The unread marks (:mod:`sscbench.measure.unread`) look for text that seems to carry the
affected fact but that no reader consumed. A cheap, principled signal for such text is a
word that is neither English nor anything the model was shown: a month, unit or product
word in a form no reader has (a made-up or foreign word), or a sentence in a language the
readers have no forms for. English is pyspellchecker's English word list (a maintained
frequency dictionary of ~160,000 words; no language model), widened by the abbreviations
business text writes; the run's context is every word of the system prompt, the user's
messages and the tool observations (product names, option values and units, airport
codes, people's names), so echoing what the model was shown never counts as unknown.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from sscbench.core.view import LedgerView

WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
"""A word: letters (any script), with one inner apostrophe ("don't")."""

ABBREVIATIONS = frozenset(
    [
        "dep",
        "arr",
        "usd",
        "eur",
        "gbp",
        "hr",
        "hrs",
        "min",
        "mins",
        "sec",
        "secs",
        "approx",
        "incl",
        "excl",
        "etc",
        "pre",
        "qty",
        "pcs",
        "ea",
        "vs",
        "am",
        "pm",
        "ok",
        "ids",
        "id",
        "info",
        "no",
        "nos",
        "conf",
        "ref",
    ]
)
"""Abbreviations of English business and travel text that the word list lacks."""

FUNCTION_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "to",
        "of",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "your",
        "you",
        "i",
        "we",
        "it",
        "in",
        "on",
        "for",
        "with",
        "this",
        "that",
        "will",
        "has",
        "have",
        "had",
        "not",
        "my",
        "our",
        "as",
        "at",
        "by",
        "from",
        "can",
        "do",
        "does",
        "please",
        "if",
        "but",
        "so",
    ]
)
"""English function words: nearly every English sentence of five words has one."""


COMMON = 5000
"""A word counted at least this often in the English list is common English: a rarer one
beside a number ("28 mai") may be a month or unit of another language."""


@functools.cache
def _frequencies() -> dict[str, int]:
    from spellchecker import SpellChecker

    return dict(SpellChecker(language="en", distance=1).word_frequency.dictionary)


@functools.cache
def english_words() -> frozenset[str]:
    """The English word list (lower case), loaded once per process."""
    return frozenset(_frequencies()) | ABBREVIATIONS | FUNCTION_WORDS


@functools.cache
def common_words() -> frozenset[str]:
    """The common English words (:data:`COMMON`), abbreviations and function words."""
    common = (w for w, n in _frequencies().items() if n >= COMMON)
    return frozenset(common) | ABBREVIATIONS | FUNCTION_WORDS


def words_of(text: str) -> list[str]:
    """The words of a text, lower case."""
    return [w.lower() for w in WORD.findall(text)]


@functools.lru_cache(maxsize=512)
def _word_set(text: str) -> frozenset[str]:
    """The distinct words of a text, lower case (cached: runs share a system prompt)."""
    return frozenset(w.lower() for w in set(WORD.findall(text)))


class Vocabulary:
    """The words a run's readers can be expected to know: English and the run's context."""

    def __init__(self, context: Iterable[str] = ()):
        self.english = english_words()
        self.context = frozenset(w.lower() for w in context)
        self._known: dict[str, bool] = {}

    @classmethod
    def of_view(cls, view: LedgerView) -> Vocabulary:
        """English plus every word the model was shown (system, user, observations)."""
        words: set[str] = set()
        for message in view.messages:
            if message.role != "assistant":
                words |= _word_set(message.content)
        for call in view.calls:
            if call.observation:
                words |= _word_set(call.observation)
        return cls(words)

    def knows(self, word: str) -> bool:
        """Whether a word is English, an abbreviation, or shown to the model; a single
        letter always counts as known (initials, list labels)."""
        known = self._known.get(word)
        if known is None:
            known = self._known[word] = self._knows(word)
        return known

    def common(self, word: str) -> bool:
        """Whether a word is common English or shown to the model: the test for a word
        beside a number, where a rare English word ("mai", "mars") is more likely a month
        or unit of another language than what it means in English."""
        lower = word.lower()
        if len(lower) < 2 or lower in self.context:
            return True
        stem = lower.removesuffix("s")
        return lower in common_words() or (stem != lower and stem in common_words())

    def _knows(self, word: str) -> bool:
        lower = word.lower()
        if len(lower) < 2 or lower in self.context or lower in self.english:
            return True
        # a possessive or plural of a known word ("Zorvak's" is not, "helmets" is)
        stem = lower.removesuffix("'s").removesuffix("s")
        return stem != lower and (stem in self.context or stem in self.english)
