"""The chosen local model on this machine: provenance, speed, and a triggered act study.

Starts llama.cpp's prebuilt server (xllamacpp) in this process with the packaged
Qwen2.5-Coder-0.5B-Instruct (assembled from its PyPI chunks, sha256-checked), then
prints, in one run:

* provenance: packages, pinned and computed sha256, size, the GGUF file's own metadata;
* prompt and generation tokens/s of one τ-bench-sized act turn (llama.cpp's timings);
* the act study of ``sscbench.local.act_study``: per operator triggered / scheduled
  faulted runs, parsable actions / turns, first and later turn latency, wall time per
  run (the agent's turns summed: the scripted user and the tools take milliseconds).

The machine is shared: note the load average printed with the figures.

Usage: python benchmarks/local_model.py [--constrain/--no-constrain] [--steps 8] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from statistics import median

import openai

from sscbench.agents.openai_agent import OpenAIAgent
from sscbench.agents.strategies import action_messages
from sscbench.core.ledger import SystemEvent, Usage, UserEvent
from sscbench.local.act_study import DEFAULT_STEPS, act_study_toml
from sscbench.local.prebuilt import PrebuiltOptions, start_prebuilt
from sscbench.local.weights import DEFAULT_MODEL, assembled_gguf, file_sha256, gguf_metadata
from sscbench.measure.study import measure_study
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.folder import StudyDir
from sscbench.study.ledgers import read_evaluator
from sscbench.world.load import load_world

OPENING = "Hi! I'd like to change the flights of my reservation XZ9873."


def provenance() -> tuple[Path, dict]:
    """The assembled model file and what identifies it."""
    started = time.perf_counter()
    path = assembled_gguf(DEFAULT_MODEL)
    return path, {
        "packages": DEFAULT_MODEL.requirements,
        "origin": DEFAULT_MODEL.origin,
        "licence_file": DEFAULT_MODEL.license_file,
        "size_bytes": path.stat().st_size,
        "sha256_pinned": DEFAULT_MODEL.sha256,
        "sha256_file": file_sha256(path),
        "gguf_metadata": gguf_metadata(path),
        "assemble_and_check_s": round(time.perf_counter() - started, 1),
    }


def speed(base_url: str) -> dict:
    """Tokens/s of one cold act turn on the airline policy (prompt cache emptied first)."""
    world = load_world("generated", "airline", None, 0)
    events = [SystemEvent(step=0, content=world.policy), UserEvent(step=1, content=OPENING)]
    messages = action_messages(events, "act", world.tool_schemas())
    client = openai.OpenAI(base_url=base_url, api_key="local", timeout=3600)
    started = time.perf_counter()
    reply = client.chat.completions.create(
        model=DEFAULT_MODEL.alias,
        messages=messages,
        temperature=0,
        seed=7,
        max_tokens=128,
        extra_body={"cache_prompt": False},
    )
    timings = (reply.model_extra or {}).get("timings") or {}
    return {
        "prompt_tokens": timings.get("prompt_n"),
        "prompt_tokens_per_s": round(timings.get("prompt_per_second", 0.0), 1),
        "generated_tokens": timings.get("predicted_n"),
        "generation_tokens_per_s": round(timings.get("predicted_per_second", 0.0), 1),
        "turn_s": round(time.perf_counter() - started, 1),
    }


def study(base_url: str, out: Path, constrain: bool, steps: int) -> dict:
    """Run the act study; per-operator and per-turn figures."""
    latencies: dict[int, list[float]] = defaultdict(list)
    original = OpenAIAgent.act

    async def timed(self, ledger):
        started = time.perf_counter()
        try:
            return await original(self, ledger)
        finally:
            latencies[id(self)].append(time.perf_counter() - started)

    OpenAIAgent.act = timed
    try:
        text = act_study_toml(base_url, constrain=constrain, steps=steps)
        started = time.perf_counter()
        execute_study(parse_config(text, "act-study.toml"), text, out, progress=False)
        seconds = time.perf_counter() - started
    finally:
        OpenAIAgent.act = original
    store = StudyDir(out)
    usage: Counter = Counter()
    for entry in store.read_index():
        for event in read_evaluator(store.evaluator_path(entry.run_id)):
            if isinstance(event, Usage):
                usage.update(event.agent)
    path, _ = measure_study(out)
    per_operator: dict[str, Counter] = defaultdict(Counter)
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row["kind"] == "faulted":
            per_operator[row["operator"]]["scheduled"] += 1
            per_operator[row["operator"]]["triggered"] += bool(row.get("triggered"))
    runs = list(latencies.values())
    firsts = [r[0] for r in runs if r]
    laters = [t for r in runs for t in r[1:]]
    return {
        "constrain": constrain,
        "study_s": round(seconds, 1),
        "runs": len(runs),
        "triggered_per_operator": {
            k: f"{v['triggered']}/{v['scheduled']}" for k, v in per_operator.items()
        },
        "parsable_actions": f"{usage['actions'] - usage['unparsable_actions']}/{usage['actions']}",
        "first_turn_s_median": round(median(firsts), 1) if firsts else None,
        "later_turn_s_median": round(median(laters), 1) if laters else None,
        "wall_per_run_s": [round(sum(r), 1) for r in runs],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--constrain", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    path, facts = provenance()
    print(json.dumps({"load_average": os.getloadavg(), "model": facts}, indent=2), flush=True)
    _server, base_url = start_prebuilt(path, DEFAULT_MODEL.alias, 0, PrebuiltOptions())
    print(json.dumps({"speed": speed(base_url)}, indent=2), flush=True)
    out = args.out or Path(tempfile.mkdtemp(prefix="sscbench-local-bench-")) / "study"
    figures = study(base_url, out, args.constrain, args.steps)
    result = {"study": figures, "study_dir": str(out), "load_average": os.getloadavg()}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
