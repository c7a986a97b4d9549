"""Measurement: reconstruct T_F, T_E, T_S, T_U, arrival, adoption and stance from ledgers."""
