"""A thread that calls a function at an interval while a block runs, and stops with it (the
cancel file's watcher, pytest's progress)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def every(interval: float, tick: Callable[[], bool | None], name: str) -> Iterator[None]:
    """While inside, call ``tick()`` every ``interval`` seconds until it returns ``True``."""
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
