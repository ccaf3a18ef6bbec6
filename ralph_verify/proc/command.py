"""Whether this process is the ``ralph-verify`` command itself (``python -m ralph_verify``, the
console script), not a program that imports ralph-verify (a test, the API, the project's
pytest loading our recorder): only the command's own process moves ``PYTHONPATH`` last,
keeps its start-up caches, holds the garbage collector while it starts and counts its age."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = ["is_command"]


def is_command(orig_argv: Sequence[str] | None = None) -> bool:
    """Whether ``orig_argv`` (default: this process's ``sys.orig_argv``) starts the command."""
    argv = list(getattr(sys, "orig_argv", []) if orig_argv is None else orig_argv)
    return argv[1:3] == ["-m", "ralph_verify"] or any(
        os.path.basename(part) == "ralph-verify" for part in argv[:2])
