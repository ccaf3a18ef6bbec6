"""Known refusals read from recorded CLI output, and the version probe (tests/data/agents)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ralph_verify.agents import AgentOptions, AgentRequest
from ralph_verify.agents.claude import ClaudeAgent
from ralph_verify.agents.cli import CLIAgent
from ralph_verify.agents.codex import CodexAgent
from ralph_verify.agents.copilot import CopilotAgent, parse_copilot_events
from ralph_verify.agents.gemini import GeminiAgent
from ralph_verify.agents.opencode import OpenCodeAgent
from ralph_verify.agents.qwen import QwenAgent, parse_qwen_json
from ralph_verify.agents.vetting import (
    distribution_version,
    find_refusal,
    outside,
    package_version,
    parse_version,
    read_refusal,
    version_warning,
)

DATA = Path(__file__).parent.parent / "data" / "agents"


def recorded(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(("cls", "name", "said", "fix"), [
    (GeminiAgent, "gemini_untrusted.txt", "not running in a trusted directory",
     "GEMINI_CLI_TRUST_WORKSPACE=true"),
    (GeminiAgent, "gemini_no_auth.txt", "Please set an Auth method", "GEMINI_API_KEY"),
    (GeminiAgent, "gemini_model_not_found.txt", "models/nope is not found", "--model"),
    (QwenAgent, "qwen_no_auth.json", "No auth type is selected", "OPENAI_BASE_URL"),
    (CopilotAgent, "copilot_no_auth.txt", "No authentication information found",
     "COPILOT_PROVIDER_BASE_URL"),
    (CopilotAgent, "copilot_model_not_found.jsonl", "Model 'nope' not found", "--model"),
    (ClaudeAgent, "claude_not_logged_in.jsonl", "Not logged in", "ANTHROPIC_API_KEY"),
    (ClaudeAgent, "claude_invalid_key.jsonl", "Invalid API key", "ANTHROPIC_API_KEY"),
    (OpenCodeAgent, "opencode_no_provider.jsonl", "Cannot connect to API",
     "add a provider block"),
    (CodexAgent, "codex_sandbox_failure.jsonl",
     "'bwrap: execvp codex-linux-sandbox: No such file or directory'",
     "take bwrap off Codex's PATH"),
], ids=lambda value: value if isinstance(value, str) and "." in value else "")
def test_a_known_refusal_is_named_with_its_fix(cls: type[CLIAgent], name: str, said: str,
                                               fix: str) -> None:
    output = recorded(name)
    error = cls(None, AgentOptions()).parse(output.splitlines(keepends=True)).error
    reason = find_refusal(cls.name, cls.refusals, output, error)
    assert reason is not None and reason.startswith(f"{cls.name} refused to work: ")
    assert said in reason and fix in reason.split("fix: ", 1)[1]
    assert "\n" not in reason


def test_claude_s_refusals_count_only_in_its_reported_error() -> None:
    """A file the agent read that says 'Not logged in · Please run /login' is no refusal."""
    from ralph_verify.agents.claude import parse_claude_messages
    from ralph_verify.agents.vetting import json_lines

    output = recorded("claude_not_logged_in.jsonl")
    error = parse_claude_messages(json_lines(output.splitlines())).error
    assert error == "Not logged in · Please run /login"
    assert find_refusal("claude", ClaudeAgent.refusals, output, error) is not None
    assert find_refusal("claude", ClaudeAgent.refusals, output, None) is None


@pytest.mark.parametrize(("agent", "name", "said", "fix"), [
    ("gemini", "gemini_refused_transcript.jsonl", 'Tool "write_file" not found', None),
    ("qwen", "qwen_refused_transcript.jsonl",
     'permission to use "run_shell_command", but that permission was declined', "--yolo"),
    ("copilot", "copilot_refused_events.jsonl", "no interactive user response", None),
])
def test_a_refused_tool_call_is_read_from_the_transcript(agent: str, name: str, said: str,
                                                         fix: str | None) -> None:
    found = read_refusal(agent, DATA / name, 0.0)
    assert found is not None and said in found.said, found
    assert found.fix is None if fix is None else fix in (found.fix or ""), found
    # The refusal is stamped: a later turn's reading does not count it again.
    assert read_refusal(agent, DATA / name, 4_000_000_000.0) is None


def test_ordinary_output_is_no_refusal() -> None:
    for cls in (GeminiAgent, QwenAgent, CopilotAgent, CodexAgent, OpenCodeAgent, ClaudeAgent):
        for name in ("claude_stream.jsonl", "claude_api_error.jsonl", "gemini_docs.json",
                     "qwen_docs.json", "garbage.txt", "codex_events.jsonl",
                     "gemini_run.txt", "qwen_run.json", "copilot_run.jsonl",
                     "opencode_run.jsonl", "opencode_error_docs.jsonl"):
            assert find_refusal(cls.name, cls.refusals, recorded(name)) is None


def test_refusals_in_the_parsed_error() -> None:
    """Qwen and Copilot put the refusal in their JSON; the parsers read it as the error."""
    assert parse_qwen_json(recorded("qwen_no_auth.json").splitlines()).error == (
        "No auth type is selected. Please configure an auth type (e.g. via settings or "
        "`--auth-type`) before running in non-interactive mode.")
    parsed = parse_copilot_events(recorded("copilot_model_not_found.jsonl").splitlines())
    assert parsed.error is not None and parsed.error.startswith("Model 'nope' not found")
    assert parsed.status == 404 and parsed.session_id


def fake_cli(tmp_path: Path, name: str, script: str) -> Path:
    program = tmp_path / "bin" / name
    program.parent.mkdir(exist_ok=True)
    program.write_text(f"#!/bin/sh\n{script}\n", encoding="utf-8")
    program.chmod(0o755)
    return program


def request(tmp_path: Path) -> AgentRequest:
    session = tmp_path / ".ralph"
    session.mkdir(exist_ok=True)
    (session / "prompt.md").write_text("fix it", encoding="utf-8")
    return AgentRequest(prompt="fix it", prompt_file=session / "prompt.md", iteration=1,
                        root=tmp_path, session_dir=session, log_path=session / "agent.log",
                        timeout=30, cancel=threading.Event())


def test_a_refusing_run_is_an_agent_error_with_the_fix(tmp_path: Path) -> None:
    untrusted = recorded("gemini_untrusted.txt").replace("`", "'")
    program = fake_cli(tmp_path, "gemini", f"cat >&2 <<'EOF'\n{untrusted}EOF\nexit 55")
    result = GeminiAgent(str(program), AgentOptions()).run(request(tmp_path))
    assert result.exit_code == 55
    assert result.error is not None and "not running in a trusted directory" in result.error
    assert "fix: ralph-verify passes --skip-trust" in result.error


def test_codex_s_failing_sandbox_ends_the_run_as_an_agent_error(tmp_path: Path) -> None:
    """Codex exits 0 with every command failed ('bwrap: ...'): without this the loop
    would see an agent that changed nothing, three times, and stall."""
    recording = DATA / "codex_sandbox_failure.jsonl"
    program = fake_cli(tmp_path, "codex", f"cat > /dev/null\ncat '{recording}'\nexit 0")
    result = CodexAgent(str(program), AgentOptions()).run(request(tmp_path))
    assert result.exit_code == 0 and result.error is not None
    assert result.error.startswith("codex refused to work: 'bwrap: execvp codex-linux-sandbox")
    assert "take bwrap off Codex's PATH" in result.error


def test_a_timed_out_run_is_not_read_as_a_refusal(tmp_path: Path) -> None:
    program = fake_cli(tmp_path, "gemini",
                       "echo 'Please set an Auth method in your settings'; sleep 30")
    req = request(tmp_path)
    req.timeout = 0.5
    result = GeminiAgent(str(program), AgentOptions()).run(req)
    assert result.timed_out and result.error is None


@pytest.mark.parametrize(("printed", "expected"), [
    ("0.61.0\n", (0, 61, 0)), ("GitHub Copilot CLI 1.0.102.\nRun 'copilot update'", (1, 0, 102)),
    ("codex-cli 0.169.0", (0, 169, 0)), ("no version here", None)])
def test_parse_version(printed: str, expected: tuple[int, int, int] | None) -> None:
    assert parse_version(printed) == expected


def test_outside_the_tested_range() -> None:
    assert not outside((0, 61, 0), ("0.61.0", "0.62.0"))
    assert not outside((0, 61, 9), ("0.61.0", "0.62.0"))
    assert outside((0, 62, 0), ("0.61.0", "0.62.0"))
    assert outside((0, 60, 9), ("0.61.0", "0.62.0"))


def test_version_warning_names_both_versions(tmp_path: Path) -> None:
    old = fake_cli(tmp_path, "gemini", "echo 0.59.2")
    warning = version_warning("gemini", str(old), ("0.61.0", "0.62.0"))
    assert warning is not None and "gemini 0.59.2" in warning and "0.61.0" in warning
    tested = fake_cli(tmp_path, "qwen", "echo 0.24.4")
    assert version_warning("qwen", str(tested), ("0.24.4", "0.25.0")) is None
    mute = fake_cli(tmp_path, "copilot", "exit 3")
    assert version_warning("copilot", str(mute), ("1.0.102", "1.1.0")) is None


def test_preflight_warns_once_and_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    program = fake_cli(tmp_path, "copilot", "echo 'GitHub Copilot CLI 2.3.0.'")
    monkeypatch.setenv("PATH", str(program.parent))
    assert CopilotAgent(None, AgentOptions()).preflight() is None
    err = capsys.readouterr().err
    assert err.count("WARNING: copilot 2.3.0 is outside") == 1 and "1.0.102" in err
    # A program named with --agent copilot:PATH may be a wrapper: not probed.
    assert CopilotAgent(str(program), AgentOptions()).preflight() is None
    assert "WARNING" not in capsys.readouterr().err


def test_an_npm_cli_s_version_is_read_from_its_package(tmp_path: Path) -> None:
    """No process started: the version probe of an npm CLI costs nothing (``--version``
    loads the whole CLI, seconds for some)."""
    package = tmp_path / "node_modules" / "@google" / "gemini-cli"
    (package / "bundle").mkdir(parents=True)
    (package / "package.json").write_text(
        '{"name": "@google/gemini-cli", "version": "0.59.1", "bin": {"gemini": "bundle/g.js"}}')
    script = package / "bundle" / "g.js"
    script.write_text("#!/bin/sh\necho 9.9.9 > /dev/null; touch ran\n")
    script.chmod(0o755)
    link = tmp_path / "node_modules" / ".bin" / "gemini"
    link.parent.mkdir()
    link.symlink_to(script)
    assert package_version(str(link)) == (0, 59, 1)
    warning = version_warning("gemini", str(link), ("0.61.0", "0.62.0"))
    assert warning is not None and "gemini 0.59.1 is outside" in warning
    assert not (tmp_path / "ran").exists() and not Path("ran").exists()


def test_a_python_cli_s_version_is_read_from_its_distribution(tmp_path: Path) -> None:
    """aider's ``--version`` imports all of aider (seconds): its dist-info says it at once."""
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    info = site / "aider_chat-0.85.0.dist-info"
    info.mkdir(parents=True)
    (info / "entry_points.txt").write_text("[console_scripts]\naider = aider.main:main\n")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: aider-chat\nVersion: 0.85.0\n")
    script = fake_cli(tmp_path, "aider", "touch ran")
    venv_script = tmp_path / "venv" / "bin" / "aider"
    venv_script.parent.mkdir()
    script.rename(venv_script)
    assert distribution_version(str(venv_script)) == (0, 85, 0)
    warning = version_warning("aider", str(venv_script), ("0.86.2", "0.87.0"))
    assert warning is not None and "aider 0.85.0 is outside" in warning
    assert not (tmp_path / "ran").exists()
