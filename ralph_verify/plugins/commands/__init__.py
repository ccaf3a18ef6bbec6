"""One plugin module per subcommand, as tox keeps ``tox/session/cmd/*.py``.

Each module declares its command (and the options only it reads) in
``ralph_addoption`` and holds the command's function; the work itself lives in
the modules they call. They are built-ins like any other, registered by name in
:data:`ralph_verify.config.BUILTIN_PLUGINS` (``commands.check``, ``commands.run``, ...),
so ``ralph-verify plugins`` lists them and ``-p no:commands.report`` removes one.
"""
