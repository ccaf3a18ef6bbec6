"""``ralph-verify init claude`` / ``codex`` / ``qwen`` / ``gemini`` / ``copilot``: merge the hooks,
keep everything else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.testing import Ralph

HOOK = "python -m ralph_verify"


def settings(ralph: Ralph) -> dict[str, Any]:
    data = json.loads((ralph.path / ".claude" / "settings.json").read_text())
    assert isinstance(data, dict)
    return data


def commands(data: dict[str, Any], event: str) -> list[str]:
    return [h["command"] for group in data["hooks"].get(event, []) for h in group["hooks"]]


def test_init_claude_writes_the_hooks(ralph: Ralph) -> None:
    result = ralph.run("init", "claude", "--hook-command", HOOK)
    assert result.ret == 0, result
    result.stdout.fnmatch_lines([
        "ralph-verify init claude · .claude/settings.json: created",
        "  added: the Stop hook ralph-verify hook claude-stop",
        "  added: the PreToolUse hook ralph-verify hook claude-pretool",
        "  added: env CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=1000*",
    ])
    data = settings(ralph)
    stop = data["hooks"]["Stop"][0]["hooks"][0]
    assert stop == {"type": "command", "command": f"{HOOK} hook claude-stop", "timeout": 600}
    guard = data["hooks"]["PreToolUse"][0]
    assert "Bash" in guard["matcher"] and "Write" in guard["matcher"]
    assert guard["hooks"][0]["command"] == f"{HOOK} hook claude-pretool"
    from ralph_verify.agents.claude import QUIET_ENV

    assert data["env"] == {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "1000", **QUIET_ENV}
    result.stdout.fnmatch_lines(["  added: env DISABLE_TELEMETRY=1 (no call home)",
                                 "  claude -p --permission-mode acceptEdits *"])


def test_init_claude_merges_without_clobbering_and_is_idempotent(ralph: Ralph) -> None:
    mine: dict[str, Any] = {
        "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(./secrets/**)"]},
        "env": {"FOO": "1", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "50"},
        "hooks": {
            "PostToolUse": [{"matcher": "Write|Edit",
                             "hooks": [{"type": "command", "command": "ruff format"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        },
        "model": "opus",
    }
    path = ralph.makefile(".claude/settings.json", json.dumps(mine, indent=4))
    result = ralph.run("init", "claude", "--hook-command", HOOK)
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["*: updated",
                                 "*kept your: env CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=50"])
    data = settings(ralph)
    assert data["permissions"] == mine["permissions"] and data["model"] == "opus"
    from ralph_verify.agents.claude import QUIET_ENV

    assert data["env"] == {**mine["env"], **QUIET_ENV}  # theirs kept, the quiet switches added
    assert data["hooks"]["PostToolUse"] == mine["hooks"]["PostToolUse"]
    assert commands(data, "Stop") == ["notify-send done", f"{HOOK} hook claude-stop"]
    assert list(data) == list(mine)  # key order kept

    text = path.read_text()
    again = ralph.run("init", "claude", "--hook-command", "ralph-verify")
    assert again.ret == 0
    again.stdout.fnmatch_lines(["*: unchanged", "  kept: the Stop hook*",
                                "  kept: the PreToolUse*"])
    assert path.read_text() == text


def test_init_claude_dry_run_and_no_guard(ralph: Ralph) -> None:
    dry = ralph.run("init", "claude", "--dry-run", "--no-guard", "--hook-command", HOOK)
    assert dry.ret == 0
    dry.stdout.fnmatch_lines(["+++ b/.claude/settings.json", "*claude-stop*",
                              "*: would change"])
    assert "claude-pretool" not in dry.out
    assert not (ralph.path / ".claude").exists()


def test_init_claude_refuses_broken_json(ralph: Ralph) -> None:
    path = ralph.makefile(".claude/settings.json", "{\"hooks\": ")
    result = ralph.run("init", "claude")
    assert result.ret == 2
    assert "not valid JSON" in result.err and "nothing was changed" in result.err
    assert path.read_text() == "{\"hooks\": "


def test_init_codex_writes_codex_home_hooks(ralph: Ralph, tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    ralph.env["CODEX_HOME"] = str(home)
    result = ralph.run("init", "codex", "--hook-command", HOOK)
    assert result.ret == 0, result
    data = json.loads((home / "hooks.json").read_text())
    assert data == {"hooks": {
        "Stop": [{"hooks": [
            {"type": "command", "command": f"{HOOK} hook codex-stop", "timeout": 600}]}],
        "PreToolUse": [{"hooks": [
            {"type": "command", "command": f"{HOOK} hook codex-pretool", "timeout": 30}]}]}}
    assert "--sandbox workspace-write --dangerously-bypass-hook-trust" in result.out


def test_init_codex_switches_codex_s_calls_home_off_and_keeps_the_user_s_config(
        ralph: Ralph, tmp_path: Path) -> None:
    """Codex's config.toml gets the quiet keys the user has not set, each in its own table when
    the file has one; the user's values and everything else stay; a second run changes nothing."""
    from ralph_verify.compat import tomllib

    home = tmp_path / "codex-home"
    home.mkdir()
    mine = 'model = "o4"\nfeatures.apps = true\n\n[analytics]\nmine = 1\n'
    (home / "config.toml").write_text(mine)
    ralph.env["CODEX_HOME"] = str(home)
    assert ralph.run("init", "codex", "--hook-command", HOOK).ret == 0
    text = (home / "config.toml").read_text()
    assert text.endswith(mine.replace("[analytics]\n", "[analytics]\nenabled = false\n"))
    assert tomllib.loads(text) == {
        "check_for_update_on_startup": False, "model": "o4",
        "features": {"plugins": False, "remote_plugin": False, "apps": True},
        "analytics": {"enabled": False, "mine": 1}}
    again = ralph.run("init", "codex", "--hook-command", HOOK)
    assert again.ret == 0 and (home / "config.toml").read_text() == text
    again.stdout.fnmatch_lines(["*config.toml: unchanged", "*kept your: features.apps=true*"])


