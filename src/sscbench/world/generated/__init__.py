"""The embedded default world: seeded airline and retail worlds in τ-bench's schema.

``generate_world(domain, seed, size)`` builds the tables, the tasks (each with a
structured ``intent`` and the ground-truth write calls that fulfil it) and the
policy of one domain. The same domain, seed and size always give byte-identical
data: each domain draws from its own ``random.Random`` seeded with a string (never
the global generator, the clock, or ``hash()``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from sscbench.world.domains import TABLES, registry_for
from sscbench.world.generated.airline import build_airline
from sscbench.world.generated.retail import build_retail
from sscbench.world.generated.size import GeneratedSize
from sscbench.world.state import BaseData
from sscbench.world.world import World

__all__ = ["GeneratedSize", "generate_world", "policy_text"]

_BUILDERS = {"airline": build_airline, "retail": build_retail}


@cache
def policy_text(domain: str) -> str:
    """The agent policy of a generated domain (markdown shipped with the package)."""
    if domain not in _BUILDERS:
        raise KeyError(f"unknown domain {domain!r}; expected one of {sorted(_BUILDERS)}")
    return resources.files(__package__).joinpath(f"{domain}_policy.md").read_text(encoding="utf-8")


def generate_world(domain: str, seed: int = 0, size: GeneratedSize | None = None) -> World:
    """A generated world of ``domain`` ("airline" or "retail") for ``seed``."""
    if domain not in _BUILDERS:
        raise KeyError(f"unknown domain {domain!r}; expected one of {sorted(_BUILDERS)}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {seed!r}")
    tables, tasks = _BUILDERS[domain](seed, size or GeneratedSize())
    ordered = {name: tables[name] for name in TABLES[domain]}
    return World(
        name=f"generated/{domain}",
        domain=domain,
        source="generated",
        base=BaseData(ordered),
        tools=registry_for(domain),
        policy=policy_text(domain),
        tasks=tasks,
        schemas=None,
    )
