"""Cost and recall of reading dates in every language (references/dates_locale.py).

On every string with a digit in the τ² recordings of claude-opus-4-6, gpt-oss-120b and
the orchestrator (../shared/tau2-trajectories) and τ-bench's gpt-4o recording:

- µs per message of ``find_date_references`` with the English reader alone and with the
  locale reader added (uncached, interleaved rounds, the median round reported);
- the one-time cost of building the CLDR name tables (Babel);
- the dates read back from the same messages with their month-named and ISO dates
  written in French, Spanish, German and Russian by Babel (the translation of
  tests/measure/test_metamorphic_translation.py): the same ISO dates, in order.

Usage: PYTHONPATH=src python benchmarks/locale_dates.py
"""

from __future__ import annotations

import glob
import json
import statistics
import sys
import time
from pathlib import Path

from sscbench.references import dates
from sscbench.references.date_names import locale_names

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "measure")]


def _strings(value: object, out: set[str]) -> None:
    if isinstance(value, str):
        if any(c.isdigit() for c in value):
            out.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def messages() -> list[str]:
    """Every string with a digit in the recordings (messages, arguments, observations)."""
    out: set[str] = set()
    shared = ROOT.parent / "shared"
    paths = glob.glob(str(shared / "tau2-trajectories" / "*.json"))
    paths += glob.glob(str(shared / "tau-bench" / "historical_trajectories" / "*.json"))
    for path in paths:
        _strings(json.loads(Path(path).read_text()), out)
    return sorted(out)


def _round(texts: list[str]) -> float:
    read = dates._references.__wrapped__  # uncached
    started = time.perf_counter()
    for text in texts:
        read(text, dates.DEFAULT_YEAR, None)
    return (time.perf_counter() - started) / len(texts) * 1e6


def cost(texts: list[str], rounds: int = 5) -> tuple[float, float]:
    """(µs per message English alone, µs with the locale reader), median of interleaved rounds."""
    english, both = [], []
    locale = dates._locale_dates
    for _ in range(rounds):
        dates._locale_dates = lambda text: []  # type: ignore[assignment]
        english.append(_round(texts))
        dates._locale_dates = locale
        both.append(_round(texts))
    return statistics.median(english), statistics.median(both)


def recall(texts: list[str]) -> dict[str, tuple[int, int]]:
    """(messages whose dates read the same after translation, messages with a date)."""
    from test_metamorphic_translation import LANGUAGES, dates_translated

    dated = [t for t in texts if dates.find_date_references(t)]
    out = {}
    for language in LANGUAGES:
        same = sum(
            [r.iso for r in dates.find_date_references(t)]
            == [r.iso for r in dates.find_date_references(dates_translated(t, language))]
            for t in dated
        )
        out[language] = (same, len(dated))
    return out


def main() -> None:
    """Print the table build time, the cost per message and the recall on translations."""
    started = time.perf_counter()
    months, weekdays = locale_names()
    built = time.perf_counter() - started
    print(f"CLDR tables: {len(months)} month names, {len(weekdays)} weekday names, {built:.2f} s")
    texts = messages()
    english, both = cost(texts)
    chars = sum(map(len, texts)) / len(texts)
    print(f"{len(texts)} messages ({chars:.0f} characters on average)")
    print(f"µs per message: English alone {english:.0f}, with every locale {both:.0f}")
    for language, (same, total) in recall(texts).items():
        print(f"{language}: {same}/{total} messages read to the same dates after translation")


if __name__ == "__main__":
    main()
