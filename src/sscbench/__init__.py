"""sscbench: arrival-aware fault-injection evaluation of tool-using agents."""

__version__ = "0.1.0"
