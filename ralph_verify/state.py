"""The files a session writes under ``.ralph/``, and the lock that keeps runs apart.

::

    .ralph/
      state.json        the session: iteration, phase, checks, plugin state, verdict (atomic)
      history.jsonl     one JSON line per iteration
      progress.md       human-readable log, also offered to the agent ({{progress}})
      iterations/NNN/   prompt.md, agent.log, verification.json (000 is the baseline)
      lock              the pid of the run working here
      cancel            written by ``ralph-verify cancel``; the run stops when it appears

Everything written goes through :func:`~ralph_verify.redact.redact`.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph_verify.checks import CheckResult, Failure, Status
from ralph_verify.errors import UsageError
from ralph_verify.redact import redact
from ralph_verify.state_files import now_iso, write_text_atomic
from ralph_verify.verification import Verification

STATE_VERSION = 1


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
    pid: int
    host: str
    session: str
    started_at: str


def read_history(path: Path) -> list[dict[str, Any]]:
    """The records of a ``history.jsonl``; a line cut by a crash is skipped, a missing or
    unreadable file is no history."""
    records = []
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a line cut by a crash
                if isinstance(record, dict):
                    records.append(record)
    except OSError:
        pass
    return records


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

    def iteration_dir(self, number: int) -> Path:
        return self.path / "iterations" / f"{number:03d}"

    # --- the lock --------------------------------------------------------------------------

    def read_lock(self) -> LockInfo | None:
        try:
            data = json.loads(self.lock_path.read_text(encoding="utf-8"))
            return LockInfo(int(data["pid"]), str(data.get("host", "")),
                            str(data.get("session", "")), str(data.get("started_at", "")))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def lock_holder(self) -> LockInfo | None:
        """The live run holding the lock, or ``None`` (no lock, or its process is gone)."""
        info = self.read_lock()
        if info is None or (info.host == socket.gethostname() and not pid_alive(info.pid)):
            return None
        return info

    def acquire_lock(self, session: str) -> str | None:
        """Take the lock; a stale one (dead pid) is taken over: returns a note saying so."""
        self.path.mkdir(parents=True, exist_ok=True)
        note = None
        payload = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                              "session": session, "started_at": now_iso()})
        for _ in range(3):
            try:
                fd = os.open(self.lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = self.lock_holder()
                if holder is not None:
                    raise UsageError(
                        f"another ralph-verify run (pid {holder.pid}, session {holder.session}, "
                        f"started {holder.started_at}) is working in {self.root}; wait for it, "
                        "or stop it with 'ralph-verify cancel'") from None
                stale = self.read_lock()
                note = (f"took over a stale lock of pid {stale.pid} (no longer running)"
                        if stale else "took over an unreadable lock file")
                self.lock_path.unlink(missing_ok=True)
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(payload)
            return note
        raise UsageError(f"could not take the lock {self.lock_path}; remove it if no run is "
                         "active")

    def release_lock(self) -> None:
        info = self.read_lock()
        if info is not None and info.pid == os.getpid():
            self.lock_path.unlink(missing_ok=True)

    # --- writing ---------------------------------------------------------------------------

    def write_state(self, state: dict[str, Any]) -> None:
        state = {"version": STATE_VERSION, **state, "updated_at": now_iso()}
        write_text_atomic(self.state_path, redact(json.dumps(state, indent=2)) + "\n")

    def read_state(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.state_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise UsageError(f"{self.state_path} is unreadable ({exc}); remove .ralph/ to "
                             "start afresh") from None
        return data if isinstance(data, dict) else None

    def append_history(self, record: dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        line = redact(json.dumps(record, separators=(",", ":"))) + "\n"
        with self.history_path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())

    def read_history(self) -> list[dict[str, Any]]:
        return read_history(self.history_path)

    def append_progress(self, text: str) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        with self.progress_path.open("a", encoding="utf-8") as handle:
            handle.write(redact(text))

    def write_text(self, path: Path, text: str) -> None:
        write_text_atomic(path, redact(text))

    def write_verification(self, number: int, verification: Verification) -> Path:
        path = self.iteration_dir(number) / "verification.json"
        self.write_text(path, json.dumps(verification.to_json(), indent=2) + "\n")
        return path

    def read_verification(self, number: int) -> Verification | None:
        path = self.iteration_dir(number) / "verification.json"
        try:
            return verification_from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def clear_session_files(self) -> None:
        """Start a new session: the previous one's files go (its commits stay in git)."""
        import shutil

        shutil.rmtree(self.path / "iterations", ignore_errors=True)
        for path in (self.history_path, self.progress_path, self.cancel_path):
            path.unlink(missing_ok=True)


def verification_from_json(data: dict[str, Any]) -> Verification:
    """Rebuild a :class:`Verification` from ``verification.json`` (for ``--resume``)."""
    results = []
    for check in data["checks"]:
        failures = [Failure(message=f["message"], location=f.get("location"),
                            detail=f.get("detail", ""), code=f.get("code"), path=f.get("path"),
                            line=f.get("line"), fingerprint=f.get("fingerprint", ""),
                            pre_existing=bool(f.get("pre_existing")))
                    for f in check.get("failures", [])]
        results.append(CheckResult(
            name=check["name"], spec=check["spec"], status=Status(check["status"]),
            summary=check.get("summary", ""), metric=check.get("metric"), failures=failures,
            duration_s=float(check.get("duration_s", 0.0)), output=check.get("output", ""),
            flaky=list(check.get("flaky", [])), counts=dict(check.get("counts", {}))))
    return Verification(root=Path(data["root"]), results=results,
                        duration_s=float(data.get("duration_s", 0.0)),
                        started_at=data.get("started_at", ""), feedback=data.get("feedback", ""))
