"""The files a session writes under ``.ralph/`` (state.json, history.jsonl, progress.md,
iterations/NNN/, lock, cancel), all redacted, and the lock that keeps runs apart."""

from __future__ import annotations

import json
import os
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ralph_verify.checks.verification import Verification, VerificationRecord
from ralph_verify.errors import UsageError
from ralph_verify.proc import info as procinfo
from ralph_verify.records.files import append_line, load, read_lines, save
from ralph_verify.records.session import SCHEMA, IterationRecord, SessionState
from ralph_verify.redact import redact
from ralph_verify.state_files import now_iso, write_text_atomic


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (on this machine)."""
    if pid <= 0:
        return False
    if sys.platform == "win32":  # pragma: no cover - no os.kill(pid, 0) semantics there
        import ctypes

        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)  # type: ignore[attr-defined,unused-ignore]  # Windows only
        if handle:
            ctypes.windll.kernel32.CloseHandle(handle)  # type: ignore[attr-defined,unused-ignore]  # Windows only
        return bool(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class LockInfo:
    """What ``.ralph/lock`` says about the run holding it (anyone can write that file: see
    :meth:`StateDir.is_our_run` before believing it)."""

    pid: int
    host: str
    session: str
    started_at: str
    start_time: str = ""
    cmdline: list[str] = field(default_factory=list)


def parse_lock(text: str) -> LockInfo | None:
    """The contents of a lock file, or ``None`` if it is not one."""
    try:
        data = json.loads(text)
        command = data.get("cmdline") or []
        return LockInfo(int(data["pid"]), str(data.get("host", "")),
                        str(data.get("session", "")), str(data.get("started_at", "")),
                        str(data.get("start_time") or ""),
                        [str(part) for part in command] if isinstance(command, list) else [])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def read_history(path: Path) -> list[IterationRecord]:
    """The records of a ``history.jsonl``; a line cut by a crash is skipped, a missing or
    unreadable file is no history, a line of the wrong shape a one-line error naming it."""
    return read_lines(IterationRecord, path)


def read_state(path: Path) -> SessionState | None:
    """A ``state.json``, checked field by field; ``None`` when there is none."""
    state = load(SessionState, path)
    if state is not None and state.version > SCHEMA:
        raise UsageError(f"{path} was written by a newer ralph-verify (layout {state.version}, "
                         f"this one reads up to {SCHEMA}); upgrade ralph-verify to read it")
    return state


def read_verification(path: Path) -> Verification | None:
    """A ``verification.json``, checked field by field; ``None`` when there is none."""
    record = load(VerificationRecord, path)
    return None if record is None else record.verification()


class StateDir:
    """Paths and writers of one project's ``.ralph/`` folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / ".ralph"
        self.state_path = self.path / "state.json"
        self.history_path = self.path / "history.jsonl"
        self.progress_path = self.path / "progress.md"
        self.lock_path = self.path / "lock"
        self.cancel_path = self.path / "cancel"
        self._lock_fd: int | None = None

    def iteration_dir(self, number: int) -> Path:
        return self.path / "iterations" / f"{number:03d}"

    # --- the lock --------------------------------------------------------------------------

    def read_lock(self) -> LockInfo | None:
        try:
            return parse_lock(self.lock_path.read_text(encoding="utf-8"))
        except OSError:
            return None

    def is_our_run(self, info: LockInfo) -> bool:
        """Whether ``info`` names a live ralph-verify run of this project, proven: a pid above
        1 on this host whose start time and command line are those recorded, and which holds
        this lock file open. Only such a process is ever signalled."""
        if info.pid <= 1 or info.host != socket.gethostname() or not info.start_time \
                or not info.cmdline:
            return False
        if procinfo.start_time(info.pid) != info.start_time \
                or procinfo.cmdline(info.pid) != info.cmdline:
            return False
        holds = procinfo.holds_open(info.pid, self.lock_path)
        if holds is None:  # no /proc: the command line must at least be ours
            return any("ralph" in part for part in info.cmdline)  # pragma: no cover - not Linux
        return holds

    def lock_holder(self) -> LockInfo | None:
        """The live run holding the lock, or ``None`` (no lock, its process is gone, or the
        lock names a process that is not a ralph-verify run of this project)."""
        info = self.read_lock()
        if info is None:
            return None
        if info.host != socket.gethostname():
            return info  # another machine (a shared folder): it cannot be checked from here
        return info if self.is_our_run(info) else None

    def acquire_lock(self, session: str) -> str | None:
        """Take the lock, atomically: an exclusive ``flock`` on ``.ralph/lock`` held for the
        whole run (the kernel drops it when the process dies, however it dies). A lock file
        no process holds is stale and taken over; returns a note saying so."""
        self.path.mkdir(parents=True, exist_ok=True)
        me = os.getpid()
        payload = json.dumps({"pid": me, "host": socket.gethostname(), "session": session,
                              "started_at": now_iso(), "start_time": procinfo.start_time(me),
                              "cmdline": procinfo.cmdline(me)})
        if sys.platform == "win32":  # pragma: no cover - no flock there
            return self._acquire_exclusive(payload)
        import fcntl

        for _ in range(20):
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise self._busy(self.read_lock()) from None
            try:
                same = os.fstat(fd).st_ino == self.lock_path.stat().st_ino
            except OSError:
                same = False
            if not same:  # released (unlinked) between our open and our flock: again
                os.close(fd)
                continue
            old = os.read(fd, 65536).decode("utf-8", errors="replace").strip()
            os.ftruncate(fd, 0)
            os.pwrite(fd, payload.encode("utf-8"), 0)
            os.fsync(fd)
            self._lock_fd = fd
            if not old:
                return None
            stale = parse_lock(old)
            if stale is None:
                return "took over an unreadable lock file"
            gone = stale.pid <= 0 or procinfo.start_time(stale.pid) is None
            return (f"took over a stale lock of pid {stale.pid} ("
                    + ("no longer running)" if gone else "not a run holding the lock)"))
        raise UsageError(f"could not take the lock {self.lock_path}; remove it if no run is "
                         "active")

    def _busy(self, holder: LockInfo | None) -> UsageError:
        who = (f" (pid {holder.pid}, session {holder.session}, started {holder.started_at})"
               if holder is not None else "")
        return UsageError(f"another ralph-verify run{who} is working in {self.root}; wait for "
                          "it, or stop it with 'ralph-verify cancel'")

    def _acquire_exclusive(self, payload: str) -> str | None:  # pragma: no cover - Windows
        note = None
        for _ in range(3):
            try:
                fd = os.open(self.lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                stale = self.read_lock()
                if stale is not None and pid_alive(stale.pid):
                    raise self._busy(stale) from None
                note = (f"took over a stale lock of pid {stale.pid} (no longer running)"
                        if stale else "took over an unreadable lock file")
                self.lock_path.unlink(missing_ok=True)
                continue
            os.write(fd, payload.encode("utf-8"))
            self._lock_fd = fd
            return note
        raise UsageError(f"could not take the lock {self.lock_path}; remove it if no run is "
                         "active")

    def release_lock(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None and sys.platform == "win32":  # pragma: no cover - Windows
            os.close(fd)  # an open file cannot be removed there
            self.lock_path.unlink(missing_ok=True)
            return
        if fd is not None:
            # Unlink while still holding the flock: a run that opened the old file before
            # sees it is no longer the lock file (acquire_lock compares inodes) and tries again.
            try:
                if os.fstat(fd).st_ino == self.lock_path.stat().st_ino:
                    self.lock_path.unlink(missing_ok=True)
            except OSError:
                pass
            os.close(fd)
            return
        info = self.read_lock()
        if info is not None and info.pid == os.getpid():
            self.lock_path.unlink(missing_ok=True)

    # --- writing ---------------------------------------------------------------------------

    def repair(self) -> str | None:
        """After the agent's turn, ``.ralph/`` must still be a folder of ours: a file or a
        link in its place is moved aside (never deleted) and the folder made again, so
        the session can still write what it knows. Says what was found, or None."""
        if self.path.is_dir() and not self.path.is_symlink():
            return None
        if not self.path.exists() and not self.path.is_symlink():
            self.path.mkdir(parents=True)
            return ".ralph/ was deleted"
        import time

        aside = self.root / f".ralph.replaced-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        kind = "a link" if self.path.is_symlink() else "a file"
        self.path.rename(aside)
        self.path.mkdir()
        return f".ralph/ was replaced by {kind} (kept as {aside.name})"

    def write_state(self, state: SessionState) -> None:
        state.version, state.updated_at = SCHEMA, now_iso()
        save(self.state_path, state)

    def stop_on_full_disk(self, exc: OSError) -> str:
        """The disk is full: mark the session stopped in ``state.json`` without needing a
        new block (rewritten in place, smaller than before) and say what happened."""
        where = exc.filename or f"in {self.path}"
        error = f"the disk is full ({exc.strerror}): could not write {where}"
        written = False
        try:
            data = json.loads(self.state_path.read_text(encoding="utf-8"))
            size = self.state_path.stat().st_size
        except (OSError, ValueError):
            data, size = None, 0
        if isinstance(data, dict):
            data.update(status="finished", phase="finished", error=error,
                        updated_at=now_iso())
            keep = ("version", "session", "status", "phase", "error", "iteration",
                    "max_iterations", "agent", "log_dir", "updated_at")
            for record in (data, {k: data[k] for k in keep if k in data}):
                text = redact(json.dumps(record, separators=(",", ":"))).encode("utf-8")
                if len(text) <= size:
                    try:
                        with self.state_path.open("r+b") as handle:
                            handle.write(text.ljust(size))  # JSON allows trailing spaces
                            handle.flush()
                            os.fsync(handle.fileno())
                        written = True
                    except OSError:
                        pass
                    break
        said = ("state.json says the session stopped" if written
                else "state.json could not be updated either")
        return (f"{error}; the session stopped ({said}). Free some space, then "
                "'ralph-verify run --resume' goes on")

    def read_state(self) -> SessionState | None:
        """``state.json`` checked against its type: a corrupted one is a one-line error
        naming it (:class:`~ralph_verify.records.files.CorruptFile`)."""
        return read_state(self.state_path)

    def append_history(self, record: IterationRecord) -> None:
        append_line(self.history_path, record)

    def read_history(self) -> list[IterationRecord]:
        return read_history(self.history_path)

    def append_progress(self, text: str) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        with self.progress_path.open("a", encoding="utf-8") as handle:
            handle.write(redact(text))

    def write_text(self, path: Path, text: str) -> None:
        write_text_atomic(path, redact(text))

    def write_verification(self, number: int, verification: Verification) -> Path:
        path = self.iteration_dir(number) / "verification.json"
        save(path, verification.record())
        return path

    def read_verification(self, number: int) -> Verification | None:
        return read_verification(self.iteration_dir(number) / "verification.json")

    def clear_session_files(self) -> None:
        """Start a new session: the previous one's files go (its commits stay in git)."""
        import shutil

        shutil.rmtree(self.path / "iterations", ignore_errors=True)
        for path in (self.history_path, self.progress_path, self.cancel_path):
            path.unlink(missing_ok=True)

