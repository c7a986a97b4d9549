"""The tiny scripted study's config text, shared by the ``tiny_study`` fixture and the
tests that run it themselves (a module of its own: ``conftest`` is ambiguous on the path)."""

TINY_STUDY = """
[study]
seed = 5
concurrency = 2
[world]
domains = ["airline", "retail"]
[cases]
operators = ["ReturnDate", "PaySource", "ItemOption", "WriteEffect"]
per_operator = 3
[[agents]]
id = "trusting"
profile = "trusting"
[[agents]]
id = "readback"
profile = "readback"
"""
