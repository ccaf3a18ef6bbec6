"""Built-in plugins. Each module is registered under its own name (``-p no:NAME`` disables it);
the list lives in :data:`ralph_verify.startup.BUILTIN_PLUGINS`. A plugin of several modules is
a sub-package named after it (``pytest_run/``, ``mypy/``, ``commands/tasks/``) whose
``__init__`` implements the hooks, as pytest's ``assertion/`` and ``mark/``.
The top floor: a built-in may import any room of the package but not the face (it takes
``hookimpl`` from :mod:`ralph_verify.markers`); nothing imports a built-in but the face's
lazy re-exports (``PytestRun``, ``shared_pytest_run``) and the plugin manager, by name."""
