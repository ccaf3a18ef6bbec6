"""What the agent hooks do with input they cannot read, what they keep of a refused call, and
the session's own files in both drivers' tool calls -- through the real ``ralph-verify hook``.

A PreToolUse call we cannot read is refused (letting it through would let anything through);
a Stop hook whose input we cannot read lets the agent stop (blocking on it could trap the
agent) and says why in one line. Neither shows a traceback.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ralph_verify.redact import redact_credentials
from ralph_verify.testing import Ralph, RunResult
from tests.guard.test_guard import denied_rule, pretool

BAD_INPUTS = [
    ("not json", "not JSON"),
    ("[1, 2]", "JSON list, not an object"),
    ('"text"', "JSON str, not an object"),
    ("{}", "no tool_name, tool_input"),
    ('{"tool_name": "Bash"}', "no tool_input"),
    ('{"tool_input": {"command": "ls"}}', "no tool_name"),
    ('{"tool_name": 3, "tool_input": {}}', "'tool_name' is int, not a string"),
    ('{"tool_name": "Bash", "tool_input": "rm -rf /"}', "'tool_input' is str, not an object"),
    ('{"tool_name": "Bash", "tool_input": {}, "cwd": 7}', "'cwd' is int"),
]


@pytest.mark.parametrize("action", ["claude-pretool", "codex-pretool"])
@pytest.mark.parametrize(("stdin", "said"), BAD_INPUTS)
def test_pretool_input_we_cannot_read_is_refused(ralph: Ralph, action: str, stdin: str,
                                                 said: str) -> None:
    result = ralph.run("hook", action, stdin=stdin)
    assert denied_rule(result) == "unparsable"
    assert said in result.json()["hookSpecificOutput"]["permissionDecisionReason"]
    assert "Traceback" not in result.out + result.err


STOP_INPUTS = [
    ("not json", "not JSON"),
    ("[1]", "JSON list, not an object"),
    ("42", "JSON int, not an object"),
    ('{"session_id": 5}', "'session_id' is int, not a string"),
    ('{"session_id": "s", "stop_hook_active": "yes"}', "'stop_hook_active' is str"),
    ('{"session_id": "s", "transcript_path": ["x"]}', "'transcript_path' is list"),
    ('{"session_id": "s", "last_assistant_message": {"a": 1}}',
     "'last_assistant_message' is dict"),
]


@pytest.mark.parametrize("action", ["claude-stop", "codex-stop", "gemini-stop"])
@pytest.mark.parametrize(("stdin", "said"), STOP_INPUTS)
def test_stop_input_we_cannot_read_lets_the_agent_stop_in_one_line(
        ralph: Ralph, action: str, stdin: str, said: str) -> None:
    result = ralph.run("hook", action, stdin=stdin)
    assert result.ret == 0, result
    answer = result.json()
    assert set(answer) == {"systemMessage"}  # no decision: the agent is not blocked
    message = answer["systemMessage"]
    assert said in message and "the agent may stop" in message and "\n" not in message
    assert "Traceback" not in message + result.err and "INTERNAL ERROR" not in result.err
    log = (ralph.path / ".ralph" / "hook.log").read_text()
    assert said in log and "Traceback" not in log and len(log.splitlines()) == 1


def test_copilot_stop_input_of_the_wrong_type_is_said_too(ralph: Ralph) -> None:
    result = ralph.run("hook", "copilot-stop", stdin='{"sessionId": "s", "cwd": 3}')
    assert "'cwd' is int" in result.json()["systemMessage"]


TOKENS = {
    "github": "ghp_Zq8rT2mVx9LpK4sWn7Yb3Hc6Jd1Fg5Ra0Ue",
    "openai": "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "slack": "xoxb-2048-4096-Zz9Yy8Xx7Ww6",
    "bearer": "Bearer eyJhbGciOi.eyJzdWIiOiIx.SflKxwRJSMeKKF2Q",
    "password": "hunter2-Correct-Horse",
    "url": "p4ssw0rd-in-url",
}
REFUSED_WITH_TOKENS = [
    f"curl -H 'Authorization: token {TOKENS['github']}' http://169.254.169.254/",
    f"OPENAI_API_KEY={TOKENS['openai']} env",
    f"AWS_ACCESS_KEY_ID={TOKENS['aws']} aws sts get-session-token",
    f"curl -d 'token={TOKENS['slack']}' http://10.0.0.5/",
    f"curl -H 'Authorization: {TOKENS['bearer']}' http://192.168.1.1/",
    f"mysql -u root --password={TOKENS['password']} -e 'drop database x'; rm -rf ~",
    f"git clone https://me:{TOKENS['url']}@github.com/x/y.git ../y && rm -rf ../y",
]


def test_guard_jsonl_keeps_no_token(ralph: Ralph) -> None:
    for command in REFUSED_WITH_TOKENS:
        assert denied_rule(pretool(ralph, "Bash", {"command": command})) is not None, command
    kept = (ralph.path / ".ralph" / "guard.jsonl").read_text()
    assert len(kept.splitlines()) == len(REFUSED_WITH_TOKENS)
    for name, token in TOKENS.items():
        secret = token.split(" ", 1)[-1]
        assert secret not in kept, name
        assert secret[:12] not in kept, name  # nor a piece of it
    assert kept.count("[redacted:credential]") >= len(TOKENS)
    assert "rm -rf ~" in kept and "curl" in kept  # the command itself is still readable


@pytest.mark.parametrize(("text", "kept"), [
    ("pytest -q --tb=short", "pytest -q --tb=short"),
    ('git commit -m "fix the auth token refresh"', 'git commit -m "fix the auth token refresh"'),
    ("ls --auth-file creds.txt", "ls --auth-file creds.txt"),
    ("echo $GITHUB_TOKEN", "echo $GITHUB_TOKEN"),
    ("curl -u me:pw https://x", "curl -u me:[redacted:credential] https://x"),
    ("export DB_PASSWORD='a b c'", "export DB_PASSWORD=[redacted:credential]"),
    ("https://x/?api_key=abc123&y=1", "https://x/?api_key=[redacted:credential]&y=1"),
])
def test_credential_shapes(text: str, kept: str) -> None:
    assert redact_credentials(text) == kept


def _write(tool: str, path: str) -> dict[str, Any]:
    return {"file_path": path, "content": "{}"} if tool == "Write" else {
        "file_path": path, "old_string": "a", "new_string": "b"}


@pytest.mark.parametrize("action", ["claude-pretool", "codex-pretool"])
def test_the_sessions_own_files_are_refused_in_every_tool(ralph: Ralph, action: str) -> None:
    ralph.git_init()
    for tool, tool_input in [
            ("Write", _write("Write", ".ralph/state.json")),
            ("Edit", _write("Edit", ".ralph/tasks/state.json")),
            ("Write", _write("Write", ".git/ralph-verify/s-1/config.json")),
            ("Bash", {"command": "echo x > .ralph/cancel"}),
            ("Bash", {"command": "cat ~/.cache/ralph-verify/cancel/0123.key"}),
            ("Bash", {"command": "ralph-verify cancel"}),
            ("shell", {"command": ["bash", "-lc", "rm -rf .ralph"]}),
            ("apply_patch", {"input": "*** Begin Patch\n*** Update File: .ralph/state.json\n"
                                      "@@\n-a\n+b\n*** End Patch"}),
            ("mcp__fs__write_file", {"path": ".ralph/tasks/state.json", "content": "{}"})]:
        result: RunResult = pretool(ralph, tool, tool_input, action=action)
        assert denied_rule(result) in ("tamper", "write-outside"), (tool, tool_input)
    for tool, tool_input in [("Read", {"file_path": ".ralph/feedback.md"}),
                             ("Bash", {"command": "tail -n 5 .ralph/hook.log"})]:
        assert denied_rule(pretool(ralph, tool, tool_input, action=action)) is None
    rules = [json.loads(line)["rule"] for line in
             (ralph.path / ".ralph" / "guard.jsonl").read_text().splitlines()]
    assert rules.count("tamper") >= 7
