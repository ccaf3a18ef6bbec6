"""Run a tool in its own process group with a timeout, its output on disk (hundreds of
megabytes neither block a pipe nor fill memory); a timeout or Ctrl-C kills all it started."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph_verify.proc import info as procinfo

_PROC_DIR = Path("/proc")

#: How much of a tool's output an error result quotes.
TAIL_LINES = 30
TAIL_CHARS = 3000
#: The most of one output stream read into memory at once; a check that needs more reads
#: it as a stream (ruff's JSON) or fails with a clear error instead of swapping.
MAX_READ_BYTES = 128 * 1024 * 1024


class ToolError(Exception):
    """A tool could not give an answer; the check becomes an ``error`` result."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


class ToolMissing(ToolError):
    """The tool is not installed; the message says which package provides it."""


class ToolTimeout(ToolError):
    """The tool ran past its timeout and was killed."""


@dataclass
class ToolRun:
    """A finished tool run; ``stdout``/``stderr`` are read from disk on demand."""

    argv: list[str]
    returncode: int
    duration_s: float
    stdout_path: Path
    stderr_path: Path
    #: ``time.monotonic()`` by which reading the output must be done too: the check's
    #: timeout covers the tool and the parsing of what it printed.
    deadline: float | None = None
    timeout: float | None = None

    @property
    def stdout(self) -> str:
        return self._read(self.stdout_path, "stdout")

    @property
    def stderr(self) -> str:
        return self._read(self.stderr_path, "stderr")

    def _read(self, path: Path, what: str) -> str:
        size = path.stat().st_size if path.exists() else 0
        if size > MAX_READ_BYTES:
            raise ToolError(
                f"{Path(self.argv[0]).name} printed {size / 1e6:,.0f} MB on {what}, more than "
                f"the {MAX_READ_BYTES // 2**20} MB ralph-verify reads: narrow what the check "
                "looks at (its 'args' option)", output=self.tail())
        return path.read_text(encoding="utf-8", errors="replace")

    def check_deadline(self) -> None:
        """Raise :class:`ToolTimeout` once reading the output has used up the timeout."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise ToolTimeout(
                f"{Path(self.argv[0]).name}: reading its output took past the check's timeout "
                f"({self.timeout:g}s); raise the check's 'timeout' option or --timeout, or "
                "narrow what the check looks at")

    def tail(self, lines: int = TAIL_LINES) -> str:
        """The last lines of stdout and stderr, bounded, for error messages and feedback."""
        return "\n".join(part for part in (tail_of_file(self.stdout_path, lines),
                                           tail_of_file(self.stderr_path, lines)) if part)


def tail_of_file(path: Path, lines: int = TAIL_LINES, max_chars: int = TAIL_CHARS) -> str:
    """The last ``lines`` lines of a file without reading all of it."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - max_chars * 4))
            data = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    text = "\n".join(data.rstrip().splitlines()[-lines:])
    return text[-max_chars:]


def head_of_file(path: Path, max_chars: int = TAIL_CHARS * 4) -> str:
    """The start of a file, at most ``max_chars`` characters, without reading all of it."""
    try:
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            return handle.read(max_chars)
    except OSError:
        return ""


