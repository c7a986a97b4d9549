"""The two τ-bench domains: their tables and tool registries."""

from __future__ import annotations

from sscbench.world.tools import ToolRegistry

TABLES: dict[str, tuple[str, ...]] = {
    "airline": ("flights", "reservations", "users"),
    "retail": ("orders", "products", "users"),
}


def registry_for(domain: str) -> ToolRegistry:
    """The tool registry of a domain (imported lazily so each domain loads alone)."""
    if domain == "airline":
        from sscbench.world.airline.tools import AIRLINE_TOOLS

        return AIRLINE_TOOLS
    if domain == "retail":
        from sscbench.world.retail.tools import RETAIL_TOOLS

        return RETAIL_TOOLS
    raise KeyError(f"unknown domain {domain!r}")
