"""The guard's refusals, one line each in ``.ralph/guard.jsonl``, counted by rule: so a user
sees in the morning what the agent tried (``status``, ``--json``, the HTML report).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from ralph_verify.redact import redact, redact_credentials, redact_data
from ralph_verify.state_files import now_iso

GUARD_LOG = "guard.jsonl"


def record_refusal(root: Path, record: dict[str, Any]) -> None:
    """One line per refusal in ``.ralph/guard.jsonl`` (``status`` counts them). The refused
    command often holds the very credential it would leak (``curl -H 'Authorization: Bearer
    ...'``): whatever looks like one is redacted before it is written."""
    record = {"time": now_iso(), **_without_credentials(record)}
    folder = root / ".ralph"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / GUARD_LOG).open("a", encoding="utf-8") as handle:
        handle.write(redact(json.dumps(redact_data(record))) + "\n")


def _without_credentials(value: Any) -> Any:
    if isinstance(value, str):
        return redact_credentials(value)
    if isinstance(value, dict):
        return {key: _without_credentials(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_without_credentials(item) for item in value]
    return value


def refusal_counts(root: Path, since: str | None = None) -> dict[str, int]:
    """Refusals by rule, from ``.ralph/guard.jsonl`` (those at or after ``since``, ISO time)."""
    counts: dict[str, int] = {}
    try:
        with (root / ".ralph" / GUARD_LOG).open(encoding="utf-8") as handle:
            for line in handle:
                with contextlib.suppress(ValueError, AttributeError):
                    record = json.loads(line)
                    if since and str(record.get("time", "")) < since:
                        continue
                    rule = str(record.get("rule"))
                    counts[rule] = counts.get(rule, 0) + 1
    except OSError:
        pass
    return counts


def safety_stats(root: Path, since: str | None = None) -> dict[str, Any]:
    """What the guard refused during a session: ``{"refused": N, "by_rule": {...}}``, for
    ``status``, ``--json`` and the HTML report, so the user sees what the agent tried."""
    counts = refusal_counts(root, since)
    return {"refused": sum(counts.values()), "by_rule": dict(sorted(counts.items()))}
