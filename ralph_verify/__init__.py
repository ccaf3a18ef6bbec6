"""ralph-verify: run AI coding agents in a loop until the work is verifiably done.

The public face of the package; everything else is an implementation detail.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

from ralph_verify.errors import ConfigError, UsageError

__version__ = "0.1.0"

#: Marker for plugin hook implementations: ``@ralph_verify.hookimpl``.
hookimpl = pluggy.HookimplMarker("ralph_verify")

if TYPE_CHECKING:
    from ralph_verify.checks import Check, CheckOptions, CheckResult, CheckType, Failure, Status
    from ralph_verify.config import Config
    from ralph_verify.loop import Loop, LoopResult
    from ralph_verify.session import ExitCode, main
    from ralph_verify.until import CheckSpec
    from ralph_verify.verdict import Verdict

__all__ = [
    "Check",
    "CheckOptions",
    "CheckResult",
    "CheckSpec",
    "CheckType",
    "Config",
    "ConfigError",
    "ExitCode",
    "Failure",
    "Loop",
    "LoopResult",
    "Status",
    "UsageError",
    "Verdict",
    "__version__",
    "hookimpl",
    "main",
]

_LAZY = {
    "Check": "ralph_verify.checks",
    "CheckOptions": "ralph_verify.checks",
    "CheckResult": "ralph_verify.checks",
    "CheckType": "ralph_verify.checks",
    "Failure": "ralph_verify.checks",
    "Status": "ralph_verify.checks",
    "CheckSpec": "ralph_verify.until",
    "Config": "ralph_verify.config",
    "ExitCode": "ralph_verify.session",
    "main": "ralph_verify.session",
    "Loop": "ralph_verify.loop",
    "LoopResult": "ralph_verify.loop",
    "Verdict": "ralph_verify.verdict",
}


def __getattr__(name: str) -> Any:
    """Import the public classes on first use, so ``--version`` and ``--help`` stay fast."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ralph_verify' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
