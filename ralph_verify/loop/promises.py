"""The promise protocol, ``<promise>COMPLETE</promise>`` and ``<promise>BLOCKED: why</promise>``:
only an exact tag in the agent's own output counts, never an echo of the prompt."""

from __future__ import annotations

import re

COMPLETE = "COMPLETE"
BLOCKED_PREFIX = "BLOCKED:"
_TAG = r"<promise>([^<>\n]{1,500})</promise>"


def _neighbours(lines: list[str]) -> dict[str, set[tuple[str, str]]]:
    """For each line, the (previous, next) non-empty lines around each place it stands."""
    around: dict[str, set[tuple[str, str]]] = {}
    for index, line in enumerate(lines):
        before = lines[index - 1] if index > 0 else ""
        after = lines[index + 1] if index + 1 < len(lines) else ""
        around.setdefault(line, set()).add((before, after))
    return around


def _echoed(index: int, lines: list[str], prompt_around: dict[str, set[tuple[str, str]]]
            ) -> bool:
    """Whether output line ``index`` stands as it does in the prompt (a neighbour matches)."""
    places = prompt_around.get(lines[index])
    if places is None:
        return False
    before = lines[index - 1] if index > 0 else ""
    after = lines[index + 1] if index + 1 < len(lines) else ""
    return any((before and before == b) or (after and after == a) for b, a in places)


def find_promises(output: str, prompt: str) -> list[str]:
    """The texts of the promise tags the agent printed itself, in order, without repeats."""
    prompt_around = _neighbours([ln.strip() for ln in prompt.splitlines() if ln.strip()])
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    found: list[str] = []
    for index, text in enumerate(lines):
        if "<promise>" not in text or _echoed(index, lines, prompt_around):
            continue
        if re.compile(_TAG).sub("", text).strip() and text in prompt:
            continue
        for match in re.compile(_TAG).finditer(text):
            if match.group(0) in prompt and match.group(1).startswith(BLOCKED_PREFIX):
                continue
            claim = match.group(1)
            if claim not in found:
                found.append(claim)
    return found


def blocked_reason(promises: list[str]) -> str | None:
    """The reason of a ``BLOCKED: reason`` promise, if the agent gave one."""
    for text in promises:
        if text.startswith(BLOCKED_PREFIX):
            return text[len(BLOCKED_PREFIX):].strip() or "no reason given"
    return None
