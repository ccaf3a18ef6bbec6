"""The key that makes ``.ralph/cancel`` a request of ``ralph-verify cancel``, not the agent's.

``.ralph/`` lies inside the project, where the agent writes: a ``touch .ralph/cancel`` of its
own must not end the run ``cancelled``. Each session start (``run``, ``start``) issues a
random key kept outside the project (the user's cache folder, mode 0600); ``cancel`` writes
it into the cancel file, and the loop honours a cancel file only when it holds that key.
A file without it is removed and reported. (An agent that goes out of its way to read the
user's cache folder could still find the key: the sandbox, not this, keeps it out of there.)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

#: Said when a cancel file without the key is found (and removed).
FORGED = ("ignored .ralph/cancel: it was not written by 'ralph-verify cancel' (only the "
          "user's 'ralph-verify cancel' ends a session this way)")


def outside_file(root: Path, folder: str, suffix: str,
                 environ: Mapping[str, str] | None = None) -> Path:
    """A file of the project at ``root`` kept outside it, in the user's ralph-verify folder
    (``$RALPH_VERIFY_CACHE_DIR``, else ``$XDG_CACHE_HOME/ralph-verify``): ``folder/HASH.suffix``."""
    env = os.environ if environ is None else environ
    base = env.get("RALPH_VERIFY_CACHE_DIR") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ralph-verify")
    project = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return Path(base) / folder / f"{project}.{suffix}"


def key_path(root: Path, environ: Mapping[str, str] | None = None) -> Path:
    """Where the key of the project at ``root`` is kept, outside the project."""
    return outside_file(root, "cancel", "key", environ)


def issue(root: Path) -> None:
    """A fresh key for the session starting now (the last one's no longer counts)."""
    path = key_path(root)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path.with_suffix(".tmp"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        import secrets  # a session's start only: not at every command's start-up

        handle.write(secrets.token_hex(16))
    os.replace(path.with_suffix(".tmp"), path)


def _key(root: Path, environ: Mapping[str, str] | None = None) -> str | None:
    try:
        text = key_path(root, environ).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


def request(root: Path, environ: Mapping[str, str] | None = None) -> str:
    """What ``ralph-verify cancel`` writes into ``.ralph/cancel``."""
    key = _key(root, environ)
    return f"cancel requested by pid {os.getpid()}\n" + (f"key {key}\n" if key else "")


def genuine(root: Path, cancel_file: Path) -> bool:
    """Whether ``cancel_file`` was written by ``ralph-verify cancel`` for this session."""
    key = _key(root)
    try:
        text = cancel_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return key is not None and f"key {key}" in text.splitlines()
