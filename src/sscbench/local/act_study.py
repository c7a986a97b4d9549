"""The small faulted study a local model runs under the act strategy (CI and benchmark).

Three SSCBench operators on the generated airline world, read-first cases
(``[cases] prefer = "read-first"``: early-trigger cases whose opening request needs a
read before any write, see :mod:`sscbench.admission.prefer`), the scripted user, temperature 0 with a fixed seed, and
``qualify = "completed"``: a 0.5B model rarely solves a clean task, so its faulted
runs are qualified by a completed clean run — a selection the report states.
"""

from __future__ import annotations

from sscbench.local.weights import DEFAULT_MODEL

OPERATORS = ("ReturnDate", "PaySource", "WriteEffect")
DEFAULT_STEPS = 8
"""Agent turns per run: the worked exchange's path (ask for the user id, read the user,
read the reservation, write, answer) takes five, and a model that writes before it reads
may recover by reading after the tool's error (measured for issue 21)."""
ACT_STUDY = """\
[study]
name = "real-model-act"
seed = 3
repetitions = 1
concurrency = 1

[world]
source = "generated"
domains = ["airline"]

[user]
kind = "scripted"

[cases]
operators = {operators}
per_operator = {per_operator}
prefer = "read-first"
max_steps = {{ ReturnDate = {steps}, PaySource = {steps}, WriteEffect = {steps} }}

[[agents]]
id = "local-act"
kind = "openai"
strategy = "act"
constrain = {constrain}
qualify = "completed"

[agents.endpoint]
base_url = "{base_url}"
model = "{model}"
temperature = 0.0
seed = 7
max_tokens = 384
api_key_env = "SSCBENCH_LOCAL_API_KEY"
max_retries = 1
backoff_initial = 0.5
timeout = 1800
"""


def act_study_toml(
    base_url: str,
    *,
    per_operator: int = 2,
    steps: int = DEFAULT_STEPS,
    constrain: bool = True,
    model: str = DEFAULT_MODEL.alias,
) -> str:
    """The study config (TOML text) for a local server at ``base_url``."""
    return ACT_STUDY.format(
        operators="[" + ", ".join(f'"{o}"' for o in OPERATORS) + "]",
        per_operator=per_operator,
        steps=steps,
        constrain="true" if constrain else "false",
        base_url=base_url,
        model=model,
    )
