"""Metamorphic checks: rewrites of an agent's messages that keep their meaning leave every
measured quantity unchanged.

For each hand-labelled run of the development corpora (the gpt-4o corpus, and the τ²
corpus of other model families when its recordings are present), Hypothesis picks a
set of rewrites and applies them to every assistant message of the run's ledger:
JSON-wrapping (``{"message": ...}`` with literal ``\\n``), ISO dates written out,
identifiers in bold or backticks, ``key: value`` lines as a markdown table, plain lines
as a bulleted list, a courtesy line added, a hedge that does not question anything.
The run is measured again from the rewritten ledger; T_F, T_E, T_S, T_U, A, Z_S and
Y_end must equal the measurement of the text as written (which equals the hand labels).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from realtext_corpus import DATA, HERE, TAU2, run_corpus
from sscbench.core.ledger import AssistantEvent
from sscbench.measure.study import measure_run
from sscbench.study.cases import read_cases
from sscbench.study.folder import StudyDir
from sscbench.study.ledgers import read_ledger, read_run_evaluator

QUANTITIES = ("T_F", "T_E", "T_S", "T_U", "A", "Z_S", "Y_end")
TAU2_CORPUS = DATA / "realtext-tau2"
_ISO = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")
_IDS = re.compile(
    r"(?<![\w*`])((?:credit_card|gift_card|certificate)_\d+|\b[A-Z0-9]{6}\b|\b\d{10}\b)(?![\w*`])"
)
_KEY_VALUE = re.compile(
    r"^\s*(?:[-*•]\s+)?\*{0,2}([A-Za-z][\w ()'/-]{0,38}?)\*{0,2}:\*{0,2}\s+(\S.*)$"
)


def json_wrapped(text: str) -> str:
    """The message as an orchestrator writes it: a JSON object with a ``message`` field."""
    return json.dumps({"message": text, "next_steps": "Awaiting your reply."}, ensure_ascii=False)


def dates_written_out(text: str) -> str:
    """ISO dates written as 'May 27, 2024' (same day)."""

    def long(match: re.Match[str]) -> str:
        try:
            day = dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            return match.group(0)
        return f"{day.strftime('%B')} {day.day}, {day.year}"

    return _ISO.sub(long, text)


def ids_marked(text: str) -> str:
    """Identifiers in markdown bold or code spans."""
    return _IDS.sub(
        lambda m: f"**{m.group(1)}**" if len(m.group(1)) != 10 else f"`{m.group(1)}`", text
    )


def key_values_as_table(text: str) -> str:
    """Runs of two or more 'Key: value' lines as a two-column markdown table."""
    lines, out, block = text.split("\n"), [], []

    def flush() -> None:
        if len(block) >= 2:
            out.extend(["| Field | Value |", "| --- | --- |"])
            out.extend(f"| {k.strip()} | {v.strip()} |" for k, v in block)
        else:
            out.extend(f"{k}: {v}" for k, v in block)
        block.clear()

    for line in lines:
        match = _KEY_VALUE.match(line)
        if match and "|" not in line:
            block.append((match.group(1), match.group(2)))
            continue
        flush()
        out.append(line)
    flush()
    return "\n".join(out)


def lines_bulleted(text: str) -> str:
    """Plain lines of a multi-line message as bullets (lists, tables and headers kept)."""
    lines = text.split("\n")
    if len(lines) < 3:
        return text
    plain = re.compile(r"^(?![\s]*(?:[-*•#|>]|\d+[.)]))\S")
    return "\n".join(f"- {x}" if plain.match(x) else x for x in lines)


def courtesy_added(text: str) -> str:
    """A courtesy line before and after the message."""
    return f"Thank you for your patience.\n\n{text}\n\nIs there anything else I can help you with?"


def hedge_added(text: str) -> str:
    """A hedge that qualifies nothing in particular ('As far as I can see, ...')."""
    return f"As far as I can see, {text[:1].lower()}{text[1:]}" if text[:1].isalpha() else text


REWRITES: dict[str, Callable[[str], str]] = {
    "json": json_wrapped,
    "dates": dates_written_out,
    "ids": ids_marked,
    "table": key_values_as_table,
    "bullets": lines_bulleted,
    "courtesy": courtesy_added,
    "hedge": hedge_added,
}
ORDER = ("dates", "ids", "table", "bullets", "hedge", "courtesy", "json")  # json last: it wraps


def _prose(text: str, names: list[str]) -> str:
    for name in ORDER:
        if name in names and name != "json":
            text = REWRITES[name](text)
    return text


def _leaves(value: object, names: list[str]) -> object:
    if isinstance(value, dict):
        return {k: _leaves(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_leaves(v, names) for v in value]
    return _prose(value, names) if isinstance(value, str) else value


def rewrite_message(text: str, names: list[str]) -> str:
    """A message rewritten: its prose, or for a JSON-wrapped message the prose in its
    string values (the JSON stays JSON), then wrapped in JSON if asked."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict | list):  # already JSON-wrapped: not wrapped twice
        indent = 2 if "\n" in text.strip() else None
        return json.dumps(_leaves(data, names), ensure_ascii=False, indent=indent)
    text = _prose(text, names)
    return json_wrapped(text) if "json" in names else text


