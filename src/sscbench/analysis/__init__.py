"""Analysis: interval estimates, populations, claims (paper §V-B)."""
