"""The markers of ralph-verify's hooks (``@hookimpl``, ``@hookspec``) and its version: a leaf,
so no module of the package depends on the face for them."""

import pluggy

#: Marker for plugin hook implementations: ``@ralph_verify.hookimpl``.
hookimpl = pluggy.HookimplMarker("ralph_verify")
#: The marker of every ralph-verify hook specification.
hookspec = pluggy.HookspecMarker("ralph_verify")
#: The package's version (``ralph-verify --version``, ``ralph_verify.__version__``).
VERSION = "0.1.0"
