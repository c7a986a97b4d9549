"""One wording of a cost, for ``sscbench plan``, ``sscbench run`` and the report.

The same study's cost reads the same everywhere: ``$0.00 (no model is called)`` for a
study that calls no model, ``$1.23 estimated at most`` for the plan's bound,
``$0.0123 spent`` for what the runs spent, ``+ N calls unpriced (MODEL)`` for calls to a
model without a ``[prices]`` entry (never priced at 0), and a model served on this
machine without a price entry is counted at $0 and named.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from sscbench.llm.endpoint import EndpointConfig
    from sscbench.study.config import StudyConfig

NO_MODEL_COST = "$0.00 (no model is called)"
"""The cost of a study whose agents and user are scripted or replayed."""


class Served(Protocol):
    """An endpoint as far as cost wording needs it: where it is served."""

    @property
    def base_url(self) -> str:
        """The endpoint's base URL."""
        ...


def is_local_endpoint(endpoint: Served | None) -> bool:
    """True when the endpoint is served on this machine: ``localhost`` or a loopback
    address (127.0.0.0/8, ::1)."""
    if endpoint is None:
        return False
    host = urlsplit(endpoint.base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def local_free_models(config: StudyConfig) -> set[str]:
    """Models a study calls on a loopback endpoint without a ``[prices]`` entry: counted
    at $0 (a local server), named wherever the cost is worded."""
    endpoints: list[EndpointConfig | None] = [a.endpoint for a in config.agents]
    if config.user.kind == "llm":
        endpoints.append(config.user.endpoint)
    return {
        e.model
        for e in endpoints
        if e is not None and is_local_endpoint(e) and config.prices.get(e.model) is None
    }


def cost_words(
    usd: float | None,
    *,
    spent: bool,
    model_called: bool = True,
    unpriced: Mapping[str, int] | None = None,
    local: Iterable[str] = (),
    missing: str = "",
) -> str:
    """A cost in the project's one wording (see the module). ``spent`` False words the
    plan's upper bound (``usd`` None: not bounded, ``missing`` says why); ``unpriced``
    counts the calls per model without a price; ``local`` names the loopback models
    counted at $0."""
    if not model_called:
        return NO_MODEL_COST
    if usd is None:
        text = f"not bounded ({missing})"
    elif spent:
        text = f"${usd:.4f} spent"
    elif usd == 0 and local:
        text = "$0.00"
    else:
        text = f"${usd:.2f} estimated at most"
    if unpriced:
        calls = sum(unpriced.values())
        text += f" + {calls} call{'s' * (calls != 1)} unpriced ({', '.join(sorted(unpriced))})"
    names = sorted(local)
    if names:
        text += (
            f" (local model{'s' * (len(names) > 1)} {', '.join(names)} at a loopback endpoint "
            "counted at $0: no [prices] entry; add one if the server forwards to a paid API)"
        )
    return text
