"""Reports built from a session's files under ``.ralph/``: the HTML report's data, chart and
page, and ``status --watch``. Imported by plugins only."""
