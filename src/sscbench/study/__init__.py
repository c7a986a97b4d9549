"""The study data layer: a study folder, its index, cases, run files and seals."""
