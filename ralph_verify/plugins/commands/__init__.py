"""One plugin module per subcommand, as tox keeps ``tox/session/cmd/*.py``: it declares its
command and options; ``-p no:commands.report`` removes one."""
