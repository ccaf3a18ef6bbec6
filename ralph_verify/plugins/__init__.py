"""Built-in plugins. Each module is registered under its own name (``-p no:NAME`` disables it);
the list lives in :data:`ralph_verify.config.BUILTIN_PLUGINS`."""
