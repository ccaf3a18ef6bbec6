"""Small helpers for checks that turn a tool's output into failures."""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ralph_verify.checks.api import Failure
from ralph_verify.redact import cut, cut_tail, redact
from ralph_verify.terminal_text import strip_controls


def relative_path(path: str, root: Path) -> str:
    """``path`` relative to ``root`` with forward slashes; unchanged if outside it."""
    prefix = _prefix(root)
    if prefix and path.startswith(prefix):  # the common case without pathlib's parsing (~10 us)
        rest = path[len(prefix):]
        if rest and "/" not in (rest[0], rest[-1]) and "//" not in rest and "/." not in f"/{rest}":
            return rest
    candidate = Path(path)
    if candidate.is_absolute():
        for base in (root, _resolved(root)):
            try:
                return candidate.relative_to(base).as_posix()
            except ValueError:
                continue
    return candidate.as_posix()


@functools.lru_cache(maxsize=64)
def _prefix(root: Path) -> str:
    """``root`` as the start of the paths under it (not absolute: no shortcut taken)."""
    text = str(root).rstrip("/") + "/"
    return text if os.sep == "/" and text.startswith("/") else ""


@functools.lru_cache(maxsize=64)
def _resolved(root: Path) -> Path:
    return root.resolve()  # once per root, not once per failure of 100,000


def one_line(text: str, limit: int = 300) -> str:
    """``text`` redacted, on one line, whitespace folded, cut with ``...`` past ``limit``."""
    # Fold only what can be shown; redact before anything is cut.
    head = redact(text[: limit * 4 + 4096])
    return cut(" ".join(strip_controls(head).split()), limit)


def clip_tail(text: str, chars: int = 2000) -> str:
    """The end of ``text`` redacted, at most ``chars`` characters (where tools print what
    matters)."""
    return cut_tail(text, chars)


def count_summary(failures: Sequence[Failure], noun: str) -> str:
    """``5 errors (3 F401, 2 E501)``: the total, then the most frequent codes first."""
    return count_summary_of(Counter(failure.code or "?" for failure in failures), noun)


def count_summary_of(codes: Mapping[str, int], noun: str) -> str:
    """``5 errors (3 F401, 2 E501)`` from counts by code (when not every failure is kept)."""
    ranked = sorted(codes.items(), key=lambda item: (-item[1], item[0]))
    parts = [f"{count} {code}" for code, count in ranked[:5]]
    if len(ranked) > 5:
        parts.append(f"{len(ranked) - 5} more codes")
    total = sum(codes.values())
    return f"{total} {noun}{'' if total == 1 else 's'}" + (f" ({', '.join(parts)})"
                                                           if parts else "")


def head(text: str, chars: int = 300) -> str:
    """The start of ``text`` redacted, at most ``chars`` characters: what a tool printed
    instead of its machine format is shown from its first bytes."""
    return cut(text, chars)


def load_json(text: str, what: str, fmt: str) -> Any:
    """``text`` as JSON, or :class:`ValueError` saying why not, with its first bytes (never a
    :class:`RecursionError` on deep nesting)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        problem = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    except RecursionError:
        problem = "nested too deeply"
    except ValueError as exc:  # an integer too long to read
        problem = str(exc).split(";")[0]
    raise ValueError(f"{what} output is not readable JSON ({problem}): truncated, or not "
                     f"{fmt}; it starts {head(text, 120)!r}")
