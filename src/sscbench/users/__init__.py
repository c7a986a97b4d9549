"""Simulated users: scripted and LLM-driven."""
