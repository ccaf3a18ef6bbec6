"""What a person watching ``ralph-verify run`` sees: on a terminal one live status line under the
permanent lines, anywhere else plain lines, one per event (``plugins/terminal.py`` owns it)."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ralph_verify.config import Config


def output_stream(config: Config) -> TextIO:
    """stdout, or stderr when stdout carries ``--json``."""
    return sys.stderr if config.get("json") == "-" else sys.stdout


def duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


#: Each status a check may end in, in its own word, in the order a tally names them.
_WORDS = {"failed": "failed", "error": "errored", "skipped": "skipped"}


def tally(statuses: Sequence[str], noun: str = " checks") -> str:
    """``4/5 checks passed, 1 skipped``: what failed, errored or was skipped is said in its
    own word, never counted as passed."""
    counts = Counter(statuses)
    text = f"{counts['passed']}/{len(statuses)}{noun} passed"
    return text + "".join(f", {counts[status]} {word}" for status, word in _WORDS.items()
                          if counts[status])


class Display:
    """Permanent lines plus, on a TTY, a status line kept at the bottom."""

    def __init__(self, stream: TextIO, *, quiet: bool = False, live: bool | None = None) -> None:
        self.stream = stream
        self.quiet = quiet
        if live is None:
            live = (hasattr(stream, "isatty") and stream.isatty()
                    and os.environ.get("TERM") != "dumb")
        self.live = live and not quiet
        self.started = time.monotonic()
        self.iteration = 0
        self.max_iterations = 0
        self.checks = ""
        #: ``check``'s live line names itself instead of an iteration.
        self.where = ""
        #: The checks running now, in the order they started (the live line lists them).
        self.running: list[str] = []
        #: How far running tools have got (``pytest 120/900``), by tool, while they run.
        self.tools: dict[str, tuple[str, float]] = {}
        self._phase = "starting"
        self._phase_started = time.monotonic()
        # Re-entrant: a signal handler (Ctrl-C) may update the phase while the main thread
        # is inside line().
        self._lock = threading.RLock()
        self._shown = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.live and self._thread is None:
            self._thread = threading.Thread(target=self._tick, daemon=True,
                                            name="ralph-status-line")
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        with self._lock:
            self._clear()

    def line(self, text: str) -> None:
        """A permanent line (shown unless ``--quiet``)."""
        if self.quiet:
            return
        with self._lock:
            self._clear()
            print(text, file=self.stream, flush=True)
            self._paint()

    def phase(self, text: str) -> None:
        """What the loop is doing now (only the live status line shows it)."""
        with self._lock:
            self._phase = text
            self._phase_started = time.monotonic()
            self._paint()

    def status_text(self) -> str:
        elapsed = duration(time.monotonic() - self.started)
        in_phase = duration(time.monotonic() - self._phase_started)
        where = self.where or (f"iteration {self.iteration}/{self.max_iterations}"
                               if self.iteration else "baseline")
        checks = f" · checks {self.checks}" if self.checks else ""
        running = f" · running {', '.join(self.running)}" if self.running else ""
        now = time.monotonic()
        tools = [f"{tool} {at}" for tool, (at, when) in self.tools.items() if now - when < 1.5]
        if self.running and tools:  # a figure not repeated lately is a tool that ended
            running += f" ({', '.join(tools)})"
        if self.where:
            return f"[ralph] {where} · {elapsed}{running}"
        return f"[ralph] {where} · {elapsed} · {self._phase} ({in_phase}){checks}{running}"

    def check_started(self, name: str) -> None:
        with self._lock:
            self.running.append(name)
            self._paint()

    def check_done(self, name: str) -> None:
        with self._lock:
            if name in self.running:
                self.running.remove(name)
            if not self.running:
                self.tools.clear()

    def progress(self, tool: str, done: int, total: int | None) -> None:
        """A running tool's progress: ``pytest 120/900`` (``120`` before collection ends)."""
        with self._lock:
            self.tools[tool] = (f"{done}/{total}" if total is not None else str(done),
                                time.monotonic())
            self._paint()

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            with self._lock:
                self._paint()

    def _paint(self) -> None:
        if not self.live:
            return
        try:
            width = os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            width = 0
        width = width if width >= 40 else 120  # 0: a terminal that does not say its size
        self.stream.write("\r\x1b[2K" + self.status_text()[: width - 1])
        self.stream.flush()
        self._shown = True

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._shown = False
