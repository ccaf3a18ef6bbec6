"""One parse of a file's text, shared by every integrity rule that reads it (parsing is
most of their cost)."""

from __future__ import annotations

import ast
import functools


@functools.lru_cache(maxsize=64)  # the files of one picture that are analysed
def tree(text: str) -> ast.Module | None:
    """``ast.parse(text)``, ``None`` when it does not parse; the same tree for the same text
    while it is kept (never mutate it)."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
