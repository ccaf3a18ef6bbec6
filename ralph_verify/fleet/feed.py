"""The jobs of a fleet whose tasks depend on each other, fed to the executor as they become
ready (once their dependencies are merged): an iterable that blocks until the next job and
ends once the coordinator closes it; ``take`` polls it between other work."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from ralph_verify.fleet.job import LoopJob


class JobFeed:
    """Jobs handed to the executor as they become ready; ``planned`` is one per task."""

    def __init__(self, planned: Sequence[LoopJob]) -> None:
        self.planned = list(planned)
        self._ready: deque[LoopJob] = deque()
        self._cond = threading.Condition()
        self._closed = False

    def put(self, job: LoopJob) -> None:
        with self._cond:
            self._ready.append(job)
            self._cond.notify_all()

    def close(self) -> None:
        """No more jobs will come (those already put are still taken)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def exhausted(self) -> bool:
        """Closed, and every job put was taken."""
        with self._cond:
            return self._closed and not self._ready

    def take(self, timeout: float) -> LoopJob | None:
        """The next ready job, waiting up to ``timeout`` seconds; ``None`` if none came."""
        with self._cond:
            if not self._ready and not self._closed:
                self._cond.wait(timeout)
            return self._ready.popleft() if self._ready else None

    def __iter__(self) -> Iterator[LoopJob]:
        while True:
            job = self.take(0.5)
            if job is not None:
                yield job
            elif self.exhausted:
                return

    def __len__(self) -> int:
        return len(self.planned)


class Waves:
    """An executor that takes lists only (no ``feeds = True``), given a feed: each call of
    its ``run`` gets the tasks ready at that moment; the next wave starts once it returned."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.mode = inner, inner.mode

    def run(self, jobs: JobFeed, fleet: Any) -> None:
        while not fleet.cancelled.is_set():
            first = jobs.take(0.5)
            if first is None:
                if jobs.exhausted:
                    return
                continue
            wave = [first]
            while (more := jobs.take(0)) is not None:
                wave.append(more)
            self.inner.run(wave, fleet)


def feeding(executor: Any) -> Any:
    """The executor as it takes a feed: itself, or in :class:`Waves`."""
    return executor if getattr(executor, "feeds", False) else Waves(executor)
