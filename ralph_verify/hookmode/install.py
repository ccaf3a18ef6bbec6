"""``ralph-verify init claude|codex|qwen|gemini|copilot``: merge our hooks into the agent's
settings, adding what is missing and changing nothing of the user's (a second run changes
nothing; ``--dry-run`` shows the diff)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph_verify.errors import UsageError
from ralph_verify.guard.agent_hooks import (
    claude_hooks,
    codex_hooks,
    copilot_hooks,
    gemini_hooks,
    qwen_hooks,
)

if TYPE_CHECKING:
    from ralph_verify.config import Config
    from ralph_verify.config.scaffold import FileChange

#: What a user types for a loop in hook mode, after ``init AGENT``: ``start``, then the agent
#: in the mode that lets it write. ``init`` prints these; docs/agents/AGENT.md and the README
#: show them, and tests/e2e/test_docs_agents_e2e.py runs them as written with the real CLI.
HOOK_MODE: dict[str, tuple[str, str]] = {
    name: (f"ralph-verify start --agent-name {name} --until tests 'make the tests pass'", agent)
    for name, agent in (
        ("claude", "claude -p --permission-mode acceptEdits 'make the tests pass'"),
        ("codex", "codex exec --sandbox workspace-write --dangerously-bypass-hook-trust "
                  "'make the tests pass'"),
        ("gemini", "GEMINI_CLI_TRUST_WORKSPACE=true gemini --approval-mode auto_edit "
                   "--model gemini-2.5-pro --prompt 'make the tests pass'"),
        ("qwen", "qwen --approval-mode auto-edit --prompt 'make the tests pass'"),
        ("copilot", "copilot --trust-folder --no-auto-update --disable-client-telemetry "
                    "--allow-tool=write --prompt 'make the tests pass'"),
    )}

CAP_ENV = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"
#: Qwen Code's setting for its Stop-hook blocks per prompt (default 8, tool calls or not).
QWEN_CAP = "stopHookBlockingCap"


def hook_command(config: Config) -> str:
    """How a hook calls ralph-verify: ``--hook-command``, else ``ralph-verify`` on PATH, else
    this interpreter with ``-m ralph_verify``."""
    given = config.get("hook_command")
    if given:
        return str(given)
    if shutil.which("ralph-verify"):
        return "ralph-verify"
    return f"{shlex.quote(sys.executable)} -m ralph_verify"


def run_guard_command(config: Config) -> str | None:
    """The guard for ``run``'s agents: this interpreter's ralph-verify, unless switched off."""
    settings = config.get("guard")
    if settings is not None and not settings.enabled:
        return None
    return f"{shlex.quote(sys.executable)} -m ralph_verify"


def _commands(entries: Any, copilot: bool) -> list[str]:
    """The commands of a hook event's entries: matcher groups of handlers (``command``), or
    Copilot's handlers listed directly (``bash``)."""
    handlers = entries if copilot else [
        handler for group in entries if isinstance(group, dict)
        for handler in (group.get("hooks") or [])]
    return [str(h.get("bash" if copilot else "command", "")) for h in handlers
            if isinstance(h, dict)]


def merge(settings: dict[str, Any], hooks: dict[str, list[dict[str, Any]]],
          env: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """``settings`` with our hooks and env added; the list says what changed."""
    copilot = "agentStop" in hooks  # Copilot's hook file: {"version": 1, "hooks": ...}
    merged = {"version": 1, **settings} if copilot else dict(settings)
    notes: list[str] = []
    current = merged.get("hooks", {})
    if not isinstance(current, dict):
        raise UsageError(f"\"hooks\" is a {type(current).__name__}, not an object: fix it first")
    current = dict(current)
    for event, entries in hooks.items():
        action = _commands(entries, copilot)[0].rsplit(" ", 1)[-1]
        existing = current.get(event, [])
        if not isinstance(existing, list):
            raise UsageError(f"\"hooks\".\"{event}\" is not a list: fix it first")
        if any(f"hook {action}" in text and (copilot or "ralph-verify" in text
                                             or "ralph_verify" in text)
               for text in _commands(existing, copilot)):
            notes.append(f"kept: the {event} hook (ralph-verify hook {action}) is there already")
            continue
        current[event] = [*existing, *entries]
        notes.append(f"added: the {event} hook ralph-verify hook {action}")
    merged["hooks"] = current
    if env:
        old_env = merged.get("env", {})
        if not isinstance(old_env, dict):
            raise UsageError("\"env\" is not an object: fix it first")
        new_env = dict(old_env)
        for key, value in env.items():
            if key in old_env:
                verb = "kept" if str(old_env[key]) == value else "kept your"
                notes.append(f"{verb}: env {key}={old_env[key]}")
            else:
                new_env[key] = value
                notes.append(f"added: env {key}={value} (Stop-hook blocks in a row Claude Code "
                             "accepts; the loop's own limit is max-iterations)" if key == CAP_ENV
                             else f"added: env {key}={value} (no call home)")
        merged["env"] = new_env
    return merged, notes


def _read_json(path: Path) -> tuple[str | None, dict[str, Any]]:
    from ralph_verify.config.scaffold import read_text

    old = read_text(path)
    if old is None or not old.strip():
        return old, {}
    try:
        data = json.loads(old)
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}): fix it first, nothing was "
                         "changed") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} holds JSON {type(data).__name__}, not an object: fix it first")
    return old, data


