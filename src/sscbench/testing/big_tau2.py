"""A large synthetic τ²-bench results file: a few real conversations among many small ones.

Used by the scale test (``tests/test_hostile_cost.py``) and ``benchmarks/pairs_scale.py``
to show that a pairs study's cost follows the conversations it names, not the file: the
real conversations of a sample (``examples/data/tau2/``) are spread among ``count``
small filler simulations (about 600 bytes each, valid τ² conversations of their own).
The file is written one simulation at a time, never held whole in memory.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from sscbench.json_types import JsonMapping, JsonObject


def filler(number: int) -> JsonObject:
    """One small valid τ² simulation (a user asks about a flight, the agent looks it up)."""
    user = f"filler_user_{number:06d}"
    return {
        "id": f"filler-{number:06d}",
        "task_id": str(number % 50),
        "trial": 0,
        "reward_info": {"reward": 0.0},
        "messages": [
            {"role": "assistant", "content": "Hi! How can I help you today?"},
            {
                "role": "user",
                "content": f"Hello, I am {user}. Is flight HAT{number % 300:03d} on time?",
            },
            {
                "role": "assistant",
                "content": "Let me check that flight for you.",
                "tool_calls": [
                    {
                        "id": f"call_{number}",
                        "name": "get_flight_status",
                        "arguments": {
                            "flight_number": f"HAT{number % 300:03d}",
                            "date": "2024-05-16",
                        },
                    }
                ],
            },
            {"role": "tool", "id": f"call_{number}", "content": "available"},
            {"role": "assistant", "content": "The flight is scheduled and available."},
            {"role": "user", "content": "Thanks, that is all. ###STOP###"},
        ],
    }


def write_big_tau2(sample: Path, target: Path, count: int) -> list[str]:
    """Write ``target``: the sample's header and its real conversations spread evenly
    among ``count`` fillers. Returns the real ids."""
    results = json.loads(sample.read_text("utf-8"))
    real = results["simulations"]
    step = max(count // max(len(real), 1), 1)
    head = {k: v for k, v in results.items() if k != "simulations"}
    with target.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps(head)[:-1] + ', "simulations": [')
        first = True
        for number in range(count):
            items = [filler(number)]
            slot, placed = divmod(number + 1, step)
            if placed == 0 and 0 < slot <= len(real):
                items.append(real[slot - 1])
            for item in items:
                handle.write(("" if first else ",\n") + json.dumps(item))
                first = False
        for item in real[max(count // step, 0) :]:
            handle.write(("" if first else ",\n") + json.dumps(item))
            first = False
        handle.write("]}\n")
    return [s["id"] for s in real]


def write_pairs_study(
    folder: Path, recording: Path, pairs: Sequence[JsonMapping], cases: Path
) -> Path:
    """A pairs study (``study.toml``, ``pairs.jsonl``, ``cases.jsonl``) of ``recording``
    written into ``folder``: the replay agent replays each pair's named conversation on
    its case, the cases taken from ``cases`` (a cases file holding every pair's case)."""
    wanted = {p["case_id"] for p in pairs}
    lines = [x for x in cases.read_text("utf-8").splitlines() if json.loads(x)["case_id"] in wanted]
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    (folder / "pairs.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pairs), "utf-8")
    config = folder / "study.toml"
    config.write_text(
        '[study]\nfirst_tool_call_only = false\n[world]\nsource = "tau-bench"\n'
        'domains = ["airline"]\n[cases]\nfile = "cases.jsonl"\n'
        '[[agents]]\nid = "claude"\nkind = "replay"\n[agents.replay]\n'
        f'path = "{recording}"\npairs = "pairs.jsonl"\nqualify = "completed"\n'
        '[user]\nkind = "replay"\n',
        "utf-8",
    )
    return config
