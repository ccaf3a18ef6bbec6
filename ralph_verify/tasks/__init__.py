"""Task lists: the task file (``tasks.toml``), its one validation, the order of its tasks
and the state ``run --tasks`` keeps in ``.ralph/tasks/``.

Floor 5 of the house (docs/architecture.md): it reads the ``--until`` grammar (``config/``)
and resolves specs against the check registry (``checks/``); the loop (``loop/``) imports
it to work a list through, task by task, and never the other way round.
"""
