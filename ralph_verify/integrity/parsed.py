"""One parse of a file's text, shared by every integrity rule that reads it.

The rules of :mod:`ralph_verify.integrity` each read a Python file's syntax tree (test
functions, markers, test bodies, literals, exits, stand-ins, assertions...). Parsing is
most of their cost, so :func:`tree` parses a text once and hands the same tree to every
rule of the same picture; rules only read it. Files unchanged since the baseline are not
read at all (their findings are reused by content hash: see
:func:`ralph_verify.integrity.baseline.take`), so this holds only the few files an
iteration changed.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

#: Trees kept, by the text's hash (the files of one picture that are analysed).
_KEPT = 64
_TREES: dict[str, ast.Module | None] = {}


def key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"),
                        usedforsecurity=False).hexdigest()


def tree(text: str) -> ast.Module | None:
    """``ast.parse(text)``, ``None`` when it does not parse; the same tree for the same text
    while it is kept (never mutate it)."""
    digest = key(text)
    if digest in _TREES:
        return _TREES[digest]
    try:
        parsed: ast.Module | None = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        parsed = None
    if len(_TREES) >= _KEPT:
        del _TREES[next(iter(_TREES))]
    _TREES[digest] = parsed
    return parsed


class Findings(Protocol):
    """A file's findings, with the hash of the content they were found in."""

    sha: str


F = TypeVar("F", bound=Findings)

#: Findings per file computed by this process, by the file's path, hash and what else they
#: depend on: a loop's later iterations re-read the files changed since the baseline without
#: analysing them again (callers never mutate them).
_FINDINGS: dict[tuple[object, ...], Any] = {}
_FINDINGS_KEPT = 4_000


def by_content(root: Path, files: Sequence[str], kept: Mapping[str, F],
               analyse: Callable[[str, str, str, F | None], F],
               extra: tuple[object, ...] = ()) -> dict[str, F]:
    """Per Python file of ``files``: ``analyse(rel, text, sha, kept_entry)``, taken from
    ``kept`` (the baseline's entries) for every file whose hash did not change, and from
    this process's memory for one analysed already (``extra``: what else the findings
    depend on); only the others are decoded and analysed."""
    found: dict[str, F] = {}
    for rel in files:
        if not rel.endswith((".py", ".pyi")):
            continue
        try:
            data = (root / rel).read_bytes()
        except OSError:
            continue
        digest = hashlib.sha256(data).hexdigest()[:16]
        old = kept.get(rel)
        if old is not None and old.sha == digest:
            found[rel] = old
            continue
        memo = (analyse.__qualname__, rel, digest, *extra)
        if memo in _FINDINGS:  # changed since the baseline, analysed already
            found[rel] = _FINDINGS[memo]
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        found[rel] = analyse(rel, text, digest, old)
        if len(_FINDINGS) >= _FINDINGS_KEPT:
            _FINDINGS.clear()
        _FINDINGS[memo] = found[rel]
    return found
