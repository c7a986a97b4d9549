"""Recorded runs of other harnesses: their formats (reader classes, one registry), the
runs they hold in τ-bench's message format, and the matching of a run to τ-bench's task.

Below the study layer, so a study's config checks a recording's format against the
registry; the replay agent (:mod:`sscbench.agents.recordings`) reads through it.
"""
