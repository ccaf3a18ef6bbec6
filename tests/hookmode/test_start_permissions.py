"""``start`` warns when Claude Code would refuse the loop's edits, and says the flag."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_verify.hookmode.permissions import edit_refusal_warning
from ralph_verify.testing import Ralph

WARNING = "WARNING: Claude Code's settings allow no edits without approval"


@pytest.fixture
def project(ralph: Ralph, tmp_path: Path) -> Ralph:
    ralph.env["HOME"] = str(tmp_path / "home")  # never the user's ~/.claude
    for name in ("CLAUDE_CODE_SESSION_ID", "CLAUDECODE"):
        ralph.env.pop(name, None)
    ralph.git_init()
    return ralph


def test_start_inside_claude_without_an_edit_mode_warns(project: Ralph) -> None:
    project.env["CLAUDE_CODE_SESSION_ID"] = "s-1"
    result = project.run("start", "--until", "files:done.txt", "make done.txt")
    assert result.ret == 0, result
    assert WARNING in result.err
    assert "--permission-mode acceptEdits" in result.err
    assert result.err.count("WARNING") == 1
    assert WARNING not in result.out  # the agent's instructions stay as they were


@pytest.mark.parametrize("settings", [
    {"permissions": {"defaultMode": "acceptEdits"}},
    {"permissions": {"allow": ["Bash(npm test)", "Edit(src/**)"]}},
])
def test_settings_that_allow_edits_silence_it(project: Ralph, settings: dict[str, object]
                                              ) -> None:
    project.makefile(".claude/settings.json", json.dumps(settings))
    result = project.run("start", "--agent-name", "claude", "--until", "files:done.txt", "x")
    assert result.ret == 0, result
    assert "WARNING" not in result.err


def test_codex_gets_no_claude_warning(project: Ralph) -> None:
    result = project.run("start", "--agent-name", "codex", "--until", "files:done.txt", "x")
    assert result.ret == 0, result
    assert "WARNING" not in result.err


def test_the_user_settings_count_too(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    assert edit_refusal_warning(tmp_path, "claude", {"HOME": str(home)}) is not None
    (home / ".claude" / "settings.json").write_text(
        '{"permissions": {"defaultMode": "bypassPermissions"}}')
    assert edit_refusal_warning(tmp_path, "claude", {"HOME": str(home)}) is None
    (home / ".claude" / "settings.json").write_text("{not json")
    assert edit_refusal_warning(tmp_path, None, {"HOME": str(home), "CLAUDECODE": "1"})
    assert edit_refusal_warning(tmp_path, None, {"HOME": str(home)}) is None
