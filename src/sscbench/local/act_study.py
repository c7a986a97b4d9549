"""The small faulted studies a local model runs under the act strategy (CI and benchmark).

Three SSCBench operators on the generated airline world (ReturnDate, PaySource,
WriteEffect) and, as a second study on its own server, ItemOption on the generated
retail world; read-first cases
(``[cases] prefer = "read-first"``: early-trigger cases whose opening request needs a
read before any write, see :mod:`sscbench.admission.prefer`), the scripted user, temperature 0 with a fixed seed, and
``qualify = "completed"``: a 0.5B model rarely solves a clean task, so its faulted
runs are qualified by a completed clean run — a selection the report states.
"""

from __future__ import annotations

from sscbench.local.weights import DEFAULT_MODEL

DOMAIN_OPERATORS: dict[str, tuple[str, ...]] = {
    "airline": ("ReturnDate", "PaySource", "WriteEffect"),
    "retail": ("ItemOption",),
}
"""The operators each domain's study runs, by the generated world's domain."""
OPERATORS = DOMAIN_OPERATORS["airline"]
"""The airline study's operators (the study of issue 21)."""
ALL_OPERATORS = tuple(op for ops in DOMAIN_OPERATORS.values() for op in ops)
DEFAULT_STEPS = 8
"""Agent turns per run: the worked exchange's path (ask for the user id, read the user,
read the reservation, write, answer) takes five, and a model that writes before it reads
may recover by reading after the tool's error (measured for issue 21)."""
ACT_STUDY = """\
[study]
name = "{name}"
seed = 3
repetitions = 1
concurrency = 1

[world]
source = "generated"
domains = ["{domain}"]

[user]
kind = "scripted"

[cases]
operators = {operators}
per_operator = {per_operator}
prefer = "read-first"
max_steps = {{ {max_steps} }}

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
    domain: str = "airline",
) -> str:
    """The study config (TOML text) for a local server at ``base_url``: the operators of
    ``domain`` (:data:`DOMAIN_OPERATORS`) on the generated world of that domain."""
    operators = DOMAIN_OPERATORS[domain]
    return ACT_STUDY.format(
        name="real-model-act" if domain == "airline" else f"real-model-act-{domain}",
        domain=domain,
        operators="[" + ", ".join(f'"{o}"' for o in operators) + "]",
        max_steps=", ".join(f"{o} = {steps}" for o in operators),
        per_operator=per_operator,
        steps=steps,
        constrain="true" if constrain else "false",
        base_url=base_url,
        model=model,
    )
