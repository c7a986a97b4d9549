"""The runs bar: live spend in its line, and nothing at all on a redirected stderr."""

from __future__ import annotations

import io
import subprocess
import sys
from collections import Counter
from types import SimpleNamespace

from rich.console import Console

from sscbench.progress import forced
from sscbench.run.progress import StudyProgress


def _summary(spend: str) -> SimpleNamespace:
    statuses = Counter({"completed": 3, "not-qualified": 1, "missing": 0})
    return SimpleNamespace(
        statuses=statuses, missing_reasons=Counter(), spend=spend, planned_runs=9, finished_runs=4
    )


def test_the_line_shows_the_spend_so_far_in_the_one_wording():
    line = StudyProgress(_summary("$0.0123 spent"), enabled=False)._describe()
    assert line.endswith(" · $0.0123 spent")
    assert "spent" not in StudyProgress(_summary(""), enabled=False)._describe()


def test_the_bar_is_off_unless_stderr_is_a_terminal_or_forced():
    assert not StudyProgress(_summary(""), enabled=True).enabled  # under pytest: no terminal
    with forced(Console(file=io.StringIO())):
        assert StudyProgress(_summary(""), enabled=True).enabled
    assert not StudyProgress(_summary(""), enabled=False).enabled


def test_a_redirected_stderr_gets_no_final_frame(tmp_path):
    code = (
        "from collections import Counter\n"
        "from types import SimpleNamespace\n"
        "from sscbench.run.progress import StudyProgress\n"
        "s = SimpleNamespace(statuses=Counter(completed=1), missing_reasons=Counter(),"
        " spend='$0.0100 spent', planned_runs=1, finished_runs=1)\n"
        "with StudyProgress(s, enabled=True) as bar:\n"
        "    bar.update()\n"
    )
    err = tmp_path / "err.txt"
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTEST_CURRENT_TEST"}
    env.pop("SSCBENCH_PROGRESS", None)
    with err.open("w") as handle:
        subprocess.run([sys.executable, "-c", code], stderr=handle, check=True, env=env)
    assert err.read_text() == ""
