"""Each adapter's command line, environment and registration (pure), and a missing program."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from ralph_verify.agents import AgentOptions, AgentRegistry, AgentRequest
from ralph_verify.agents.aider import AiderAgent
from ralph_verify.agents.amp import AmpAgent
from ralph_verify.agents.claude import ClaudeAgent
from ralph_verify.agents.cli import CLIAgent
from ralph_verify.agents.codex import CodexAgent
from ralph_verify.agents.copilot import CopilotAgent
from ralph_verify.agents.gemini import GeminiAgent
from ralph_verify.agents.opencode import OpenCodeAgent
from ralph_verify.agents.qwen import QwenAgent
from ralph_verify.errors import UsageError
from ralph_verify.loop.verdict import EXIT_CODES, Verdict
from ralph_verify.testing import Ralph

ALL = [ClaudeAgent, CodexAgent, AiderAgent, GeminiAgent, QwenAgent, OpenCodeAgent, AmpAgent,
       CopilotAgent]
BYPASS = {"claude": "--dangerously-skip-permissions",
          "codex": "--dangerously-bypass-approvals-and-sandbox", "gemini": "--yolo",
          "qwen": "--yolo", "opencode": "--auto", "amp": "--dangerously-allow-all",
          "copilot": "--allow-all"}


def request(tmp_path: Path, iteration: int = 1, prompt: str = "Fix -the tests") -> AgentRequest:
    session = tmp_path / ".ralph"
    session.mkdir(exist_ok=True)
    prompt_file = session / "prompt.md"
    prompt_file.write_text(prompt, encoding="utf-8")
    return AgentRequest(prompt=prompt, prompt_file=prompt_file, iteration=iteration,
                        root=tmp_path, session_dir=session, log_path=session / "agent.log",
                        timeout=30, cancel=threading.Event())


def test_claude_command(tmp_path: Path) -> None:
    agent = ClaudeAgent(None, AgentOptions(model="opus", extra_args=("--max-turns", "5")))
    assert agent.command(request(tmp_path)) == [
        "-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits",
        "--model", "opus", "--max-turns", "5"]
    assert agent.prompt_via == "stdin"
    assert agent.environment(request(tmp_path)) == {}


def test_claude_gets_what_is_left_of_the_session_budget(tmp_path: Path) -> None:
    agent = ClaudeAgent(None, AgentOptions())
    req = request(tmp_path)
    req.budget_usd = 3.456
    argv = agent.command(req)
    assert argv[argv.index("--max-budget-usd") + 1] == "3.46"
    req.budget_usd = None  # --max-cost 0: no cap, no flag
    assert "--max-budget-usd" not in agent.command(req)


def test_claude_sets_is_sandbox_only_when_opted_in_as_root(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    opted_in = ClaudeAgent(None, AgentOptions(bypass_permissions=True))
    monkeypatch.setattr(os, "geteuid", lambda: 0, raising=False)
    assert opted_in.environment(request(tmp_path)) == {"IS_SANDBOX": "1"}
    assert ClaudeAgent(None, AgentOptions()).environment(request(tmp_path)) == {}
    monkeypatch.setattr(os, "geteuid", lambda: 1000, raising=False)
    assert opted_in.environment(request(tmp_path)) == {}


def test_codex_command(tmp_path: Path) -> None:
    agent = CodexAgent(None, AgentOptions(model="gpt-5", extra_args=("-c", "x=1")))
    assert agent.command(request(tmp_path)) == [
        "exec", "--json", "--skip-git-repo-check", "-c", 'sandbox_mode="workspace-write"',
        "-c", "check_for_update_on_startup=false", "-c", "analytics.enabled=false",
        "-c", "features.plugins=false", "-c", "features.remote_plugin=false",
        "-c", "features.apps=false", "--model", "gpt-5", "-c", "x=1", "-"]


def test_aider_command_keeps_its_files_in_the_session_folder(tmp_path: Path) -> None:
    req = request(tmp_path)
    argv = AiderAgent(None, AgentOptions(model="openai/m", extra_args=("app.py",))).command(req)
    assert argv[:3] == ["--message-file", str(req.prompt_file), "--yes-always"]
    assert {"--no-auto-commits", "--no-gitignore", "--no-check-update"} <= set(argv)
    history = argv[argv.index("--chat-history-file") + 1]
    assert Path(history).parent == req.session_dir / "agent"
    assert argv[-3:] == ["--model", "openai/m", "app.py"]
    assert "--yes-always" in AiderAgent(None, AgentOptions(bypass_permissions=True)).command(req)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_skip_permissions_flag_only_with_yolo(cls: type[CLIAgent], tmp_path: Path) -> None:
    plain = cls(None, AgentOptions()).command(request(tmp_path))
    yolo = cls(None, AgentOptions(bypass_permissions=True)).command(request(tmp_path))
    flag = BYPASS.get(cls.name)
    if flag is None:  # aider has no permission system to bypass
        assert plain == yolo
        return
    assert flag not in plain
    assert flag in yolo


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_prompt_reaches_the_cli(cls: type[CLIAgent], tmp_path: Path) -> None:
    req = request(tmp_path, prompt="-starts with a dash\nand <promise> tags")
    argv = cls(None, AgentOptions()).command(req)
    if cls.prompt_via == "stdin":
        assert req.prompt not in " ".join(argv)
    elif cls.prompt_via == "file":
        assert str(req.prompt_file) in argv
    else:  # on the command line, never where it could be read as an option
        last = argv[-1]
        assert last.endswith(req.prompt)
        assert last == req.prompt or last.startswith("--")
        assert argv[-2] in ("--", "-x") or last.startswith("--prompt=")


CONTINUE = {
    "claude": (["--continue"], ["--resume", "S1"]),
    "codex": (["resume", "--last"], ["resume", "S1"]),
    "aider": (["--restore-chat-history"], ["--restore-chat-history"]),
    "gemini": (["--resume", "latest"], ["--resume", "S1"]),
    "qwen": (["--continue"], ["--resume", "S1"]),
    "opencode": (["--continue"], ["--session", "S1"]),
    "amp": (["threads", "continue"], ["threads", "continue", "S1"]),
    "copilot": (["--continue"], ["--resume=S1"]),
}


def contains(argv: list[str], part: list[str]) -> bool:
    return any(argv[i:i + len(part)] == part for i in range(len(argv)))


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_continue_session_only_when_asked(cls: type[CLIAgent], tmp_path: Path) -> None:
    unknown, known = CONTINUE[cls.name]
    fresh = cls(None, AgentOptions())
    fresh.session_id = "S1"
    assert not contains(fresh.command(request(tmp_path, iteration=2)), known)
    assert not contains(fresh.command(request(tmp_path, iteration=2)), unknown)
    agent = cls(None, AgentOptions(continue_session=True))
    first = agent.command(request(tmp_path, iteration=1))
    assert not contains(first, unknown) and not contains(first, known)
    assert contains(agent.command(request(tmp_path, iteration=2)), unknown)
    agent.session_id = "S1"
    assert contains(agent.command(request(tmp_path, iteration=2)), known)


def test_amp_refuses_a_model() -> None:
    with pytest.raises(UsageError, match="amp has no model option"):
        AmpAgent(None, AgentOptions(model="x"))


def test_missing_program_names_its_package(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = ClaudeAgent(None, AgentOptions()).run(request(tmp_path))
    assert result.exit_code is None and result.error is not None
    assert "npm install -g @anthropic-ai/claude-code" in result.error
    assert "--agent claude:/path/to/claude" in result.error
    result = AiderAgent("/opt/nowhere/aider", AgentOptions()).run(request(tmp_path))
    assert result.error is not None and "'/opt/nowhere/aider' is not on PATH" in result.error
    assert "pip install aider-chat" in result.error


def test_a_prompt_too_long_for_the_command_line_is_a_clear_error(tmp_path: Path) -> None:
    program = tmp_path / "gemini"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    result = GeminiAgent(str(program), AgentOptions()).run(
        request(tmp_path, prompt="x" * 200_000))
    assert result.error is not None and "too long for a command-line argument" in result.error


def test_registered_through_the_built_in_plugin() -> None:
    from ralph_verify.startup import get_plugin_manager

    registry = AgentRegistry()
    get_plugin_manager().hook.ralph_register_agents(registry=registry)
    names = {agent_type.name for agent_type in registry.types()}
    assert {cls.name for cls in ALL} <= names
    claude = registry.get("claude")
    assert claude is not None and claude.arg == "optional" and claude.plugin == "agent_clis"
    agent = claude.factory("/opt/claude/bin/claude", AgentOptions())
    assert isinstance(agent, ClaudeAgent) and agent.program_path == "/opt/claude/bin/claude"
    for agent_type in registry.types():
        if agent_type.plugin == "agent_clis":
            assert ("not tested offline" in agent_type.help) == (agent_type.name == "amp")
            assert ("tested offline" in agent_type.help)


def test_run_with_a_missing_cli_stops_with_agent_error(ralph: Ralph) -> None:
    ralph.makepyfile(**{"tests/test_a": "def test_a():\n    assert False\n"})
    ralph.git_init()
    result = ralph.run("run", "--agent", "gemini:ralph-no-such-gemini", "--until", "tests",
                       "fix the test")
    assert result.ret == EXIT_CODES[Verdict.AGENT_ERROR], result
    assert "ERROR: " in result.err and "'ralph-no-such-gemini' is not on PATH" in result.err
    assert "npm install -g @google/gemini-cli" in result.err
    assert "(found before the baseline; nothing was run); .ralph/ was left as it was" in result.err
    # Nothing was spent: no baseline verification, no session branch.
    assert not (ralph.path / ".ralph" / "iterations").exists()
    assert ralph.git("branch", "--show-current").strip() == "main"


def test_copilot_trusts_the_project_for_a_new_session_only(tmp_path: Path) -> None:
    """Copilot takes --trust-folder only for a new session; a resumed one is trusted through
    COPILOT_ALLOW_ALL=true, and only with --yolo (it allows every tool)."""
    plain = CopilotAgent(None, AgentOptions(continue_session=True))
    assert plain.command(request(tmp_path))[0] == "--trust-folder"
    assert "--trust-folder" not in plain.command(request(tmp_path, iteration=2))
    assert plain.environment(request(tmp_path, iteration=2)) == {}
    yolo = CopilotAgent(None, AgentOptions(continue_session=True, bypass_permissions=True))
    assert yolo.environment(request(tmp_path)) == {}
    assert yolo.environment(request(tmp_path, iteration=2)) == {"COPILOT_ALLOW_ALL": "true"}


def test_gemini_trusts_the_project_unless_the_user_says(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """--skip-trust loads none of the project's settings: the environment trusts it."""
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    agent = GeminiAgent(None, AgentOptions())
    assert agent.environment(request(tmp_path)) == {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "false")
    assert agent.environment(request(tmp_path)) == {}
