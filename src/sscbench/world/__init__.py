"""Worlds: τ-bench-faithful data, tools, tasks, policy and reward."""
