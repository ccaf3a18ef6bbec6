"""Rate limits and outages: the model service turned the run away, the agent did not fail.
Adapters only classify; :mod:`ralph_verify.agents.retry` decides."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone

RATE_LIMIT = "rate-limit"
OUTAGE = "outage"
#: ``cmd:`` agents: the exit status that means "temporarily unavailable, try later".
EX_TEMPFAIL = 75
RETRY_AFTER_LINE = re.compile(r"^RALPH-RETRY-AFTER:\s*(?P<when>\S+)\s*$", re.MULTILINE)

_RATE = re.compile(
    r"\b429\b|rate[ _-]?limit|too many requests|usage limit|quota|hit your limit|"
    r"limit reached|RateLimitError", re.IGNORECASE)
_OUTAGE = re.compile(
    r"\b(?:5\d\d)\b|overloaded|internal server error|service unavailable|bad gateway|"
    r"gateway timeout|connection refused|ECONNREFUSED|ECONNRESET|connection (?:error|reset)|"
    r"APIConnectionError|InternalServerError|ServiceUnavailableError|error sending request|"
    r"stream disconnected|network error|high demand|temporar(?:y|ily) (?:error|unavailable)",
    re.IGNORECASE)
#: "try again in 2 hours 5 minutes", "retry after 30 seconds", "resets in 45s"
_IN = re.compile(r"(?:try again|retry|resets?)(?: after| in)\s+(?P<span>(?:\d+(?:\.\d+)?\s*"
                 r"(?:days?|d|hours?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,and]*)+)",
                 re.IGNORECASE)
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|s)", re.IGNORECASE)
_UNIT = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
#: Claude Code's usage-limit message ends ``|<epoch seconds>``.
_EPOCH = re.compile(r"limit reached\|(?P<epoch>\d{10})")
_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?")


@dataclass(frozen=True)
class Unavailable:
    """Why the service turned the run away; ``retry_after_s``: the reset, when said."""

    kind: str  # RATE_LIMIT or OUTAGE
    message: str
    retry_after_s: float | None = None


def classify(message: str | None) -> Unavailable | None:
    """A CLI's reported error as a rate limit or an outage, or ``None`` (a real failure)."""
    if not message:
        return None
    text = " ".join(message.split())
    if _RATE.search(text):
        return Unavailable(RATE_LIMIT, _short(text), reset_in(text))
    if _OUTAGE.search(text):
        return Unavailable(OUTAGE, _short(text), reset_in(text))
    return None


def reset_in(text: str, now: float | None = None) -> float | None:
    """Seconds until the reset a message names ("try again in 2h", ``|1767225600``, ISO)."""
    now = time.time() if now is None else now
    epoch = _EPOCH.search(text)
    if epoch:
        return max(float(epoch.group("epoch")) - now, 0.0)
    span = _IN.search(text)
    if span:
        return sum(float(n) * _UNIT[u[0].lower()] for n, u in _PART.findall(span.group("span")))
    iso = _ISO.search(text)
    if iso and re.search(r"reset|until|again|after", text, re.IGNORECASE):
        return _until(iso.group(0), now)
    return None


def retry_after(value: str, now: float | None = None) -> float | None:
    """``RALPH-RETRY-AFTER``'s value: seconds, or an ISO 8601 time (UTC when no zone)."""
    now = time.time() if now is None else now
    try:
        return max(float(value), 0.0)
    except ValueError:
        return _until(value, now)


def _until(iso: str, now: float) -> float | None:
    try:
        when = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(when.timestamp() - now, 0.0)


def from_command(exit_code: int | None, output: str) -> Unavailable | None:
    """The ``cmd:`` protocol: exit 75, with an optional ``RALPH-RETRY-AFTER:`` line."""
    if exit_code != EX_TEMPFAIL:
        return None
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    said = [line for line in lines if not RETRY_AFTER_LINE.match(line)]
    message = _short(said[-1]) if said else f"the agent command exited {EX_TEMPFAIL}"
    said_when = [m.group("when") for m in RETRY_AFTER_LINE.finditer(output)]
    if not said_when:
        return Unavailable(OUTAGE, message)
    return Unavailable(RATE_LIMIT, message, retry_after(said_when[-1]))


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
