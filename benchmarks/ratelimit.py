"""Endpoint flow control against a provider's rate limit.

The local test server (``testing/openai_server.py``) admits ``--rate`` requests per
second (a one-second token bucket) and answers the rest 429 with ``Retry-After``, as a
hosted provider does. A study at concurrency 64 (a model agent, the scripted user;
every request answered after ``--delay`` seconds) runs against it three ways:

1. limiter on with a requests-per-minute budget a little under the limit (``--budget``
   x the limit): goal >= 90% of the limit's throughput, 0 missing runs, <= 5% of
   requests answered 429;
2. limiter on without a budget: AIMD on the concurrency window and Retry-After alone;
3. limiter off (``flow_control = false``): every run backs off alone.

Throughput is admitted requests per second between the first and the last admitted
request. Ratios are measured in this one run; nothing here is asserted by a test.

Usage: python benchmarks/ratelimit.py [--rate 40] [--delay 0.05] [--repetitions 150]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.folder import StudyDir
from sscbench.testing import OpenAIServer, text

CONFIG = """
[study]
seed = 3
repetitions = {repetitions}
concurrency = 64
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 4
[[agents]]
id = "model"
kind = "openai"
[agents.endpoint]
base_url = "{base_url}"
model = "bench"
max_retries = {retries}
backoff_initial = 0.5
backoff_max = 8
{limits}
"""


def one_study(mode: str, args: argparse.Namespace) -> dict:
    """Run the study in one mode against a fresh rate-limited server; its figures."""
    limits = {
        "budget": f"requests_per_minute = {args.rate * 60 * args.budget:g}",
        "aimd": "",
        "off": "flow_control = false",
    }[mode]
    with OpenAIServer(
        lambda body: text("Could you tell me more?"), delay=args.delay, rate_limit=args.rate
    ) as server:
        toml = CONFIG.format(
            repetitions=args.repetitions,
            base_url=server.base_url,
            retries=args.retries,
            limits=limits,
        )
        config = parse_config(toml, f"<ratelimit {mode}>")
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            summary = execute_study(config, toml, f"{tmp}/study", progress=False)
            wall = time.perf_counter() - started
            entries = list(StudyDir(f"{tmp}/study").read_index())
        admitted, rejected = list(server.admitted), server.rejected
    span = admitted[-1] - admitted[0] if len(admitted) > 1 else float("nan")
    answered = len(admitted)
    throughput = (answered - 1) / span if span == span and span > 0 else 0.0
    return {
        "mode": mode,
        "runs": len(entries),
        "missing": sum(e.status == "missing" for e in entries),
        "requests": answered + rejected,
        "answered_429": rejected,
        "share_429": rejected / max(1, answered + rejected),
        "throughput": throughput,
        "of_limit": throughput / args.rate,
        "wall_s": wall,
        "summary": summary,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=40.0, help="the server's requests/s")
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--repetitions", type=int, default=150)
    parser.add_argument("--retries", type=int, default=3)
    parser.add_argument("--budget", type=float, default=0.95, help="budget / limit")
    args = parser.parse_args()
    print(
        f"server limit {args.rate:g} requests/s (429 + Retry-After over it), answer delay "
        f"{args.delay:g} s, study concurrency 64, max_retries {args.retries}"
    )
    for mode in ("budget", "aimd", "off"):
        r = one_study(mode, args)
        goal = ""
        if mode == "budget":
            ok = r["of_limit"] >= 0.9 and r["missing"] == 0 and r["share_429"] <= 0.05
            goal = f"  [goal >= 90% of limit, 0 missing, <= 5% 429: {'met' if ok else 'NOT met'}]"
        print(
            f"{mode:>6}: {r['runs']} runs, {r['missing']} missing; {r['requests']} requests, "
            f"{r['answered_429']} answered 429 ({r['share_429']:.1%}); throughput "
            f"{r['throughput']:.1f}/s = {r['of_limit']:.1%} of the limit; {r['wall_s']:.1f} s"
            + goal
        )


if __name__ == "__main__":
    main()
