"""Reviewing runs by hand: export pages, the labels schema, agreement with measurement."""
