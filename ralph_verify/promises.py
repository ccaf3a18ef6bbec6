"""The promise protocol: ``<promise>COMPLETE</promise>``, ``<promise>BLOCKED: reason</promise>``.

Only the agent's own new output counts, and only as an exact tag. Echoes of
the prompt (its instructions, the feedback) are ignored: a line equal to a
line of the prompt, a line with more than tags on it that stands anywhere in
the prompt, and a BLOCKED tag whose whole text is in the prompt (the
template's example). A line holding nothing but the tag is the agent's own
unless the prompt has that very line.
"""

from __future__ import annotations

import re

COMPLETE = "COMPLETE"
BLOCKED_PREFIX = "BLOCKED:"
_TAG = re.compile(r"<promise>([^<>\n]{1,500})</promise>")


def find_promises(output: str, prompt: str) -> list[str]:
    """The texts of the promise tags the agent printed itself, in order, without repeats."""
    prompt_lines = {line.strip() for line in prompt.splitlines() if line.strip()}
    found: list[str] = []
    for line in output.splitlines():
        text = line.strip()
        if "<promise>" not in text or text in prompt_lines:
            continue
        if _TAG.sub("", text).strip() and text in prompt:
            continue
        for match in _TAG.finditer(line):
            if match.group(0) in prompt and match.group(1).startswith(BLOCKED_PREFIX):
                continue
            text = match.group(1)
            if text not in found:
                found.append(text)
    return found


def blocked_reason(promises: list[str]) -> str | None:
    """The reason of a ``BLOCKED: reason`` promise, if the agent gave one."""
    for text in promises:
        if text.startswith(BLOCKED_PREFIX):
            return text[len(BLOCKED_PREFIX):].strip() or "no reason given"
    return None
