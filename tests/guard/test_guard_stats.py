"""Safety statistics: the guard's refusals during a session, counted by rule, in ``status``,
``status --json``, ``run --json`` and the HTML report, so a user sees what the agent tried."""

from __future__ import annotations

import json
import shlex
import sys

from ralph_verify.testing import Ralph


def hook_call(command: str) -> str:
    """A shell line that calls the guard as Claude Code would, with one Bash tool call."""
    payload = json.dumps({"session_id": "s-1", "hook_event_name": "PreToolUse",
                          "tool_name": "Bash", "tool_input": {"command": command}})
    return (f"echo {shlex.quote(payload)} | {shlex.quote(sys.executable)} -m ralph_verify "
            "hook claude-pretool >> answers.txt\n")


def test_refusals_are_counted_by_rule_for_the_session(ralph: Ralph) -> None:
    # A refusal of an earlier session does not count in this one.
    (ralph.path / ".ralph").mkdir()
    (ralph.path / ".ralph" / "guard.jsonl").write_text(json.dumps(
        {"time": "2001-01-01T00:00:00+00:00", "rule": "sudo"}) + "\n")
    ralph.makefile("agent.sh", hook_call("cat .env") + hook_call("rm -rf ~")
                   + hook_call("printenv") + hook_call("git status")
                   + hook_call("source .env") + "echo done > done.txt\n")
    ralph.git_init()
    result = ralph.run("run", "--agent", "cmd:bash agent.sh", "--until", "files:done.txt",
                       "--json", "run.json", "do it")
    assert result.ret == 0, result
    answers = (ralph.path / "answers.txt").read_text().splitlines()
    assert len(answers) == 4  # git status went through without an answer
    expected = {"refused": 4, "by_rule": {"env-dump": 1, "read-secrets": 2, "rm-outside": 1}}
    assert json.loads((ralph.path / "run.json").read_text())["safety"] == expected

    status = ralph.run("status")
    assert "guard: 4 tool calls refused (env-dump 1, read-secrets 2, rm-outside 1)" in status.out
    assert json.loads(ralph.run("status", "--json").out)["safety"] == expected

    report = ralph.run("report", "-o", "report.html")
    assert report.ret == 0, report
    page = (ralph.path / "report.html").read_text()
    assert '<table id="safety">' in page
    assert '<td><code>read-secrets</code></td><td>2</td>' in page
    assert "sudo" not in page.split('<table id="safety">')[1].split("</table>")[0]
