"""The hook entries (the PreToolUse guard, the Stop hook) given to an agent CLI, for ``run``'s
one-run settings and for ``init``'s settings files alike."""

from __future__ import annotations

import json
from typing import Any

#: The tools the guard inspects (a regex for Claude Code's matcher).
GUARD_MATCHER = "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Grep|Glob|WebFetch|mcp__.*"
GUARD_TIMEOUT = 30


def guard_settings_json(command: str) -> str:
    """``--settings`` JSON giving one Claude Code run the PreToolUse guard."""
    return json.dumps({"hooks": {"PreToolUse": claude_hooks(command, guard=True,
                                                             timeout=0)["PreToolUse"]}})


def codex_guard_config(command: str) -> list[str]:
    """``codex exec`` arguments giving one Codex run the PreToolUse guard: the hook as a
    ``-c`` config value (Codex's ``hooks.json`` is the user's), trusted for this run only."""
    handler = (f'{{type = "command", command = {json.dumps(f"{command} hook codex-pretool")}, '
               f"timeout = {GUARD_TIMEOUT}}}")
    return ["-c", f"hooks.PreToolUse = [{{hooks = [{handler}]}}]",
            "--dangerously-bypass-hook-trust"]


def _group(command: str, hook: str, timeout: int, **extra: str) -> dict[str, Any]:
    """One matcher group that runs ``ralph-verify hook HOOK``."""
    return {**extra, "hooks": [{"type": "command", "command": f"{command} hook {hook}",
                                "timeout": timeout}]}


def claude_hooks(command: str, *, guard: bool, timeout: int) -> dict[str, list[dict[str, Any]]]:
    """The ``hooks`` entries ralph-verify needs in Claude Code's settings."""
    hooks = {"Stop": [_group(command, "claude-stop", timeout)]}
    if guard:
        hooks["PreToolUse"] = [_group(command, "claude-pretool", GUARD_TIMEOUT,
                                      matcher=GUARD_MATCHER)]
    return hooks


def codex_hooks(command: str, *, guard: bool, timeout: int) -> dict[str, list[dict[str, Any]]]:
    """Codex's hooks.json entries: the Stop hook, and the guard before every tool call."""
    hooks = {"Stop": [_group(command, "codex-stop", timeout)]}
    if guard:
        hooks["PreToolUse"] = [_group(command, "codex-pretool", GUARD_TIMEOUT)]
    return hooks


def qwen_hooks(command: str, *, timeout: int) -> dict[str, list[dict[str, Any]]]:
    """Qwen Code's settings.json entries: the Stop hook (timeout in seconds, as Claude's)."""
    return {"Stop": [_group(command, "qwen-stop", timeout)]}


def gemini_hooks(command: str, *, timeout: int) -> dict[str, list[dict[str, Any]]]:
    """Gemini CLI's settings.json entries: its Stop hook is ``AfterAgent`` (timeout in ms)."""
    return {"AfterAgent": [_group(command, "gemini-stop", timeout * 1000)]}


def copilot_hooks(command: str, *, timeout: int) -> dict[str, list[dict[str, Any]]]:
    """Copilot CLI's ``.github/hooks/*.json`` entries: its Stop hook is ``agentStop`` (the
    command under ``bash``, timeout in seconds as ``timeoutSec``; no matcher groups)."""
    return {"agentStop": [{"type": "command", "bash": f"{command} hook copilot-stop",
                           "timeoutSec": timeout}]}
