"""Stopping a run cleanly: Ctrl-C, SIGTERM (``ralph-verify cancel``), SIGHUP (a closed
terminal) and the cancel file. A signal cancels the run (the agent is killed whole) and
interrupts whatever the main thread waits for; the state is then written as ``cancelled``."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

_POLL_S = 0.2
#: The interrupt a signal raised while :func:`held` was active, raised when it ends.
_held: list[KeyboardInterrupt | None] = []


@contextmanager
def cancel_on_signals(callback: Callable[[str], bool]) -> Iterator[None]:
    """While inside, SIGINT/SIGTERM/SIGHUP call ``callback(name)``; a true answer
    interrupts."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}
    if hasattr(signal, "SIGHUP"):  # a closed terminal: stop as for SIGTERM
        names[signal.SIGHUP] = "SIGHUP"
    if sys.platform == "win32":  # pragma: no cover - Windows only
        names[signal.SIGBREAK] = "Ctrl-Break"  # type: ignore[attr-defined,unused-ignore]  # Windows only

    received = []

    def handler(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        name = names.get(signal.Signals(signum), str(signum))
        if callback(name):
            if _held:
                _held[-1] = KeyboardInterrupt(name)
                return
            raise KeyboardInterrupt(name)

    saved = {sig: signal.signal(sig, handler) for sig in names}
    try:
        yield
    finally:
        for sig, old in saved.items():
            # Once stopping, more of the same (five quick Ctrl-C's) must not break the last
            # words (summary, exit code 130): ignored, also while the interpreter shuts down
            # (it puts back the default action of signals that have a Python handler).
            signal.signal(sig, signal.SIG_IGN if received else old)


@contextmanager
def held() -> Iterator[None]:
    """While inside, the interrupt of :func:`cancel_on_signals` waits, and is raised on
    leaving: ``Popen`` interrupted after its fork leaves the child running with no one holding
    its pid, so start a child inside, within the ``try`` whose ``finally`` ends it."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers run on the main thread only
        return
    _held.append(None)
    try:
        yield
    finally:
        interrupt = _held.pop()
        if interrupt is not None:
            raise interrupt


@contextmanager
def every(interval: float, tick: Callable[[], bool | None], name: str) -> Iterator[None]:
    """While inside, a thread calls ``tick()`` every ``interval`` seconds until it returns
    ``True`` (the cancel file's watcher, pytest's progress)."""
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(interval):
            if tick() is True:
                return

    thread = threading.Thread(target=watch, daemon=True, name=name)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=2)


@contextmanager
def watch_file(path: Path, callback: Callable[[], bool | None]) -> Iterator[None]:
    """While inside, call ``callback()`` once when ``path`` appears (again each time it
    appears while the callback returns False: it removed a file it did not honour)."""
    def tick() -> bool:
        return path.exists() and callback() is not False

    with every(_POLL_S, tick, "ralph-cancel-watch"):
        yield
