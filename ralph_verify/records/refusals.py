"""The guard's refusals, one line each in ``.ralph/guard.jsonl`` (:class:`RefusalRecord`),
counted by rule (:class:`Safety`): so a user sees in the morning what the agent tried
(``status``, ``--json``, the HTML report).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from ralph_verify.records.files import append_line
from ralph_verify.redact import redact_credentials
from ralph_verify.state_files import now_iso

GUARD_LOG = "guard.jsonl"


@dataclass
class RefusalRecord:
    """One line of ``guard.jsonl``: a tool call the guard refused (or asked the user about)."""

    rule: str
    reason: str = ""
    #: ``deny`` or ``ask``.
    decision: str = "deny"
    agent: str = ""
    session_id: str | None = None
    tool: str = ""
    #: The call's command, path or URL, cut short.
    input: dict[str, str] = field(default_factory=dict)
    time: str = ""


@dataclass
class Safety:
    """What the guard refused during a session, by rule (``safety`` in ``--json``)."""

    refused: int = 0
    by_rule: dict[str, int] = field(default_factory=dict)


def record_refusal(root: Path, refusal: RefusalRecord) -> None:
    """One line per refusal in ``.ralph/guard.jsonl``, credentials redacted (a refused command
    often holds the very one it would leak)."""
    append_line(root / ".ralph" / GUARD_LOG, replace(
        refusal, time=now_iso(), reason=redact_credentials(refusal.reason),
        session_id=refusal.session_id and redact_credentials(refusal.session_id),
        input={key: redact_credentials(text) for key, text in refusal.input.items()}))


def safety_stats(root: Path, since: str | None = None) -> Safety:
    """Refusals by rule, from ``.ralph/guard.jsonl`` (those at or after ``since``, ISO time);
    a line that is not a refusal is not counted."""
    counts: dict[str, int] = {}
    with contextlib.suppress(OSError), (root / ".ralph" / GUARD_LOG).open(
            encoding="utf-8") as handle:
        for line in handle:
            with contextlib.suppress(ValueError, AttributeError):
                entry = json.loads(line)
                if since and str(entry.get("time", "")) < since:
                    continue
                rule = str(entry.get("rule"))
                counts[rule] = counts.get(rule, 0) + 1
    return Safety(sum(counts.values()), dict(sorted(counts.items())))