class ProcessGroup:
    """The tool processes of one verification (and their marks), so Ctrl-C can kill them
    all, with everything they started."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[subprocess.Popen[Any], str | None] = {}

    def add(self, proc: subprocess.Popen[Any], mark: str | None = None) -> None:
        with self._lock:
            self._running[proc] = mark

    def discard(self, proc: subprocess.Popen[Any]) -> None:
        with self._lock:
            self._running.pop(proc, None)

    def kill_all(self) -> None:
        with self._lock:
            procs = list(self._running.items())
        for proc, mark in procs:
            kill_process_group(proc, mark)


def kill_process_group(proc: subprocess.Popen[Any], mark: str | None = None) -> None:
    """Kill ``proc``, its group, and (Linux) every process it started that left the group
    (its descendants, those carrying ``mark``); never raises."""
    if proc.poll() is not None and sys.platform == "win32":
        return
    try:
        if sys.platform == "win32":
            subprocess.run(["taskkill", "/F", "/T", "/PID", str(proc.pid)],
                           capture_output=True, check=False)
        else:
            procinfo.kill_family(proc.pid, mark)
    except (ProcessLookupError, PermissionError, OSError):
        pass
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def marked_env(env: Mapping[str, str] | None) -> tuple[dict[str, str], str]:
    """``env`` (default: ours) with a fresh mark that every descendant inherits, so that
    :func:`kill_process_group` finds those that leave the process group (``setsid``)."""
    mark = procinfo.new_mark()
    return {**(os.environ if env is None else env), procinfo.MARK_VAR: mark}, mark


def own_process_group() -> dict[str, object]:
    """``Popen`` arguments for a child in a process group of its own; on Linux it also gets
    SIGKILL if we die (``kill -9`` of ralph-verify runs no cleanup)."""
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined,unused-ignore]  # Windows only
    setup = procinfo.die_with_parent()
    return {"start_new_session": True, **({"preexec_fn": setup} if setup else {})}


def start_watchdog(group: int) -> subprocess.Popen[bytes] | None:
    """Start :mod:`ralph_verify.proc.watchdog` for the process group ``group`` (POSIX)."""
    if sys.platform == "win32" or not sys.executable or group <= 1:
        return None  # pragma: no cover - Windows: the job object of the console ends them
    from ralph_verify.proc import watchdog
    try:
        return subprocess.Popen([sys.executable, "-I", "-S", watchdog.__file__, str(group)],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:  # pragma: no cover - no process left to start one
        return None


def stop_watchdog(proc: subprocess.Popen[bytes] | None) -> None:
    """Tell the watchdog the turn ended normally, and reap it; never raises."""
    if proc is None or proc.stdin is None:
        return
    with contextlib.suppress(OSError):
        proc.stdin.write(b"done")
    with contextlib.suppress(OSError):
        proc.stdin.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - a watchdog that hangs
        proc.kill()
        proc.wait()


#: Seconds the processes an agent leaves behind get between SIGTERM and SIGKILL.
REAPER_GRACE_S = 1.0


def reaped(argv: str | Sequence[str], cwd: Path, env: Mapping[str, str]) -> bool:
    """Whether an agent's ``argv`` runs under :mod:`ralph_verify.proc.reaper` (Linux). Raise
    ``FileNotFoundError`` for a program that is not there, as ``Popen`` would."""
    if not (sys.platform.startswith("linux") and sys.executable and _PROC_DIR.is_dir()):
        return False
    program = argv if isinstance(argv, str) else argv[0]
    if os.sep in program:
        found = (cwd / program).is_file()
    else:
        import shutil

        found = shutil.which(program, path=env.get("PATH", os.defpath)) is not None
    if not found:
        raise FileNotFoundError(2, "No such file or directory", program)
    return True


def reaper_argv(argv: Sequence[str], report_fd: int) -> list[str]:
    """``argv`` under the reaper, which reports on the pipe ``report_fd`` (``pass_fds``)."""
    from ralph_verify.proc import reaper

    return [sys.executable, "-I", "-S", reaper.__file__, str(report_fd),
            str(REAPER_GRACE_S), "--", *argv]


def read_survivors(report_fd: int) -> list[str]:
    """The processes the reaper could not end, still alive ("pid PID (COMMAND)"); closes
    ``report_fd``. Never blocks on a reaper killed before it wrote."""
    chunks = []
    try:
        os.set_blocking(report_fd, False)
        while chunk := os.read(report_fd, 65536):
            chunks.append(chunk)
    except OSError:  # BlockingIOError: a writer is still there; take what came
        pass
    finally:
        os.close(report_fd)
    alive = []
    for line in b"".join(chunks).decode("utf-8", "replace").splitlines():
        pid, _, command = line.partition("\t")
        if pid.isdigit() and procinfo.start_time(int(pid)) is not None:
            alive.append(f"pid {pid} ({command})")
    return alive


def run_tool(argv: Sequence[str], *, cwd: Path, timeout: float, workdir: Path,
             env: Mapping[str, str] | None = None, group: ProcessGroup | None = None,
             missing_hint: str = "", shell: bool = False) -> ToolRun:
    """Run ``argv`` in ``cwd``; raise :class:`ToolMissing` or :class:`ToolTimeout`."""
    argv = list(argv)
    # Before the tool starts: the orphans it leaves come to us, to be ended.
    procinfo.become_subreaper()
    proc, mark, stdout_path, stderr_path = _start_tool(argv, cwd, workdir, env, shell,
                                                       missing_hint)
    started = time.perf_counter()
    deadline = time.monotonic() + timeout
    if group is not None:
        group.add(proc, mark)
    try:
        returncode = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_process_group(proc, mark)
        raise ToolTimeout(
            f"{Path(argv[0]).name} timed out after {timeout:g}s and was killed "
            "(raise the check's 'timeout' option or --timeout)",
            output="\n".join(p for p in (tail_of_file(stdout_path),
                                         tail_of_file(stderr_path)) if p),
        ) from None
    finally:
        if group is not None:
            group.discard(proc)
        if proc.returncode is None:  # interrupted (Ctrl-C, SIGTERM): all of it goes
            kill_process_group(proc, mark)
        elif sys.platform != "win32":
            # End any descendant left behind (daemons, workers, a setsid() escapee).
            procinfo.kill_family(proc.pid, mark)
    return ToolRun(argv=argv, returncode=returncode,
                   duration_s=time.perf_counter() - started,
                   stdout_path=stdout_path, stderr_path=stderr_path, deadline=deadline,
                   timeout=timeout)


def _start_tool(argv: list[str], cwd: Path, workdir: Path, env: Mapping[str, str] | None,
                shell: bool, missing_hint: str,
                ) -> tuple[subprocess.Popen[bytes], str, Path, Path]:
    """Start ``argv`` with its output in two new files of ``workdir``."""
    import tempfile  # not at import: it pulls in shutil, random, bz2, lzma (--help needs none)

    fd_out, out_name = tempfile.mkstemp(prefix="out-", suffix=".txt", dir=workdir)
    fd_err, err_name = tempfile.mkstemp(prefix="err-", suffix=".txt", dir=workdir)
    kwargs = own_process_group()
    child_env, mark = marked_env(env)
    with os.fdopen(fd_out, "wb") as out, os.fdopen(fd_err, "wb") as err:
        try:
            proc = subprocess.Popen(
                argv[0] if shell else argv, cwd=cwd, stdout=out, stderr=err,
                stdin=subprocess.DEVNULL, env=child_env,
                shell=shell, **kwargs,  # type: ignore[call-overload]  # kwargs differ per OS
            )
        except OSError as exc:  # also a folder or a non-executable file (a config mistake)
            said = (f"{argv[0] or 'an empty command'} not found"
                    if isinstance(exc, FileNotFoundError) else
                    f"{argv[0] or 'an empty command name'} cannot be run ({exc.strerror})")
            raise ToolMissing(said + (f": {missing_hint}" if missing_hint else "")) from None
    return proc, mark, Path(out_name), Path(err_name)
