"""Reports: tables, claim cards, figures and a self-contained HTML page."""
