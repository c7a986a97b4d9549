"""Agents: the OpenAI-compatible agent, scripted behaviour profiles and replay."""
