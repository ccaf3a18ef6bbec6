"""The markers of ralph-verify's hooks and its version: a leaf every floor may import.

``@hookimpl`` marks a plugin's hook implementation and ``@hookspec`` a specification
(:mod:`ralph_verify.hookspec`). The face re-exports ``hookimpl`` for plugins
(``from ralph_verify import hookimpl``); modules of the package import it from here, so
that none of them depends on the face, which imports them all for its type names.
"""

import pluggy

#: Marker for plugin hook implementations: ``@ralph_verify.hookimpl``.
hookimpl = pluggy.HookimplMarker("ralph_verify")
#: The marker of every ralph-verify hook specification.
hookspec = pluggy.HookspecMarker("ralph_verify")
#: The package's version (``ralph-verify --version``, ``ralph_verify.__version__``).
VERSION = "0.1.0"
