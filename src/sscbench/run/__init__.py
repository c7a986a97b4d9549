"""Runs: the episode loop, the ledger, and studies."""
