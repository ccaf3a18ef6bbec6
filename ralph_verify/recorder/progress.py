"""How far a running pytest has got (the live line's ``pytest 120/900``), read from the
recorder's files while it writes them: only the bytes added since the last look."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ralph_verify.proc.signals import every
from ralph_verify.recorder.sources import record_files

#: How often the files are looked at (the live line repaints twice a second).
INTERVAL_S = 0.5

ProgressCallback = Callable[[int, "int | None"], None]


class RecordProgress:
    """Tests finished and collected so far, from a recorder's folder, read incrementally."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.done = 0
        self.total: int | None = None
        #: Per file, where its first line not yet read whole starts.
        self._offsets: dict[Path, int] = {}

    def poll(self) -> tuple[int, int | None]:
        """Read what was appended since the last call; (finished, collected or ``None``)."""
        for path in record_files(self.folder):
            start = self._offsets.get(path, 0)
            try:
                with path.open("rb") as handle:
                    handle.seek(start)
                    chunk = handle.read()
            except OSError:
                continue
            whole = chunk[:chunk.rfind(b"\n") + 1]  # a line still being written: next time
            self._offsets[path] = start + len(whole)
            for line in whole.split(b"\n")[:-1]:
                self._count(line)
        return self.done, self.total

    def _count(self, line: bytes) -> None:
        # Substring tests, not a JSON parse per line: this runs beside pytest on the same CPUs.
        if line.startswith(b'{"k": "r"'):
            if b'"when": "call"' in line or (b'"when": "setup"' in line
                                               and b'"outcome": "passed"' not in line):
                self.done += 1
        elif line.startswith(b'{"k": "hooks"') and b'"collected"' in line:
            try:
                collected = json.loads(line).get("collected")
            except ValueError:
                return
            if isinstance(collected, int):
                self.total = max(self.total or 0, collected)


@contextmanager
def watch_progress(folder: Path, report: ProgressCallback | None) -> Iterator[None]:
    """Call ``report(finished, collected)`` twice a second while the block runs."""
    if report is None:
        yield
        return
    progress = RecordProgress(folder)

    def tick() -> None:
        report(*progress.poll())  # unchanged figures too: a listener expires stale ones

    with every(INTERVAL_S, tick, "ralph-pytest-progress"):
        yield
