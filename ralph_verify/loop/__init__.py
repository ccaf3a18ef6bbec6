"""The one loop: a session's settings and opening, its iterations, the ``run`` driver, verdicts,
the prompt, promises, records, state and recovery. Never imports a built-in plugin or an
agent adapter: it calls hooks."""
