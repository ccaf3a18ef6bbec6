"""Failure fingerprints: the same problem, the same id across runs (times, ids, temporary paths
and numbers normalised away), so feedback folds duplicates and the breaker sees repeats."""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable

_DIGIT = re.compile(r"\d")


def _holding(*needles: str) -> Callable[[str], bool]:
    """A test that a text holds every one of ``needles``."""
    return lambda text: all(needle in text for needle in needles)


def _slash(text: str) -> bool:
    return "/" in text or "\\" in text


def _digit(text: str) -> bool:
    return _DIGIT.search(text) is not None


#: Each rule: its pattern, what replaces a match, and what the pattern cannot match without
#: (a text without it skips the pattern: most messages hold no time, path or number, and
#: each pattern tried at every position of a message cost some 20,000 instructions).
_RULES: tuple[tuple[re.Pattern[str], str, Callable[[str], bool]], ...] = (
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
                r"(?:Z|[+-]\d{2}:?\d{2})?"), "<time>", _holding(":", "-")),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<time>", _holding(":")),
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
     "<uuid>", _holding("-")),
    # Temporary directories before paths, so they fold whatever follows them.
    (re.compile(r"(?:[A-Za-z]:)?[\\/](?:tmp|var[\\/]folders|private[\\/]var|Temp)"
                r"(?:[\\/][^\s'\":,)\]]*)?", re.IGNORECASE), "<tmp>", _slash),
    (re.compile(r"\bpytest-of-[^\s'\":,)\]]+"), "<tmp>", _holding("pytest-of")),
    (re.compile(r"0x[0-9a-fA-F]+"), "<addr>", _holding("0x")),
    # A path starts where a word does: without the look-behind, every position of a long
    # word would be tried as a start and scanned to its end (quadratic time).
    (re.compile(r"(?<![\w.-])(?:[A-Za-z]:)?(?:[\w.-]*[\\/])+[\w.-]+"), "<path>", _slash),
    (re.compile(r"\b(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*[0-9])[0-9a-fA-F]{8,}\b"), "<hex>",
     _digit),
    (re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"), "N", _digit),
)
_SPACE = re.compile(r"\s+")
#: Only the start of a message is normalised: what identifies a problem comes first, and
#: a 100,000-character message must cost no more than a short one.
MAX_CHARS = 2000


def normalise(message: str) -> str:
    """Replace the parts of ``message`` that vary between runs with placeholders."""
    text = message[:MAX_CHARS]
    for pattern, replacement, needed in _RULES:
        if needed(text):
            text = pattern.sub(replacement, text)
    return _SPACE.sub(" ", text).strip()


@functools.lru_cache(maxsize=4096)
def fingerprint(check: str, message: str, code: str | None = None) -> str:
    """A short stable id for a failure of ``check`` with this message and rule code
    (remembered: a check's failures repeat the same few messages)."""
    key = "\x1f".join((check, code or "", normalise(message)))
    return hashlib.sha1(key.encode("utf-8"), usedforsecurity=False).hexdigest()[:12]


def root_cause_fingerprint(check: str, cause: str, code: str | None = None) -> str:
    """A fingerprint from where a failure starts (``path:function:source line``) and its
    exception type, whatever the message says: 150 parametrized cases of one bug fold."""
    key = "\x1f".join((check, "cause", code or "", cause))
    return hashlib.sha1(key.encode("utf-8"), usedforsecurity=False).hexdigest()[:12]
