"""Run an agent's process in its own group, with timeout and cancel, its output redacted
into ``agent.log`` and a bounded tail in memory (gigabytes of output cost disk, not memory)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from ralph_verify.proc.info import become_subreaper
from ralph_verify.proc.process import (
    kill_process_group,
    marked_env,
    own_process_group,
    read_survivors,
    reaped,
    reaper_argv,
    start_watchdog,
    stop_watchdog,
)
from ralph_verify.proc.signals import held
from ralph_verify.redact import redact
from ralph_verify.terminal_text import strip_controls

#: How much of the agent's output stays in memory (the promise scan reads it).
TAIL_BYTES = 256 * 1024
_CHUNK = 64 * 1024
#: A line longer than this is written out before its end arrives.
_MAX_CARRY = 1024 * 1024
#: The most ``agent.log`` grows to: its first part as written, then the last
#: :data:`LOG_TAIL_BYTES`, with a note between them saying how much was cut.
LOG_MAX_BYTES = 50 * 1024 * 1024
LOG_TAIL_BYTES = 4 * 1024 * 1024
#: How often the waiting loop looks at the cancel event and the deadline.
_POLL_S = 0.05


@dataclass
class ProcessOutcome:
    """How one agent process ended."""

    exit_code: int | None
    duration_s: float
    timed_out: bool = False
    cancelled: bool = False
    #: Killed by the idle timeout: no output and no file change for that long.
    idle: bool = False
    #: Processes the agent started that outlived it and could not be ended: "PID COMMAND".
    survivors: list[str] = field(default_factory=list)


class OutputSink:
    """Receives an agent's output: redacted onto the log on disk, a bounded tail in memory."""

    def __init__(self, log_path: Path) -> None:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_path = log_path
        self._log = log_path.open("ab")
        self._tail = bytearray()
        self._environ = dict(os.environ)
        self._lock = threading.Lock()
        self.total_bytes = 0
        self._log_head_room = max(0, LOG_MAX_BYTES - LOG_TAIL_BYTES)
        self._log_tail = bytearray()
        self._cut_bytes = 0
        #: Why the log could not be written (a full disk), raised when the agent has ended.
        self.error: OSError | None = None

    def write(self, data: bytes) -> None:
        """Append complete text (whole lines, or an over-long piece of one)."""
        if not data:
            return
        text = data.decode("utf-8", errors="replace")
        clean = strip_controls(redact(text, self._environ)).encode("utf-8")
        with self._lock:
            if self.error is None:
                try:
                    self._to_log(clean)
                except OSError as exc:  # a full disk: keep draining the agent, say it after
                    self.error = exc
            self.total_bytes += len(clean)
            self._tail += clean
            if len(self._tail) > TAIL_BYTES * 2:
                del self._tail[: len(self._tail) - TAIL_BYTES]

    def _to_log(self, data: bytes) -> None:
        """Write while the log is under its cap; past it, keep only a tail to write at close."""
        if self._log_head_room:
            head = data[: self._log_head_room]
            self._log.write(head)
            self._log.flush()
            self._log_head_room -= len(head)
            data = data[len(head):]
        if data:
            self._log_tail += data
            self._cut_log_tail(LOG_TAIL_BYTES * 2)

    def _cut_log_tail(self, above: int) -> None:
        if len(self._log_tail) > above:
            drop = len(self._log_tail) - LOG_TAIL_BYTES
            self._cut_bytes += drop
            del self._log_tail[:drop]

    def write_text(self, text: str) -> None:
        self.write(text.encode("utf-8"))

    def pump(self, stream: IO[bytes]) -> None:
        """Copy ``stream`` until EOF, cutting at line ends so redaction sees whole lines."""
        carry = b""
        while True:
            chunk = stream.read1(_CHUNK) if hasattr(stream, "read1") else stream.read(_CHUNK)
            if not chunk:
                break
            carry += chunk
            cut = carry.rfind(b"\n") + 1
            if cut == 0 and len(carry) < _MAX_CARRY:
                continue
            if cut == 0:
                cut = len(carry)
            self.write(carry[:cut])
            carry = carry[cut:]
        self.write(carry)

    def tail(self) -> str:
        """The last :data:`TAIL_BYTES` of the output, decoded."""
        with self._lock:
            data = bytes(self._tail[-TAIL_BYTES:])
        return data.decode("utf-8", errors="replace")

    def close(self) -> None:
        with self._lock:
            self._cut_log_tail(LOG_TAIL_BYTES)
            if self._cut_bytes:
                kept = LOG_MAX_BYTES - LOG_TAIL_BYTES
                self._log.write(
                    f"\n[ralph-verify: {self._cut_bytes:,} bytes of agent output cut here; "
                    f"agent.log keeps the first {kept:,} and the last {len(self._log_tail):,} "
                    "bytes]\n".encode())
            self._log.write(bytes(self._log_tail))
            self._log_tail.clear()
            self._log.close()


