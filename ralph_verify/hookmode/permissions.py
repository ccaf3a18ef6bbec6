"""Will Claude Code refuse the loop's edits? ``claude -p`` without a permission mode that
allows them refuses every Write and Edit and the loop stalls silently, so ``start`` says so
once, from Claude Code's settings files, with the flag that fixes it."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Permission modes that let Claude Code edit files with nobody to approve.
EDIT_MODES = frozenset({"acceptEdits", "bypassPermissions"})
_EDIT_TOOLS = ("Edit", "Write", "MultiEdit")


def settings_files(root: Path, home: Path) -> list[Path]:
    return [root / ".claude" / "settings.json", root / ".claude" / "settings.local.json",
            home / ".claude" / "settings.json"]


def _permissions(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    permissions = data.get("permissions") if isinstance(data, dict) else None
    return permissions if isinstance(permissions, dict) else {}


def edits_allowed(root: Path, home: Path) -> bool:
    """Do Claude Code's settings let it edit files without asking?"""
    for path in settings_files(root, home):
        permissions = _permissions(path)
        if permissions.get("defaultMode") in EDIT_MODES:
            return True
        allow = permissions.get("allow")
        if isinstance(allow, list) and any(
                isinstance(rule, str) and rule.split("(", 1)[0] in _EDIT_TOOLS
                for rule in allow):
            return True
    return False


def edit_refusal_warning(root: Path, agent: str | None,
                         environ: Mapping[str, str] | None = None) -> str | None:
    """The warning ``start`` prints when the loop's agent is Claude Code and its settings
    do not allow edits; ``None`` otherwise (Codex, or edits allowed)."""
    env = os.environ if environ is None else environ
    claude = agent == "claude" or (agent is None and (env.get("CLAUDECODE") == "1"
                                                      or bool(env.get("CLAUDE_CODE_SESSION_ID"))))
    if not claude:
        return None
    home = Path(env.get("HOME") or Path.home())
    if edits_allowed(root, home):
        return None
    return ("Claude Code's settings allow no edits without approval: run headless "
            "(claude -p), it refuses every Write and Edit and this loop stalls. Start Claude "
            "with --permission-mode acceptEdits (or set permissions.defaultMode to "
            '"acceptEdits" in .claude/settings.json)')