def _rewritten(ledger: list, names: list[str]) -> list:
    out = []
    for event in ledger:
        if isinstance(event, AssistantEvent) and event.content:
            event = event.model_copy(update={"content": rewrite_message(event.content, names)})
        out.append(event)
    return out


def _measured(study: StudyDir, cases: dict, run_id: str, names: list[str]) -> dict:
    entry = next(e for e in study.read_index() if e.run_id == run_id)
    ledger = read_ledger(study, run_id)
    evaluator = read_run_evaluator(study, run_id)
    row = measure_run(cases[entry.case_id], _rewritten(ledger, names), evaluator).columns()
    return {q: row.get(q) for q in QUANTITIES}


def _corpora(taubench: Path, tmp_path_factory) -> list[tuple[StudyDir, dict, list[str]]]:
    ready = all((TAU2_CORPUS / f"labels-{f}.jsonl").exists() for f in ("claude", "gptoss", "orch"))
    roots = [HERE] + ([TAU2_CORPUS] if ready and TAU2.exists() else [])
    out = []
    for root in roots:
        study = StudyDir(run_corpus(root, taubench, tmp_path_factory.mktemp(root.name) / "study"))
        cases = {c.case_id: c for c in read_cases(study.root / "cases.jsonl")}
        runs = sorted(e.run_id for e in study.read_index() if e.kind == "faulted")
        out.append((study, cases, runs))
    return out


@pytest.fixture(scope="module")
def corpora(taubench, tmp_path_factory):
    """The development corpora, run once: (study, cases, faulted run ids) each."""
    return _corpora(taubench, tmp_path_factory)


@pytest.fixture(scope="module")
def baseline(corpora):
    """Every run's measurement of the text as written."""
    return {
        (i, run): _measured(study, cases, run, [])
        for i, (study, cases, runs) in enumerate(corpora)
        for run in runs
    }


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_meaning_preserving_rewrites_leave_every_quantity_unchanged(corpora, baseline, data):
    """Any set of the rewrites, on any labelled run: the same seven quantities."""
    index = data.draw(st.integers(0, len(corpora) - 1), label="corpus")
    study, cases, runs = corpora[index]
    run_id = data.draw(st.sampled_from(runs), label="run")
    names = data.draw(
        st.lists(st.sampled_from(sorted(REWRITES)), min_size=1, unique=True), label="rewrites"
    )
    assert _measured(study, cases, run_id, names) == baseline[(index, run_id)]


@pytest.mark.parametrize("name", sorted(REWRITES))
def test_each_rewrite_alone_on_every_run(corpora, baseline, name):
    """Each rewrite alone, exhaustively over the corpora, listing every run it moves."""
    moved = []
    for index, (study, cases, runs) in enumerate(corpora):
        for run_id in runs:
            got = _measured(study, cases, run_id, [name])
            want = baseline[(index, run_id)]
            if got != want:
                moved.append(
                    f"{run_id}: "
                    + ", ".join(f"{q} {want[q]}→{got[q]}" for q in QUANTITIES if got[q] != want[q])
                )
    assert not moved, "\n".join(moved)


def test_the_rewrites_change_the_text():
    """The rewrites are not identities on the forms they target (the test could fail)."""
    sample = "Reservation ABC123:\nOutbound: 2024-05-20\nReturn: 2024-05-27\nPaid with gift_card_1234567."
    for name, rewrite in REWRITES.items():
        assert rewrite(sample) != sample, name
    assert "May 27, 2024" in dates_written_out(sample)
    assert "| Return | 2024-05-27 |" in key_values_as_table(sample)
    assert json.loads(json_wrapped(sample))["message"] == sample
