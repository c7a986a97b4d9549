"""LLM endpoints: config, client, retries, responses, secrets — used by agents, users, classifiers and oracles alike."""
