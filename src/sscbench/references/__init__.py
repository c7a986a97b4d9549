"""Every way text refers to an entity or value: dates, payment methods, order items and
their options, reservations, amounts — found with their offsets and roles, never judged.
What a found reference means for the measurement (a use, a check, reliance) is decided
above, in the operators' use rules and in :mod:`sscbench.measure`."""
