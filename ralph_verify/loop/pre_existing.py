"""Failures already there at the loop's baseline are marked pre-existing, even after they moved.

The agent's edits shift lines, so a failure at ``path:line`` matches an old one by file and
fingerprint, then by its source line's text; other failures by fingerprint and location.
Matching counts: two identical old errors and three now leave one new."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection

    from ralph_verify.checks.api import Failure
    from ralph_verify.checks.verification import Verification

#: Source lines are read from files up to this size (a minified file is not worth it).
_MAX_FILE_BYTES = 2_000_000


def placed(failure: Failure) -> bool:
    """Whether ``failure`` is at a line of a file (``path:line[:col]``), not a test id."""
    if not failure.path or failure.line is None or not failure.location:
        return False
    head = f"{failure.path}:{failure.line}"
    return failure.location == head or failure.location.startswith(head + ":")


def add_sources(verification: Verification) -> None:
    """Record the source line of every placed failure, while the tree is the one checked."""
    cache: dict[str, list[str] | None] = {}
    for result in verification.results:
        for index, failure in enumerate(result.failures):
            if not placed(failure) or failure.source:
                continue
            assert failure.path is not None and failure.line is not None
            if failure.path not in cache:
                cache[failure.path] = _lines(verification.root / failure.path)
            lines = cache[failure.path]
            if lines is not None and 0 < failure.line <= len(lines):
                text = lines[failure.line - 1].strip()
                result.failures[index] = replace(failure, source=text)


def _lines(path: Path) -> list[str] | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_FILE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


def mark_pre_existing(verification: Verification, baseline: Verification,
                      fresh: Collection[str] = ()) -> bool:
    """Mark the failures of ``verification`` already in ``baseline``; whether any was.
    Checks named in ``fresh`` judge each iteration anew (``Check.has_baseline`` false)."""
    marked = False
    for result in verification.results:
        if result.name in fresh:
            continue
        old = [f for r in baseline.results if r.name == result.name for f in r.failures]
        if not old or not result.failures:
            continue
        for index in _matched(result.failures, old):
            result.failures[index] = replace(result.failures[index], pre_existing=True)
            marked = True
    return marked


def _matched(new: list[Failure], old: list[Failure]) -> set[int]:
    """Indexes of ``new`` that have a counterpart in ``old``, each old failure used once.

    Three passes: the same place (and the same source text, when both are known);
    then, in the same file, the same source text; then the nearest line.
    """
    unused = set(range(len(old)))
    matched: set[int] = set()

    def pair(index: int, candidates: list[int]) -> None:
        for j in candidates:
            if j in unused:
                unused.discard(j)
                matched.add(index)
                return

    at: dict[tuple[str, str | None], list[int]] = defaultdict(list)
    text_in_file: dict[tuple[str, str | None, str], list[int]] = defaultdict(list)
    for j, failure in enumerate(old):
        at[(failure.fingerprint, failure.location)].append(j)
        if placed(failure) and failure.source:
            text_in_file[(failure.fingerprint, failure.path, failure.source)].append(j)
    for index, failure in enumerate(new):
        pair(index, [j for j in at.get((failure.fingerprint, failure.location), [])
                     if not (failure.source and old[j].source)
                     or failure.source == old[j].source])
    for index, failure in enumerate(new):
        if index not in matched and placed(failure) and failure.source:
            pair(index, text_in_file.get((failure.fingerprint, failure.path, failure.source), []))
    # What is left in a file: as many as there were old ones are old, those nearest the old lines.
    waiting: dict[tuple[str, str | None], list[int]] = defaultdict(list)
    for index, failure in enumerate(new):
        if index not in matched and placed(failure):
            waiting[(failure.fingerprint, failure.path)].append(index)
    for j in sorted(unused, key=lambda j: old[j].line or 0):
        failure = old[j]
        candidates = waiting.get((failure.fingerprint, failure.path)) if placed(failure) else None
        if candidates:
            nearest = min(candidates, key=lambda i: abs((new[i].line or 0) - (failure.line or 0)))
            candidates.remove(nearest)
            matched.add(nearest)
    return matched
