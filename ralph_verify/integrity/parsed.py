"""One parse of a file's text, shared by every integrity rule that reads it.

The rules of :mod:`ralph_verify.integrity` each read a Python file's syntax tree (test
functions, markers, test bodies, literals, exits, stand-ins, assertions...). Parsing is
most of their cost, so :func:`tree` parses a text once and hands the same tree to every
rule of the same picture; rules only read it. Files unchanged since the baseline are not
read at all (their findings are reused by content hash: see
:func:`ralph_verify.integrity.picture.take`), so this holds only the few files an
iteration changed.
"""

from __future__ import annotations

import ast
import hashlib

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
