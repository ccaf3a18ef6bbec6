"""Copilot CLI's ``agentStop`` hook input, read as the other agents' Stop hook input: the
agent's final text, which the input lacks, comes from the transcript (``events.jsonl``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: Blocked stops in a row Copilot honours per prompt (1.0.102, tool calls between them or
#: not): it ignores the next block and ends the turn.
COPILOT_BLOCK_CAP = 8
#: How much of the transcript's end is read for the final text (a long session's file grows).
TAIL_BYTES = 4 * 1024 * 1024


def stop_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` with the keys the Stop hook reads: ``session_id``, ``transcript_path``
    and ``last_assistant_message`` (from the transcript)."""
    mapped = dict(payload)
    if "session_id" not in mapped and payload.get("sessionId"):
        mapped["session_id"] = str(payload["sessionId"])
    transcript = payload.get("transcriptPath")
    if "transcript_path" not in mapped and transcript:
        mapped["transcript_path"] = str(transcript)
    if "last_assistant_message" not in mapped and transcript:
        mapped["last_assistant_message"] = last_answer(Path(str(transcript)))
    return mapped


def last_answer(path: Path) -> str:
    """The text of the assistant messages after the last user message in Copilot's
    ``events.jsonl``; empty when the file cannot be read."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - TAIL_BYTES))
            raw = handle.read()
    except OSError:
        return ""
    parts: list[str] = []
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # the first line of a tail, or a line being written
        if not isinstance(event, dict):
            continue
        data = event.get("data")
        if event.get("type") == "user.message":
            parts = []
        elif event.get("type") == "assistant.message" and isinstance(data, dict):
            content = data.get("content")
            if isinstance(content, str) and content.strip():
                parts.append(content)
    return "\n\n".join(parts)
