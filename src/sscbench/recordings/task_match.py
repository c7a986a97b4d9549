"""Which τ-bench task a recorded conversation ran, found from its content.

τ²-bench renumbers τ-bench's tasks, and some results files label conversations with
the wrong task. A conversation is matched to a task by what it shows:

* **user** — the user the agent looked up (a ``user_id`` argument, or the id a
  ``find_user_id_by_*`` call returned) is the task's user;
* **actions** — the share of the task's ground-truth actions (name and arguments)
  that the conversation's calls made;
* **words** — the share of the instruction's distinctive words (ids, numbers, names
  and rarer words) that the user's messages say.

The score is ``0.5·user + 0.3·actions + 0.2·words``. A conversation is matched only
when its best task has the right user and leads the runner-up by a clear margin;
otherwise it is listed as unmatched with the reason, never guessed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from sscbench.json_types import JsonObject
from sscbench.reading import loads_json
from sscbench.recordings.recorded import RecordedRun
from sscbench.world.task import Task

MARGIN = 0.05
CLOSE = 0.1  # below this lead, two tasks of one user are told apart by their own words
WEIGHTS = {"user": 0.5, "actions": 0.3, "words": 0.2}
_WORD = re.compile(r"[#\w][\w.@-]*\w|\w")
_COMMON = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "have",
        "he",
        "her",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "they",
        "this",
        "to",
        "up",
        "want",
        "was",
        "we",
        "were",
        "what",
        "when",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "also",
        "any",
        "all",
        "about",
        "after",
        "again",
        "only",
        "just",
        "more",
        "most",
        "other",
        "same",
        "some",
        "such",
        "than",
        "too",
        "very",
        "should",
        "could",
        "may",
        "might",
        "must",
        "one",
        "two",
        "get",
        "got",
        "like",
        "know",
        "need",
        "make",
        "made",
        "told",
        "say",
        "said",
    ]
)


@dataclass(frozen=True)
class TaskMatch:
    """The task a recording was matched to (or why it was not), with the evidence."""

    recording: str  # the recording's own id (τ²: the simulation id)
    labelled_task: str  # the task id the file gives it
    task_id: str | None  # the matched τ-bench task, None when unmatched
    score: float
    user: bool
    actions: float
    words: float
    runner_up: str | None
    runner_up_score: float
    reason: str  # why unmatched ('' when matched)

    def row(self) -> dict[str, object]:
        """JSON-ready."""
        return {
            "recording": self.recording,
            "labelled_task": self.labelled_task,
            "task_id": self.task_id,
            "score": round(self.score, 4),
            "user": self.user,
            "actions": round(self.actions, 4),
            "words": round(self.words, 4),
            "runner_up": self.runner_up,
            "runner_up_score": round(self.runner_up_score, 4),
            "reason": self.reason,
        }


def _calls(run: RecordedRun) -> list[tuple[str, JsonObject]]:
    out: list[tuple[str, JsonObject]] = []
    for message in run.traj:
        for call in message.tool_calls or ():
            try:
                arguments = loads_json(call.function.arguments or "{}")
            except ValueError:
                arguments = {}
            out.append((call.function.name, arguments if isinstance(arguments, dict) else {}))
    return out


_USER_ID = re.compile(r"\b[a-z]+(?:_[a-z]+)+_\d{3,}\b")


def users_looked_up(run: RecordedRun) -> set[str]:
    """User ids the conversation's calls named, a user lookup returned, a delivered record
    belongs to (``"user_id"``), or the user said."""
    users = {str(a["user_id"]) for _, a in _calls(run) if isinstance(a.get("user_id"), str)}
    for message in run.traj:
        if message.role == "user" and message.content:
            users.update(_USER_ID.findall(message.content))
        if message.role == "tool" and message.content and '"user_id"' in message.content:
            users.update(re.findall(r'"user_id":\s*"([^"]+)"', message.content))
    lookups = {
        c.id
        for m in run.traj
        for c in m.tool_calls or ()
        if c.function.name.startswith("find_user_id")
    }
    for message in run.traj:
        if message.role == "tool" and message.tool_call_id in lookups and message.content:
            text = message.content.strip().strip('"')
            if re.fullmatch(r"[a-z]+(?:_[a-z]+)*_\d+", text):
                users.add(text)
    return users


def _normal(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _is_read(name: str) -> bool:
    return name.startswith(("get_", "find_", "list_", "search_", "calculate", "think"))


def action_share(task: Task, calls: list[tuple[str, JsonObject]]) -> float:
    """How well the conversation's writes fit the task's ground-truth writes: shared
    writes (same name and arguments) over all writes of either (1.0 when neither
    writes; a write of the same tool on the same record counts half)."""
    made = {(n, _normal(a)) for n, a in calls if not _is_read(n)}
    truth = {(a.name, _normal(dict(a.kwargs))) for a in task.actions if not _is_read(a.name)}
    if not made and not truth:
        return 1.0
    exact = made & truth
    partial = 0.0
    for name, text in truth - exact:
        ids = {v for k, v in loads_json(text).items() if k.endswith("_id") and isinstance(v, str)}
        if any(n == name and ids and all(i in t for i in ids) for n, t in made - exact):
            partial += 0.5
    return (len(exact) + partial) / len(made | truth)


def _distinctive(text: str) -> set[str]:
    words = {w.lower() for w in _WORD.findall(text)}
    return {w for w in words if w not in _COMMON and (len(w) > 3 or any(c.isdigit() for c in w))}


def user_words(run: RecordedRun) -> set[str]:
    """The distinctive words of every user message of a conversation."""
    return _distinctive("\n".join(m.content or "" for m in run.traj if m.role == "user"))


def word_share(task: Task, said: set[str]) -> float:
    """The share of the instruction's distinctive words among those the user said."""
    wanted = _distinctive(task.instruction)
    if not wanted:
        return 0.0
    return len(wanted & said) / len(wanted)