class IdleWatch:
    """Is the agent idle: no output and no file change under ``root`` for ``timeout`` s? The
    files are walked only once the output has been quiet a while, at most every 30 s."""

    def __init__(self, root: Path, sink: OutputSink, timeout: float) -> None:
        self.root, self.sink, self.timeout = root, sink, timeout
        self.every = min(max(timeout / 10, 0.1), 30.0)
        now = time.monotonic()
        self.active = self.next_look = now
        self.output = sink.total_bytes
        self.files = files_state(root)

    def expired(self) -> bool:
        now = time.monotonic()
        if self.sink.total_bytes != self.output:
            self.output, self.active = self.sink.total_bytes, now
        if now < self.next_look or now - self.active < self.every:
            return False
        self.next_look = now + self.every
        files = files_state(self.root)
        if files != self.files:
            self.files, self.active = files, now
        return now - self.active >= self.timeout


def files_state(root: Path) -> tuple[int, int]:
    """The newest modification time (ns) under ``root`` and the number of entries."""
    newest = count = 0
    for folder, dirs, files in os.walk(root):
        if folder == str(root):
            dirs[:] = [d for d in dirs if d != ".ralph"]
        for name in (*dirs, *files):
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(folder, name)).st_mtime_ns)
                count += 1
    return newest, count


def run_agent_process(argv: str | Sequence[str], *, cwd: Path, env: Mapping[str, str],
                      sink: OutputSink, timeout: float, cancel: threading.Event,
                      stdin_path: Path | None = None, shell: bool = False,
                      idle_timeout: float = 0.0,
                      wrap: Sequence[str] = (), wrap_fds: Sequence[int] = ()) -> ProcessOutcome:
    """Run one process to its end, timeout, idle timeout or a cancel; raise
    ``FileNotFoundError``. stdin is a file, so an agent that never reads it cannot block;
    ``wrap`` is an argv prefix (the sandbox), ``wrap_fds`` the descriptors it is given."""
    if shell and os.name != "nt":  # what Popen's shell=True runs, to run under a prefix
        argv, shell = ["/bin/sh", "-c", argv if isinstance(argv, str) else " ".join(argv)], False
    if wrap:
        argv = [*wrap, *argv]
    kwargs = own_process_group()
    become_subreaper()  # orphans of the agent come back to us, to be ended
    child_env, mark = marked_env(env)
    if wrap_fds:
        kwargs["pass_fds"] = tuple(wrap_fds)
    report: tuple[int, int] | None = None  # the reaper's pipe: read end, write end
    if not shell and reaped(argv, cwd, child_env):
        report = os.pipe()
        argv = reaper_argv(list(argv), report[1])
        kwargs["pass_fds"] = (*wrap_fds, report[1])
    started = time.monotonic()
    outcome = ProcessOutcome(exit_code=None, duration_s=0.0)
    deadline = started + timeout
    proc: subprocess.Popen[bytes] | None = None
    watchdog: subprocess.Popen[bytes] | None = None
    reader: threading.Thread | None = None
    # A Ctrl-C or SIGTERM while the agent, its watchdog and its reader start waits (held) until
    # they are ours, then raises inside the kill-on-exit guard: raised inside Popen, it left the
    # agent running after its loop ended (and after a fleet stopped on its cost limit).
    try:
        try:
            with (stdin_path.open("rb") if stdin_path is not None
                  else contextlib.nullcontext(subprocess.DEVNULL)) as stdin, held():
                proc = subprocess.Popen(
                    argv if not shell or isinstance(argv, str) else " ".join(argv),
                    cwd=cwd, env=child_env, shell=shell, stdin=stdin, stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT, **kwargs,  # type: ignore[call-overload]  # kwargs differ per OS
                )
                if report is None:  # else the reaper ends the agent's processes if we die
                    watchdog = start_watchdog(proc.pid)
                reader = threading.Thread(target=sink.pump, args=(proc.stdout,), daemon=True,
                                          name="ralph-agent-output")
                reader.start()
        finally:
            if report is not None:
                os.close(report[1])  # the reaper holds its own copy
        idle = IdleWatch(cwd, sink, idle_timeout) if idle_timeout > 0 else None
        while proc.poll() is None:
            if cancel.is_set():
                outcome.cancelled = True
                break
            if time.monotonic() >= deadline:
                outcome.timed_out = True
                break
            if idle is not None and idle.expired():
                outcome.idle = True
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=_POLL_S)
    finally:
        # Always: kill the whole group (what is left of it after a normal exit,
        # too: an agent's background children must not outlive its turn).
        if proc is not None:
            kill_process_group(proc, mark)
        if watchdog is not None:
            stop_watchdog(watchdog)
        if reader is not None and reader.is_alive():
            reader.join(timeout=10)
        if proc is not None and proc.stdout is not None and (
                reader is None or not reader.is_alive()):  # else a survivor holds the pipe:
            proc.stdout.close()  # closing it would hang on the reader's lock
        if report is not None:
            outcome.survivors = read_survivors(report[0])
    assert proc is not None  # else Popen raised
    outcome.exit_code = proc.returncode
    outcome.duration_s = time.monotonic() - started
    for line in outcome.survivors:
        sink.write_text(f"ralph-verify: a process the agent started could not be ended: "
                        f"{line}\n")
    if sink.error is not None:
        raise sink.error
    return outcome
