"""Writing files so that a crash or Ctrl-C never leaves half of one behind."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from ralph_verify.errors import UsageError


def now_iso() -> str:
    """Now, in UTC, to the second: the timestamp of every record ralph-verify writes."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def utc_now_iso() -> str:
    """Now, in UTC, to the microsecond (a verification's start)."""
    return datetime.now(timezone.utc).isoformat()


def output_target(option: str, value: str, base: Path) -> Path:
    """The file ``--json FILE`` names, checked before anything runs: a directory or an
    unwritable folder is a usage error, not a traceback at the end."""
    path = Path(base, value).expanduser()
    if path.is_dir():
        raise UsageError(f"{option} {value}: is a directory; give a file name, e.g. "
                         f"{Path(value, 'result' + ('.xml' if 'junit' in option else '.json'))}")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"{option} {value}: {folder} is not a folder")
    import tempfile  # here, not at start-up (it pulls in shutil, random, bz2, lzma)

    try:  # the only sure test: make a file there (and remove it)
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{option} {value}: cannot write in {folder} ({exc.strerror}); "
                         "choose another path") from None
    return path


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
