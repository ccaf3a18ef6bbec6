"""The markers of ralph-verify's hooks (``@hookimpl``, ``@hookspec``) and its version: a leaf,
so no module of the package depends on the face for them."""

import sys

import pluggy

#: Marker for plugin hook implementations: ``@ralph_verify.hookimpl``.
hookimpl = pluggy.HookimplMarker("ralph_verify")
#: The marker of every ralph-verify hook specification.
hookspec = pluggy.HookspecMarker("ralph_verify")
#: The package's version (``ralph-verify --version``, ``ralph_verify.__version__``).
VERSION = "0.1.0"


def print_version(config: object = None) -> int:
    """``ralph-verify --version`` (also the handler of its command, so ``config`` is taken)."""
    print(f"ralph-verify {VERSION} (Python {sys.version.split()[0]})")
    return 0
