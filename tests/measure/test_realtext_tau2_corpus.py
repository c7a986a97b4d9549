"""The real-text corpus of other model families: τ²-bench results replayed under faults.

``tests/data/realtext-tau2`` is a replay study of three τ²-bench results files in
``../shared/tau2-trajectories/`` (claude-opus-4-6 and gpt-oss-120b on airline, an
orchestrator agent on retail) whose pairs files name every hand-labelled run. It is run
with plain ``sscbench run``, measured with the default rules and scored against the
labels (written before the corpus was first measured): every quantity 100%.
"""

from __future__ import annotations

from collections import Counter

import pytest

from realtext_corpus import DATA, TAU2, run_corpus
from sscbench.agents.pairs import read_pairs
from sscbench.review.agreement import agreement
from sscbench.review.labels import read_labels
from sscbench.study.folder import StudyDir

ROOT = DATA / "realtext-tau2"
FAMILIES = ("claude", "gptoss", "orch")
pytestmark = pytest.mark.shared_data(TAU2)  # the whole τ² files: a clone skips it


def _labels_file(tmp_path) -> str:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        "".join((ROOT / f"labels-{f}.jsonl").read_text("utf-8") for f in FAMILIES), "utf-8"
    )
    return str(path)


@pytest.fixture(scope="module")
def corpus(taubench, tmp_path_factory):
    """The corpus study, run and measured once."""
    return StudyDir(run_corpus(ROOT, taubench, tmp_path_factory.mktemp("tau2") / "study"))


def test_the_corpus_has_every_family_and_its_labels(corpus):
    """≥ 120 labelled runs, ≥ 40 of them retail ItemOption; every run triggered and labelled."""
    pairs = [p for f in FAMILIES for p in read_pairs(ROOT / f"pairs-{f}.jsonl")]
    labels = [label for f in FAMILIES for label in read_labels(ROOT / f"labels-{f}.jsonl")]
    faulted = [e for e in corpus.read_index() if e.kind == "faulted"]
    assert len(pairs) >= 120 and len(faulted) == len(pairs)
    operators = Counter(p.case_id.split(":")[2] for p in pairs)
    assert operators["ItemOption"] >= 40 and set(operators) == {
        "ReturnDate",
        "PaySource",
        "WriteEffect",
        "ItemOption",
    }
    assert (
        {label.run_id for label in labels}
        == {p.run_id for p in pairs}
        == {e.run_id for e in faulted}
    )
    assert all(e.status == "completed" and e.triggered for e in faulted)


def test_measurement_agrees_with_hand_labels_on_other_models_text(corpus, tmp_path):
    """Every quantity at 100% (exact steps; T_U and Y_end over adopting runs), listing each
    disagreement."""
    result = agreement(corpus.root, _labels_file(tmp_path)).to_dict()
    assert not result["unmeasured_runs"]
    shortfalls = [
        f"{q} {cell['agree']}/{cell['n']}"
        for q, groups in result["quantities"].items()
        for cell in [groups["all"]]
        if cell["agree"] < cell["n"]
    ]
    listed = [
        f"{d['run_id']} {d['quantity']}: label {d['reference']} vs measured {d['measured']}"
        for d in result["disagreements"]
    ]
    assert not shortfalls, "; ".join(shortfalls) + "\n" + "\n".join(listed)
