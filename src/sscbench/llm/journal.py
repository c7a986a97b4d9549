"""A run's response journal: the model answers of a run in flight, kept across an interrupt.

A run is written only when it finishes, so without a journal a Ctrl-C (or a dead
endpoint, or ``kill -9``) throws away every model answer of the runs in flight. Each
completed model response of a run, agent and LLM user alike, is recorded in the order
the run asked for them: the role, the sha256 of the request's bytes, the answer's body
as it arrived (``json`` value or ``text``) and the retries it took. The lines go to the
process's book (:class:`~sscbench.llm.journal_book.JournalBook`: one append-only file
for every run of the process, one ``write`` per answer on the event loop, no ``fsync``:
a kill keeps every line written, a crash of the machine may lose the last ones, whose
requests a resumed run makes again).

When the run is made again (``sscbench run`` resuming the study), it starts from the
beginning, deterministically: each request whose role and hash match the next answer
the study carried forward for it (:mod:`sscbench.llm.journal_carry`) is answered from it
with no model call; the first request that differs, or the answers' end, is where the
run goes live again (a differing request cuts the run's answers there, by a line of the
book, and says so through ``on_note``). The run's ledger, evaluator log and index line
are then byte-identical to an uninterrupted run given the same model answers: the same
bodies are parsed the same way and the same usage (requests, tokens, retries) is
counted. Once the run's episode ends its lines are needed no more (the book deletes its
files whose runs all ended).
"""

from __future__ import annotations

from collections.abc import Callable

from sscbench.core.agent import RunContext
from sscbench.llm.journal_answer import SUFFIX, Answer, answer_line, read_journal, request_hash
from sscbench.llm.journal_book import JournalBook


class ResponseJournal:
    """The journal of one run in flight: answers its recorded requests, records new ones.

    ``calls``, ``agent_calls`` and ``replayed`` count the run's model calls so far (the
    study's progress display reads them); ``note`` is the one line saying why the
    journal stopped answering early (also passed to ``on_note``), else None.
    """

    def __init__(
        self, book: JournalBook, run_id: str, on_note: Callable[[str], None] | None = None
    ):
        self.book = book
        self.run_id = run_id
        self.on_note = on_note
        self.pending = book.recorded(run_id)
        self.pending.reverse()  # the next answer last: taken with pop()
        self.resumed = bool(self.pending)
        self.calls = self.agent_calls = self.replayed = 0
        self.note: str | None = None
        self._attempt: str | None = None  # named at this making's first line in the book

    def _say(self, note: str) -> None:
        self.note = note
        if self.on_note is not None:
            self.on_note(note)

    def answer(self, role: str, key: str) -> Answer | None:
        """The recorded answer of this request when it is the journal's next one, else
        None (the caller asks the model, then :meth:`record`\\ s the answer)."""
        self.calls += 1
        self.agent_calls += role == "agent"
        if not self.pending:
            return None
        head = self.pending[-1]
        if head.role == role and head.request_sha256 == key:
            self.pending.pop()
            self.replayed += 1
            return head
        self._say(
            f"run {self.run_id}: its journal stops fitting at model call {self.replayed + 1} "
            f"(the {role} request differs from the recorded {head.role} request); "
            "continuing live from there"
        )
        self.pending = []
        self._begin()  # the cut: a line of the book, applied by its reader
        return None

    def _begin(self) -> str:
        """This making's first line in the book: it keeps the answers replayed so far
        (what follows in the book is its own); its attempt's name."""
        if self._attempt is None:
            self._attempt = self.book.attempt()
            self.book.write(self.run_id, {"attempt": self._attempt, "keep": self.replayed})
        return self._attempt

    async def record(self, answer: Answer) -> None:
        """Append a live answer to the process's book: one whole ``write`` on the event
        loop (an append to the page cache costs less than handing it to a thread that
        must then win the interpreter's lock back; never synced, like every file of the
        study: a kill keeps it, a crash of the machine may lose it)."""
        self.pending = []  # cannot hold any (answer() returned None); never interleave
        attempt = self._begin()
        self.book.write_line(self.run_id, answer_line(self.run_id, attempt, answer))

    def ended(self) -> None:
        """The run's episode ended (its output exists): its lines are needed no more."""
        self.book.ended(self.run_id)

    def close(self) -> None:
        """Nothing is held per run (the book's file is the process's)."""


def run_journal(context: RunContext) -> ResponseJournal | None:
    """The response journal of the run ``context`` builds for (None: the run keeps none).
    ``core`` carries it without naming its class; a journal of another type is refused."""
    journal = context.journal
    if journal is not None and not isinstance(journal, ResponseJournal):
        raise TypeError(f"a run's journal is a ResponseJournal, not {type(journal).__name__}")
    return journal


__all__ = [
    "SUFFIX",
    "Answer",
    "JournalBook",
    "ResponseJournal",
    "read_journal",
    "request_hash",
    "run_journal",
]