@pytest.mark.parametrize("target", ["claude", "codex", "qwen", "gemini", "copilot"])
def test_init_agent_keeps_ralph_out_of_git(ralph: Ralph, tmp_path: Path, target: str) -> None:
    """The session files are never committed: .ralph/ goes into .gitignore, once, after the
    user's own lines; a project that ignores it already is left byte for byte."""
    ralph.env["CODEX_HOME"] = str(tmp_path / "codex-home")
    ralph.makefile(".gitignore", "build/\n")
    result = ralph.run("init", target, "--hook-command", HOOK)
    assert result.ret == 0, result
    result.stdout.fnmatch_lines([f"ralph-verify init {target} · .gitignore: updated"])
    assert (ralph.path / ".gitignore").read_text() == (
        "build/\n\n# ralph-verify's session files\n.ralph/\n")
    again = ralph.run("init", target, "--hook-command", HOOK)
    again.stdout.fnmatch_lines([f"ralph-verify init {target} · .gitignore: unchanged"])
    assert (ralph.path / ".gitignore").read_text().count(".ralph/") == 1


def test_init_qwen_writes_the_stop_hook_and_raises_the_cap(ralph: Ralph) -> None:
    """Qwen Code's project settings get the Stop hook and a block cap over the loop's
    iterations; the user's other settings, hooks and own cap stay; a second run changes
    nothing."""
    path = ralph.makefile(".qwen/settings.json", json.dumps(
        {"model": {"name": "m"}, "hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "notify-me"}]}]}}))
    result = ralph.run("init", "qwen", "--hook-command", HOOK)
    assert result.ret == 0, result
    result.stdout.fnmatch_lines([
        "ralph-verify init qwen · .qwen/settings.json: updated",
        "  added: the Stop hook ralph-verify hook qwen-stop",
        "  added: stopHookBlockingCap=1000*",
    ])
    data = json.loads(path.read_text())
    assert data["model"] == {"name": "m"} and data["stopHookBlockingCap"] == 1000
    assert commands(data, "Stop") == ["notify-me", f"{HOOK} hook qwen-stop"]
    assert data["hooks"]["Stop"][1]["hooks"][0]["timeout"] == 600  # seconds, as Qwen reads it
    before = path.read_text()
    again = ralph.run("init", "qwen", "--hook-command", HOOK)
    again.stdout.fnmatch_lines(["ralph-verify init qwen · .qwen/settings.json: unchanged",
                                "  kept: the Stop hook*", "  kept: stopHookBlockingCap=1000"])
    assert path.read_text() == before


@pytest.mark.parametrize(("agent", "init", "noted"), [
    ("claude", False, True), ("claude", True, False), ("codex", False, False)])
def test_the_block_cap_note_goes_only_to_claude_and_only_while_the_cap_is_low(
        ralph: Ralph, tmp_path: Path, agent: str, init: bool, noted: bool) -> None:
    ralph.env["CODEX_HOME"] = str(tmp_path / "codex-home")
    ralph.makepyfile(test_x="def test_x():\n    assert False\n")
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()
    if init:
        assert ralph.run("init", agent, "--hook-command", HOOK).ret == 0
    started = ralph.run("start", "--agent-name", agent, "--until", "tests",
                        "--max-iterations", "20", "--no-branch", "fix it")
    assert started.ret == 0, started
    assert ("Stop-hook blocks in a row" in started.out) is noted, started.out
