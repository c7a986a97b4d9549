"""The core install stays free of the inspect and otel extras; an inspect agent is refused
by sscbench run with a message saying where it runs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sscbench.errors import DataError
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config


def test_cli_and_run_import_no_extra():
    code = (
        "import sys, sscbench.cli, sscbench.run.executor, sscbench.integrations.otel_live, "
        "sscbench.integrations.export_cli\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('inspect_ai', 'opentelemetry')]\n"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_inspect_agent_needs_a_model_name():
    with pytest.raises(DataError, match=r"params\.model"):
        parse_config("[[agents]]\nid = 'm'\nkind = 'inspect'\n", "study.toml")


def test_sscbench_run_refuses_an_inspect_agent(tmp_path):
    config = parse_config(
        "[[agents]]\nid = 'm'\nkind = 'inspect'\nparams = {model = 'openai/gpt-4o'}\n",
        "study.toml",
    )
    with pytest.raises(DataError, match="inspect eval sscbench/arrival"):
        execute_study(config, "", tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()  # refused before the folder is touched
