"""The shared words of every stage: ledger events, injection hooks, measurement values, the ledger view, run-context and turn types."""
