"""Faults: cases, contracts and the operators that build injections."""
