"""The integrity check's parts: what a project's tree says about its own strictness.

``sources`` reads Python files (test functions, skip/xfail markers, suppression
comments), ``settings`` reads the tool settings that gate checks (coverage,
ruff, mypy, pytest) with their file and line, and ``snapshot`` takes, stores and
compares the whole picture. The plugin ``ralph_verify.plugins.integrity`` turns
the comparison into the ``integrity`` check.

Floor 5: imports checks, recorder, project and the leaves; imported by the loop's
drivers, hook mode and the integrity plugin.
"""
