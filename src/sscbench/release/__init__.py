"""Release evidence from typed fault families: trials, metrics, transfer matrix, gate."""
