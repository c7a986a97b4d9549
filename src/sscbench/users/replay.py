"""The recorded user of a replayed run: the user messages of the recording the run's
replay agent replays (found in ``RunContext.replay``, put there by the agent's factory).
"""

from __future__ import annotations

from collections.abc import Sequence

from sscbench.agents.replay import ReplayUser
from sscbench.core.agent import RunContext
from sscbench.core.ledger import LedgerEvent
from sscbench.recordings.recorded import RecordedRun


class RecordedUser:
    """Replays the recorded user of the run's recording (resolved at first use, so the
    agent and user factories may be called in either order)."""

    def __init__(self, context: RunContext):
        self._context = context
        self._inner: ReplayUser | None = None

    def _user(self) -> ReplayUser:
        if self._inner is None:
            run = self._context.replay.run
            if run is None:
                raise ValueError("a recorded user needs a replay agent in the same run")
            if not isinstance(run, RecordedRun):
                raise TypeError(f"a recorded user replays a RecordedRun, not {type(run).__name__}")
            self._inner = ReplayUser(run)
        return self._inner

    async def first_message(self) -> str:
        """The recorded opening message."""
        return await self._user().first_message()

    async def reply(self, ledger: Sequence[LedgerEvent]) -> str:
        """The next recorded reply, then ``###STOP###``."""
        return await self._user().reply(ledger)


def recorded_user_factory(context: RunContext) -> RecordedUser:
    """A :class:`RecordedUser` for one run (a :class:`UserFactory`)."""
    return RecordedUser(context)
