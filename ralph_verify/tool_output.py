"""Small helpers for checks that turn a tool's output into failures."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ralph_verify.checks import Failure
from ralph_verify.redact import cut, cut_tail, redact
from ralph_verify.terminal_text import strip_controls


def relative_path(path: str, root: Path) -> str:
    """``path`` relative to ``root`` with forward slashes; unchanged if outside it."""
    candidate = Path(path)
    if candidate.is_absolute():
        for base in (root, root.resolve()):
            try:
                return candidate.relative_to(base).as_posix()
            except ValueError:
                continue
    return candidate.as_posix()


def one_line(text: str, limit: int = 300) -> str:
    """``text`` redacted, on one line, whitespace folded, cut with ``...`` past ``limit``."""
    # Fold only what can be shown (a 100 MB message costs no more than its start); the
    # start is redacted before anything is cut from it.
    head = redact(text[: limit * 4 + 4096])
    return cut(" ".join(strip_controls(head).split()), limit)


def clip_tail(text: str, chars: int = 2000) -> str:
    """The end of ``text`` redacted, at most ``chars`` characters (where tools print what
    matters)."""
    return cut_tail(text, chars)


def count_summary(failures: Sequence[Failure], noun: str) -> str:
    """``5 errors (3 F401, 2 E501)``: the total, then the most frequent codes first."""
    counts = Counter(failure.code or "?" for failure in failures)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    parts = [f"{count} {code}" for code, count in ranked[:5]]
    if len(ranked) > 5:
        parts.append(f"{len(ranked) - 5} more codes")
    total = len(failures)
    return f"{total} {noun}{'' if total == 1 else 's'}" + (f" ({', '.join(parts)})"
                                                           if parts else "")
