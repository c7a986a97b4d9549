"""Admission: a case is admitted only with a pre-use revealability witness."""
