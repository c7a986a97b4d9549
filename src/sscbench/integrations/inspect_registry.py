"""Inspect's entry point into sscbench (``[project.entry-points.inspect_ai]``): importing
it registers the ``sscbench/arrival`` task, its scorer, metrics, reducer and hook, and the
offline model API ``sscbench/<profile>`` (a scripted profile; no network, no tokenizer)."""

from sscbench.integrations.inspect_model import ScriptedProfileAPI
from sscbench.integrations.inspect_task import arrival

__all__ = ["ScriptedProfileAPI", "arrival"]
