"""LLM endpoints: config, client, retries, flow control, usage, responses, secrets — used by
agents, users, classifiers and oracles alike."""
