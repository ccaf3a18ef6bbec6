"""The one loop: a session's settings and its opening (both drivers'), a session and its
iterations, one iteration's cycle, the ``run`` driver,
verdicts, the prompt, promises, the baseline's pre-existing and new failures, what a session
records under ``.ralph/``, its state and lock, recovery points, and the :class:`~.api.Loop`
Python API.

Imports everything below it (checks, project, proc, config, hookspec); imported by hook
mode, reports, the fleet and plugins. Never imports a built-in plugin or an agent adapter:
it calls hooks.
"""
