"""The one user interface every simulated user implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from sscbench.core.agent import RunContext
from sscbench.core.ledger import LedgerEvent

STOP = "###STOP###"


@runtime_checkable
class User(Protocol):
    """A simulated user: opens the conversation and answers each agent reply."""

    async def first_message(self) -> str:
        """The user's opening message."""
        ...

    async def reply(self, ledger: Sequence[LedgerEvent]) -> str:
        """The answer to the agent's latest text reply (the last assistant event)."""
        ...


class UserFactory(Protocol):
    """Builds a fresh user for each run."""

    def __call__(self, context: RunContext) -> User:
        """A new user for this run."""
        ...
