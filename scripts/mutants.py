"""Mutation check of the measurement, the operators' use rules, admission and populations.

Each mutant is one small source patch that breaks one principle of the measurement (a
boundary moved by one, a negation dropped, a population widened). The script copies
``src/`` to a temporary folder once, applies one mutant at a time to the copy (never to
the working tree), runs the mutant's targeted tests with ``PYTHONPATH`` pointing at the
copy, restores the file, and prints killed / survived per mutant. A surviving mutant is
a principle no test holds: add a test of the principle, or say in ``docs/testing.md``
why the mutant is equivalent.

    python scripts/mutants.py                 # every mutant
    python scripts/mutants.py read-back-bound claims-control   # some, by name
    python scripts/mutants.py --list          # the set, without running it
    python scripts/mutants.py --ignore tests/measure/test_read_back.py read-back-bound
                                              # does it survive without that test?

``tests/test_mutants_script.py`` checks that every mutant's original snippet occurs
exactly once in the source, so the set cannot rot silently when the code moves.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

MEASURE_TESTS = (
    "tests/measure/test_measure_cases.py",
    "tests/measure/test_measure_properties.py",
    "tests/measure/test_realtext_rules.py",
    "tests/measure/test_realtext_rules_records.py",
    "tests/measure/test_return_date_text.py",
    "tests/measure/test_write_effect_text.py",
    "tests/measure/test_item_text_forms.py",
    "tests/measure/test_read_back.py",
    "tests/measure/test_event_rules.py",
)
RULE_TESTS = (
    "tests/faults/test_use_sentence_scope.py",
    "tests/faults/test_rejection_cues.py",
    "tests/faults/test_hypothetical_scope.py",
    *MEASURE_TESTS,
)
ADMISSION_TESTS = ("tests/admission",)
ANALYSIS_TESTS = ("tests/analysis",)
DEFINITION_TESTS = (
    "tests/core/test_definitions.py",
    "tests/measure/test_measure_properties.py",
    "tests/measure/test_measure_cases.py",
    *ANALYSIS_TESTS,
    *ADMISSION_TESTS,
)


@dataclass(frozen=True)
class Mutant:
    """One small source patch: where, what it replaces, the principle it breaks, and the
    tests that should kill it (paths relative to the repository)."""

    name: str
    file: str  # relative to src/sscbench
    original: str
    mutated: str
    principle: str
    tests: tuple[str, ...]


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "read-back-bound",
        "measure/reconstruct.py",
        "if call.call_step <= t_f or call.observation_step is None",
        "if call.observation_step is None or call.observation_step < t_f",
        "the fault-bearing read is never its own read-back (bound moved by one)",
        ("tests/measure/test_read_back.py", *MEASURE_TESTS),
    ),
    Mutant(
        "reject-cue-whole-message",
        "faults/operators/uses.py",
        "if candidate.mentions_injected and REJECT_CUE.search(text):",
        "if candidate.mentions_injected and REJECT_CUE.search(full):",
        "a rejection cue counts only in the sentence stating the value",
        RULE_TESTS,
    ),
    Mutant(
        "negation-cue-whole-message",
        "faults/operators/uses.py",
        "            if NEGATION_CUE.search(text):",
        "            if NEGATION_CUE.search(full):",
        "v against v′ needs the negation in the sentence stating both values",
        RULE_TESTS,
    ),
    Mutant(
        "negation-check-dropped",
        "faults/operators/uses.py",
        "            if NEGATION_CUE.search(text):",
        "            if True:",
        "both values side by side without a negation is a verification, not a correction",
        RULE_TESTS,
    ),
    Mutant(
        "rejection-by-retraction-dropped",
        "faults/operators/uses.py",
        'rf"\\b(?:{_FALSITY}|{_DENIED}|{_RETRACTED}|{_BEFORE_OUTBOUND})\\b"',
        'rf"\\b(?:{_FALSITY}|{_DENIED}|{_BEFORE_OUTBOUND})\\b"',
        "retracting one's own earlier statement of v′ rejects it",
        RULE_TESTS,
    ),
    Mutant(
        "rejection-by-denial-dropped",
        "faults/operators/uses.py",
        'rf"\\b(?:{_FALSITY}|{_DENIED}|{_RETRACTED}|{_BEFORE_OUTBOUND})\\b"',
        'rf"\\b(?:{_FALSITY}|{_RETRACTED}|{_BEFORE_OUTBOUND})\\b"',
        "denying v′ (negated, or under a modal of impossibility) rejects it",
        RULE_TESTS,
    ),
    Mutant(
        "witness-arguments-unchecked",
        "admission/witness.py",
        "    if run.missing:\n",
        "    if False:\n",
        "a witness is legal only when every argument is obtainable from the history",
        ADMISSION_TESTS,
    ),
    Mutant(
        "witness-missing-not-recorded",
        "admission/witness.py",
        '                run.missing.append(f"{turn.tool}.{path}={value!r}")',
        "                pass",
        "an argument found nowhere is recorded as missing",
        ADMISSION_TESTS,
    ),
    Mutant(
        "claims-control",
        "analysis/claims.py",
        "        and not row.control\n",
        "",
        "target-value controls never enter a claim card's population",
        ANALYSIS_TESTS,
    ),
    Mutant(
        "adoption-control",
        "analysis/populations.py",
        "keep = lambda r: with_controls or not r.control  # noqa: E731",
        "keep = lambda r: True  # noqa: E731",
        "the primary adoption quantities exclude target-value controls",
        ANALYSIS_TESTS,
    ),
    Mutant(
        "population-without-use",
        "analysis/populations.py",
        "population = [r for r in triggered if is_step(r.T_S)]\n    decidable_z",
        "population = list(triggered)\n    decidable_z",
        "P holds only triggered runs with a decidable first dependent use",
        ANALYSIS_TESTS,
    ),
    Mutant(
        "pre-late-boundary",
        "core/definitions.py",
        "    return t_e < t_s\n",
        "    return t_e <= t_s\n",
        "evidence completed at the first use's own step is late, not pre",
        DEFINITION_TESTS,
    ),
    Mutant(
        "absent-as-late",
        "core/definitions.py",
        "    if t_e == INF:\n        return Stratum.ABSENT",
        "    if t_e == INF:\n        return Stratum.LATE",
        "no counterevidence at all is absent, never late",
        DEFINITION_TESTS,
    ),
    Mutant(
        "undecidable-evidence-ignored",
        "core/definitions.py",
        "if t_s == UNDECIDABLE or t_e == UNDECIDABLE:",
        "if t_s == UNDECIDABLE:",
        "an undecidable T_E makes Z_S undecidable",
        DEFINITION_TESTS,
    ),
    Mutant(
        "no-use-after-undecidable",
        "core/definitions.py",
        "    if t_s == INF:\n        return Stratum.NO_USE\n",
        "    if t_s == INF and t_e == INF:\n        return Stratum.NO_USE\n",
        "a run without a dependent use is no-use whatever the evidence",
        DEFINITION_TESTS,
    ),
    Mutant(
        "wilson-for-clusters",
        "analysis/stats.py",
        "    if n_distinct == len(vals):",
        "    if n_distinct >= 1:",
        "several runs of one cluster need the clustered interval, not Wilson",
        ANALYSIS_TESTS,
    ),
    Mutant(
        "undecidable-use-skipped",
        "measure/reconstruct.py",
        "        if use.label is UseLabel.UNDECIDABLE:\n            return UNDECIDABLE",
        "        if use.label is UseLabel.UNDECIDABLE:\n            continue",
        "an unresolved candidate before the first use makes T_S undecidable",
        MEASURE_TESTS,
    ),
    Mutant(
        "undecidable-adoption-as-zero",
        "measure/reconstruct.py",
        "    if any(u.label is UseLabel.UNDECIDABLE for u in uses):",
        "    if False:",
        "adoption is undecidable, not 0, when a use cannot be classified",
        MEASURE_TESTS,
    ),
    Mutant(
        "hedge-cancels-commitment",
        "measure/reconstruct.py",
        "    uses = hedges_beside_commitments(uses)\n",
        "",
        "a hedge beside a call committing to v′ does not cancel the reliance",
        MEASURE_TESTS,
    ),
    Mutant(
        "fault-without-delivery",
        "measure/reconstruct.py",
        "            and event.content == record.delivered_observation\n",
        "",
        "T_F needs the fault-bearing observation as delivered in the ledger",
        MEASURE_TESTS,
    ),
    Mutant(
        "hypothetical-any-span",
        "faults/operators/uses.py",
        "return bool(leads) and all(governed_by_conditional(lead) for lead in leads)",
        "return bool(leads) and any(governed_by_conditional(lead) for lead in leads)",
        "a message is hypothetical only when every statement of the value is conditional",
        RULE_TESTS,
    ),
    Mutant(
        "antecedent-never-closes",
        "faults/operators/uses.py",
        "    if _ANTECEDENT_END.search(inside):\n        return False\n",
        "",
        "a value after the antecedent closed is stated, not entertained",
        RULE_TESTS,
    ),
    Mutant(
        "verify-cue-without-value",
        "faults/operators/uses.py",
        "if candidate.mentions_injected and VERIFY_CUE.search(full):",
        "if VERIFY_CUE.search(full):",
        "questioning is a verification of v′ only when the use states v′",
        RULE_TESTS,
    ),
    Mutant(
        "write-check-beside-claim",
        "faults/operators/write_effect.py",
        "        if VERIFY_CUE.search(text) and not claims:",
        "        if VERIFY_CUE.search(text):",
        "a success claim stays reliance even beside a check",
        RULE_TESTS,
    ),
    Mutant(
        "verification-takes-no-stance",
        "faults/operators/base.py",
        "        if use.label is UseLabel.VERIFICATION:  # questioning v′ is declining to endorse it\n"
        "            return Stance.REJECTS",
        "        if use.label is UseLabel.VERIFICATION:  # questioning v′ is declining to endorse it\n"
        "            return None",
        "questioning v′ is a stance that declines to endorse it (Y_end)",
        MEASURE_TESTS,
    ),
)


def run_mutant(
    mutant: Mutant, copy: Path, timeout: float, ignore: tuple[str, ...] = ()
) -> tuple[str, float, str]:
    """Apply ``mutant`` to the copy, run its tests against it (less the ``ignore``d test
    files: to see which tests a mutant survives without), restore the file.

    Returns (``"killed"`` | ``"survived"`` | ``"timeout"`` | ``"stale"``, seconds, the
    last lines of pytest's output).
    """
    path = copy / "sscbench" / mutant.file
    source = path.read_text("utf-8")
    if source.count(mutant.original) != 1:
        return "stale", 0.0, f"original snippet occurs {source.count(mutant.original)} times"
    path.write_text(source.replace(mutant.original, mutant.mutated), "utf-8")
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
    command += [f"--ignore={path}" for path in ignore]
    tests = [t for t in mutant.tests if t not in ignore]
    started = time.monotonic()
    try:
        done = subprocess.run(
            [*command, *tests],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - started, ""
    finally:
        path.write_text(source, "utf-8")
    tail = "\n".join(done.stdout.strip().splitlines()[-3:])
    return ("survived" if done.returncode == 0 else "killed"), time.monotonic() - started, tail


def check_copy(copy: Path) -> None:
    """Refuse to run when the tests would import sscbench from anywhere but the copy."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    probe = [sys.executable, "-c", "import sscbench; print(sscbench.__file__)"]
    found = subprocess.run(probe, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    if not found.stdout.strip().startswith(str(copy)):
        raise SystemExit(f"sscbench is imported from {found.stdout.strip()}, not the copy")


def main(argv: list[str] | None = None) -> int:
    """Run the chosen mutants (all by default) and print a table; exit 1 if one survived."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    parser.add_argument("--list", action="store_true", help="print the set and exit")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per mutant")
    parser.add_argument(
        "--ignore", action="append", default=[], help="a test file to leave out (repeatable)"
    )
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]
    unknown = set(args.names) - {m.name for m in MUTANTS}
    if unknown:
        raise SystemExit(f"unknown mutants: {', '.join(sorted(unknown))}")
    if args.list:
        for m in chosen:
            print(f"{m.name:32} {m.file:34} {m.principle}")
        return 0
    results = []
    with tempfile.TemporaryDirectory(prefix="sscbench-mutants-") as tmp:
        copy = Path(tmp) / "src"
        shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
        check_copy(copy)
        for mutant in chosen:
            status, seconds, tail = run_mutant(mutant, copy, args.timeout, tuple(args.ignore))
            results.append((mutant, status))
            print(f"{status:9} {seconds:6.0f}s  {mutant.name}", flush=True)
            if status != "killed" and tail:
                print("          " + tail.replace("\n", "\n          "), flush=True)
    killed = sum(status == "killed" for _, status in results)
    print(f"\n{len(results)} mutants, {killed} killed, {len(results) - killed} not killed")
    for mutant, status in results:
        if status != "killed":
            print(f"  {status}: {mutant.name} — {mutant.principle}")
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
