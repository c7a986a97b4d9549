"""Inspect's entry point into sscbench (``[project.entry-points.inspect_ai]``): importing
it registers the ``sscbench/arrival`` task, its scorer, metrics, reducer and hook."""

from sscbench.integrations.inspect_task import arrival

__all__ = ["arrival"]
