"""Pick a world by source name: the embedded generated world or τ-bench's originals."""

from __future__ import annotations

from pathlib import Path

from sscbench.errors import DataError
from sscbench.world.domains import TABLES
from sscbench.world.world import World

SOURCES = ("generated", "tau-bench")
DOMAINS = tuple(TABLES)


def load_world(source: str, domain: str, data: str | Path | None = None, seed: int = 0) -> World:
    """A world of ``domain`` from ``source``: ``generated`` needs no files; ``tau-bench``
    reads ``data`` (a folder or checkout), by default the packaged data."""
    if domain not in TABLES:
        raise DataError(
            "<world>", "domain", f"unknown domain {domain!r}; expected one of {DOMAINS}"
        )
    if source == "generated":
        from sscbench.world.generated import generate_world

        return generate_world(domain, seed=seed)
    if source == "tau-bench":
        from sscbench.world.packaged import packaged_taubench, resolve_packaged
        from sscbench.world.taubench import load_taubench_world

        if data is None:
            data = packaged_taubench()
        return load_taubench_world(resolve_packaged(data) or data, domain)
    raise DataError("<world>", "source", f"unknown world {source!r}; expected one of {SOURCES}")


def parse_world_name(name: str) -> tuple[str, list[str]]:
    """Split ``source[/domain]`` into a source and the domains it names."""
    source, _, domain = name.partition("/")
    if source in DOMAINS and not domain:
        return "generated", [source]
    return source, [domain] if domain else list(DOMAINS)
