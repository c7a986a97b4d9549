"""Oracles (automated judges of adoption and T_U) and their validation."""
