"""sscbench's version, at the bottom of the house so that any stage may record it
(``study/provenance.py``) without importing the package's root; ``sscbench.__version__``
re-exports it."""

__version__ = "0.1.0"
