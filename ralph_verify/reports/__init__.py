"""Reports built from a session's files under ``.ralph/``: the HTML report and its data.

:mod:`~ralph_verify.reports.data` reads ``state.json``, ``history.jsonl`` and
``iterations/NNN/verification.json`` into plain data;
:mod:`~ralph_verify.reports.chart` draws the progress chart as inline SVG;
:mod:`~ralph_verify.reports.html` renders one self-contained page. The plugin
that writes it at the end of a run and the ``report`` command live in
:mod:`ralph_verify.plugins.report`.

Floor 7: imports loop, config, project and the leaves; imported by plugins only.
"""