def install(config: Config, target: str) -> int:
    """Merge the hooks of ``target`` (claude, codex, qwen, gemini, copilot) into its settings
    file."""
    from ralph_verify.config.scaffold import FileChange, apply_changes, gitignore_change

    command = hook_command(config)
    timeout = int(config.get("hook_timeout"))
    guard = not config.get("no_guard")
    env: dict[str, str] = {}
    if target == "claude":
        from ralph_verify.agents.claude import QUIET_ENV

        path = config.root / ".claude" / "settings.json"
        hooks = claude_hooks(command, guard=guard, timeout=timeout)
        env = {CAP_ENV: str(int(config.get("hook_block_cap"))), **QUIET_ENV}
    elif target == "codex":
        home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()
        path = home / "hooks.json"
        hooks = codex_hooks(command, guard=guard, timeout=timeout)
    else:
        path = config.root / {"qwen": ".qwen/settings.json", "gemini": ".gemini/settings.json",
                              "copilot": ".github/hooks/ralph-verify.json"}[target]
        hooks = {"qwen": qwen_hooks, "gemini": gemini_hooks,
                 "copilot": copilot_hooks}[target](command, timeout=timeout)
    old, data = _read_json(path)
    merged, notes = merge(data, hooks, env)
    if target == "qwen":
        notes.append(_qwen_cap(merged, int(config.get("hook_block_cap"))))
    if target in ("qwen", "gemini"):
        _quiet_settings(merged, target, notes)
    new = json.dumps(merged, indent=2) + "\n"
    if old is not None and merged == data:
        new = old  # nothing to add: leave the file byte for byte
    changes = [FileChange(path, old, new)]
    if target == "codex":
        changes.append(_codex_quiet(path.parent / "config.toml", notes))
    changes.append(gitignore_change(config.root / ".gitignore"))  # .ralph/ is never committed
    dry_run = bool(config.get("dry_run"))
    apply_changes(changes, config.root, force=False, dry_run=dry_run)
    for done in changes:
        where = (done.path.relative_to(config.root) if done.path.is_relative_to(config.root)
                 else done.path)
        state = ("would change" if done.changed else "unchanged") if dry_run else (
            ("created" if done.old is None else "updated") if done.changed else "unchanged")
        print(f"ralph-verify init {target} · {where}: {state}")
    for note in notes:
        print(f"  {note}")
    if target in HOOK_MODE:
        start, agent = HOOK_MODE[target]
        print(f"next: start a loop, then the agent in the mode that lets it write "
              f"('ralph-verify cancel' ends the loop):\n  {start}\n  {agent}")
    if target in ("qwen", "gemini", "copilot"):
        print(f"  (no PreToolUse guard for {target})")
    if target == "copilot":
        print("  Copilot loads .github/hooks only in a folder it trusts (--trust-folder); it "
              "honours 8 blocked stops in a row per prompt (at most 9 iterations)")
    return 0


def _quiet_settings(settings: dict[str, Any], target: str, notes: list[str]) -> None:
    """Gemini CLI's and Qwen Code's calls home (telemetry, usage statistics, update checks)
    off in the project's settings, as ``run`` turns them off: each key the user has not set."""
    from ralph_verify.agents import gemini, qwen

    quiet = gemini.QUIET_SETTINGS if target == "gemini" else qwen.QUIET_SETTINGS
    for section, values in quiet.items():
        mine = settings.setdefault(section, {})
        if not isinstance(mine, dict):
            continue
        for key, value in values.items():
            if key in mine:
                notes.append(f"kept your: {section}.{key}={json.dumps(mine[key])}")
            else:
                mine[key] = value
                notes.append(f"added: {section}.{key}={json.dumps(value)} (no call home)")


def _codex_quiet(path: Path, notes: list[str]) -> FileChange:
    """Codex's ``config.toml`` with its calls home switched off (update check, analytics,
    plugin and app lists): each key the user has not set is added, in its table when the
    file has one, else as a dotted key at the top; the rest of the file is kept as it is."""
    import re

    from ralph_verify.agents.codex import QUIET_CONFIG
    from ralph_verify.compat import tomllib
    from ralph_verify.config.scaffold import FileChange, read_text

    old = read_text(path)
    text = old or ""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML ({exc}): fix it first, nothing was "
                         "changed") from None
    top: list[str] = []
    for key in QUIET_CONFIG:
        table, _, name = key.rpartition(".")
        current = data.get(table, {}) if table else data
        if isinstance(current, dict) and name in current:
            notes.append(f"kept your: {key}={str(current[name]).lower()} in {path.name}")
            continue
        header = re.search(rf"^\[{re.escape(table)}\][ \t]*$", text, re.MULTILINE) \
            if table else None
        if header is not None:
            text = f"{text[:header.end()]}\n{name} = false{text[header.end():]}"
        else:
            top.append(f"{key} = false\n")
        notes.append(f"added: {key} = false in {path.name} (no call home)")
    new = "".join(top) + text
    tomllib.loads(new)  # still one valid document
    return FileChange(path, old, new)


def _qwen_cap(settings: dict[str, Any], cap: int) -> str:
    """Raise Qwen Code's Stop-hook block cap (8 by default: 8 iterations per prompt) in
    ``settings`` unless the user set one."""
    if QWEN_CAP in settings:
        verb = "kept" if settings[QWEN_CAP] == cap else "kept your"
        return f"{verb}: {QWEN_CAP}={settings[QWEN_CAP]}"
    settings[QWEN_CAP] = cap
    return (f"added: {QWEN_CAP}={cap} (Stop-hook blocks per prompt Qwen Code accepts; the "
            "loop's own limit is max-iterations)")
