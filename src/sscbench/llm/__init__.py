"""Endpoint-level plumbing shared by every model call: flow control and usage accounting."""
