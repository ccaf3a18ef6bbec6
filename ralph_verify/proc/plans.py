"""The plans of :mod:`ralph_verify.proc.ahead`: where they are kept, their key, the files
they hold, writing one whole and keeping the last few.

Imported by the face before the tool starts: ``os`` and ``sys`` only at import.
"""

from __future__ import annotations

import os
import sys

#: Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

#: The plan file's form; a plan of another form is ignored (and replaced).
PLAN_FORM = 2
#: Plans kept at most (some 100 KB each, most of it our compiled pytest plugins).
MAX_PLANS = 32


def cache_dir() -> str:
    """:func:`ralph_verify.project.caches.user_cache_dir` (which the face may not import
    yet: a test holds the two equal)."""
    configured = os.environ.get("RALPH_VERIFY_CACHE_DIR")
    if configured:
        return configured
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ralph-verify")


def plan_key(args: Sequence[str]) -> str:
    """What a plan is kept for: the command line, folder, environment and Python."""
    parts = [str(PLAN_FORM), sys.version, sys.executable, os.getcwd(), *args, "\0env"]
    parts += [f"{name}={value}" for name, value in sorted(os.environ.items())]
    return "\0".join(parts)


def plan_path(key: str) -> str:
    """The file of the plan for ``key``, named by its checksum (the key itself is inside)."""
    import zlib

    name = f"{zlib.crc32(key.encode('utf-8', 'surrogateescape')):08x}"
    return os.path.join(cache_dir(), "ahead", name)


def files_on_path(env: Mapping[str, str], workdir: str) -> dict[str, bytes]:
    """The files, by path relative to ``workdir``, in the folders of ``env``'s ``PYTHONPATH``
    that lie in ``workdir``: what a Python start there may read before the gate."""
    files: dict[str, bytes] = {}
    inside = os.path.join(workdir, "")
    for entry in env.get("PYTHONPATH", "").split(os.pathsep):
        if not entry.startswith(inside):
            continue
        try:
            names = sorted(os.listdir(entry))
        except OSError:
            continue
        for name in names:
            path = os.path.join(entry, name)
            if os.path.isfile(path):
                with open(path, "rb") as handle:
                    files[os.path.relpath(path, workdir)] = handle.read()
    return files


def keep(path: str, plan: dict[str, Any]) -> None:
    """Write ``plan`` whole (a temporary file renamed over ``path``), and keep the last few.
    A cache: a plan that cannot be written only costs the next command its head start."""
    import contextlib
    import marshal

    partial = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(partial, "wb") as handle:
            marshal.dump(plan, handle)
        os.replace(partial, path)
        _prune(os.path.dirname(path))
    except OSError:  # a cache: the next command only starts its tool later
        with contextlib.suppress(OSError):
            os.unlink(partial)


def _prune(folder: str) -> None:
    """Keep the :data:`MAX_PLANS` plans last written (one per command line, folder and
    environment: a new terminal's variables make a new one)."""
    with os.scandir(folder) as entries:
        plans = sorted((entry.stat().st_mtime_ns, entry.path) for entry in entries
                       if entry.is_file() and "." not in entry.name)
    for _, path in plans[:-MAX_PLANS]:
        os.unlink(path)