def _scores(
    run: RecordedRun, tasks: Iterable[Task], said: set[str]
) -> list[tuple[float, bool, float, float, Task]]:
    users = users_looked_up(run)
    calls = _calls(run)
    out = []
    for task in tasks:
        user = task.user_id in users
        actions = action_share(task, calls)
        words = word_share(task, said)
        score = WEIGHTS["user"] * user + WEIGHTS["actions"] * actions + WEIGHTS["words"] * words
        out.append((score, user, actions, words, task))
    return sorted(out, key=lambda s: (-s[0], s[4].task_id))


def match_task(run: RecordedRun, tasks: list[Task], recording: str) -> TaskMatch:
    """The task ``run`` ran among ``tasks`` (one domain's, one split), or why none is sure."""
    labelled = str(run.info.get("tau2_task_id", run.task_id))
    said = user_words(run)
    ranked = _scores(run, tasks, said)
    if not ranked:
        return TaskMatch(recording, labelled, None, 0.0, False, 0.0, 0.0, None, 0.0, "no tasks")
    score, user, actions, words, best = ranked[0]
    second = ranked[1] if len(ranked) > 1 else None
    if second is not None and user and second[1] and score - second[0] < CLOSE:
        pick = _by_distinct_words(best, second[4], said)
        if pick is second[4]:
            ranked[0], ranked[1] = ranked[1], ranked[0]
            score, user, actions, words, best = ranked[0]
            second = ranked[1]
        if pick is not None:
            score = max(score, second[0] + MARGIN)
    runner_up = second[4].task_id if second else None
    runner_score = second[0] if second else 0.0
    reason = ""
    if not user:
        reason = "no task's user was looked up"
    elif second is not None and score - runner_score < MARGIN:
        reason = f"{best.task_id} and {runner_up} fit equally well"
    return TaskMatch(
        recording,
        labelled,
        None if reason else best.task_id,
        score,
        user,
        actions,
        words,
        runner_up,
        runner_score,
        reason,
    )


def _by_distinct_words(first: Task, second: Task, said: set[str]) -> Task | None:
    """Between two tasks of one user that fit alike, the one whose own words (those the
    other's instruction lacks) the user said; when neither's are said, the one with no
    words of its own, if the other has several (its extra content never came up)."""
    own_a = _distinctive(first.instruction) - _distinctive(second.instruction)
    own_b = _distinctive(second.instruction) - _distinctive(first.instruction)
    hits_a, hits_b = len(own_a & said), len(own_b & said)
    if hits_a != hits_b and max(hits_a, hits_b) >= 2:
        return first if hits_a > hits_b else second
    if hits_a == hits_b == 0:
        if not own_a and len(own_b) >= 3:
            return first
        if not own_b and len(own_a) >= 3:
            return second
    return None
