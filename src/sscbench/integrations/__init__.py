"""Integrations with the tools researchers and platform engineers already use.

Inspect AI (``sscbench[inspect]``): the ``sscbench/arrival`` task and ``sscbench export
inspect``; OpenTelemetry (``sscbench[otel]``): GenAI-convention traces of runs, written
as OTLP/JSON or sent over OTLP/HTTP. Both extras are imported lazily, inside the
functions that need them: the core install never imports them.
"""
