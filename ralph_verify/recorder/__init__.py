"""What runs inside the project's pytest, and its reader, side by side.

:mod:`.plugin` is ralph-verify's pytest plugin (loaded into the project's own pytest run,
so it imports nothing of ralph-verify beyond this folder); :mod:`.read` reads what it wrote;
:mod:`.affected_plugin`, :mod:`.affected` and :mod:`.affected_units` record and use the map
of affected tests. Imported by the checks and plugins that run pytest; imports only leaves
and ``project``.
"""
