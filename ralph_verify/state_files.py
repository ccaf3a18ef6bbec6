"""Writing files so that a crash or Ctrl-C never leaves half of one behind."""

from __future__ import annotations

import os
import time
from pathlib import Path

from ralph_verify.errors import UsageError


def now_iso() -> str:
    """Now, in UTC, to the second: the timestamp of every record ralph-verify writes
    (``datetime.now(timezone.utc).isoformat(timespec="seconds")``, without importing
    ``datetime`` at every start). The second is ``time.time()``'s: a bare ``gmtime()`` reads
    the C library's coarse ``time(NULL)``, a tick behind at each second's turn."""
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time_ns() // 1_000_000_000))


def utc_now_iso(now_ns: int | None = None) -> str:
    """``datetime.now(timezone.utc).isoformat()`` (to the microsecond, which it leaves out
    when it is 0), the same text, without ``datetime``."""
    seconds, nanos = divmod(time.time_ns() if now_ns is None else now_ns, 1_000_000_000)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    micros = nanos // 1000
    return f"{text}.{micros:06d}+00:00" if micros else f"{text}+00:00"


def output_target(option: str, value: str, base: Path) -> Path:
    """The file ``--json FILE`` / ``--junitxml FILE`` names, checked before anything runs:
    a directory, or a folder that cannot be written, is a usage error, not a traceback at
    the end."""
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
