"""Built-in plugins, each registered under its module's name
(:data:`ralph_verify.startup.BUILTIN_PLUGINS`); a plugin of several modules is a sub-package
whose ``__init__`` implements the hooks. Nothing imports a built-in but the face's lazy
re-exports and the plugin manager."""
