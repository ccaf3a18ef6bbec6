"""The real Claude Code CLI with ralph-verify's hooks from ``init claude``, offline.

Claude Code runs headless (``claude -p``) against the scripted model server;
its Stop and PreToolUse hooks are the ones ``ralph-verify init claude`` wrote
into the project's ``.claude/settings.json``, and they run ralph-verify for
real. The model's requests show what the hooks sent it.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.testing import Ralph
from ralph_verify.testing.server import (
    ModelServer,
    RecordedRequest,
    claude_bash,
    claude_write,
    text,
)
from tests.agents_setup import AgentCLI
from tests.guard.test_sandbox import bwrap  # noqa: F401 - the fixture: bubblewrap installed

pytestmark = pytest.mark.agents_e2e

WRONG = "def add(a, b):\n    return a - b\n"
RIGHT = "def add(a, b):\n    return a + b\n"
FAILURE = "assert -1 == 5"
HOOK_COMMAND = f"{shlex.quote(sys.executable)} -m ralph_verify"


#: The long loops below make no progress on purpose: keep the stall breaker out of them.
NO_BREAKER = "[tool.ralph-verify]\nstall-no-change = 0\nstall-same-errors = 0\n" \
             "stall-no-progress = 0\n"


def make_project(ralph: Ralph, *, block_cap: bool = True, pyproject: str = "") -> None:
    if pyproject:
        ralph.makepyproject(pyproject)
    ralph.makepyfile(calc="def add(a, b):\n    raise NotImplementedError\n",
                     **{"tests/test_calc": "from calc import add\n\n\n"
                                           "def test_add():\n    assert add(2, 3) == 5\n"})
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()
    result = ralph.run("init", "claude", "--hook-command", HOOK_COMMAND)
    assert result.ret == 0, result
    if not block_cap:
        path = ralph.path / ".claude" / "settings.json"
        settings = json.loads(path.read_text())
        del settings["env"]
        path.write_text(json.dumps(settings))


def claude(cli: AgentCLI, home: Path, server: ModelServer, cwd: Path, prompt: str,
           *args: str) -> subprocess.Popen[str]:
    env = cli.env(home, server.url)
    return subprocess.Popen(
        [str(cli.executable), "-p", prompt, "--dangerously-skip-permissions",
         "--output-format", "json", "--model", "claude-test-model", *args],
        cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str], timeout: float = 240) -> dict[str, Any]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"claude did not finish in {timeout}s: {out[-2000:]} {err[-2000:]}"
                             ) from None
    assert proc.returncode == 0, out[-3000:] + err[-3000:]
    result = json.loads(out[out.index("{"):])
    assert isinstance(result, dict)
    return result


def state(ralph: Ralph) -> dict[str, Any]:
    data = json.loads((ralph.path / ".ralph" / "state.json").read_text())
    assert isinstance(data, dict)
    return data


def feedback_in(request: RecordedRequest) -> str:
    """The last user message: Claude Code puts a Stop hook's block reason there."""
    return request.last_user_text()


def test_stop_hook_drives_claude_until_the_tests_pass(
        ralph: Ralph, claude_cli: AgentCLI, agent_home: Path, model_server: ModelServer) -> None:
    make_project(ralph)
    assert ralph.run("start", "--until", "tests", "--max-iterations", "5").ret == 0
    model_server.script(claude_write("calc.py", WRONG), text("Implemented add()."),
                        claude_write("calc.py", RIGHT), text("Fixed the sign."))
    result = finish(claude(claude_cli, agent_home, model_server, ralph.path,
                           "Implement add() in calc.py."))
    requests = model_server.model_requests("anthropic")
    assert len(requests) == 4, [r.last_user_text()[-300:] for r in requests]
    assert not model_server.errors
    # The block reason reached the model, with the failing test from the checks.
    blocked = feedback_in(requests[2])
    assert "Stop hook feedback" in blocked
    assert FAILURE in blocked and "test_add" in blocked and "iteration 1 of 5" in blocked
    assert FAILURE not in requests[1].text
    assert (ralph.path / "calc.py").read_text() == RIGHT
    data = state(ralph)
    assert data["verdict"]["verdict"] == "complete" and data["iteration"] == 2
    assert data["hook"]["session_id"] == result["session_id"]
    assert result["is_error"] is False


def test_a_second_session_in_the_project_is_not_hijacked(
        ralph: Ralph, claude_cli: AgentCLI, tmp_path: Path, model_server: ModelServer) -> None:
    make_project(ralph)
    mine, other = str(uuid.uuid4()), str(uuid.uuid4())
    assert ralph.run("start", "--until", "tests", "--session-id", mine).ret == 0
    model_server.script(claude_write("calc.py", WRONG), text("Implemented add()."),
                        claude_write("calc.py", RIGHT), text("Fixed the sign."))
    with ModelServer(cwd=ralph.path) as second:
        second.script(text("The project has a calc module."))
        first_proc = claude(claude_cli, tmp_path / "home-1", model_server, ralph.path,
                            "Implement add() in calc.py.", "--session-id", mine)
        second_proc = claude(claude_cli, tmp_path / "home-2", second, ralph.path,
                             "What is in this project?", "--session-id", other)
        other_result = finish(second_proc)
        first_result = finish(first_proc)
        assert len(second.model_requests()) == 1  # its stop was not blocked
        assert other_result["result"] == "The project has a calc module."
    assert first_result["session_id"] == mine
    assert len(model_server.model_requests()) == 4
    assert FAILURE in feedback_in(model_server.model_requests()[2])
    data = state(ralph)
    assert data["hook"]["session_id"] == mine and data["verdict"]["verdict"] == "complete"


def test_a_loop_longer_than_the_block_cap_runs_to_its_own_limit(
        ralph: Ralph, claude_cli: AgentCLI, agent_home: Path, model_server: ModelServer) -> None:
    """``init claude`` raised CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: 11 blocks in a row, no tool call."""
    make_project(ralph, pyproject=NO_BREAKER)
    # A cheap check: these loops are about the harness, not about pytest.
    assert ralph.run("start", "--until", "files:DONE", "--max-iterations", "12").ret == 0
    model_server.script(*(text(f"Still thinking ({n}).") for n in range(12)))
    finish(claude(claude_cli, agent_home, model_server, ralph.path, "Implement add()."))
    assert len(model_server.model_requests()) == 12
    data = state(ralph)
    assert data["iteration"] == 12 and data["verdict"]["verdict"] == "max-iterations"
    assert data["hook"]["blocks_in_a_row"] == 11


def test_without_a_raised_cap_the_loop_says_why_claude_stopped(
        ralph: Ralph, claude_cli: AgentCLI, agent_home: Path, model_server: ModelServer) -> None:
    make_project(ralph, block_cap=False, pyproject=NO_BREAKER)
    assert ralph.run("start", "--until", "files:DONE", "--max-iterations", "12").ret == 0
    model_server.script(*(text(f"Still thinking ({n}).") for n in range(12)))
    result = finish(claude(claude_cli, agent_home, model_server, ralph.path, "Implement add()."))
    blocks = len(model_server.model_requests())
    # Claude Code ended the turn by itself after its 9th block (its default cap) ...
    assert blocks == 9 and result["result"] == ""
    data = state(ralph)
    # ... and the loop, which knew that cap, says so and waits for the next message.
    assert data["status"] == "running" and data["iteration"] == 9
    assert data["hook"]["blocks_in_a_row"] == 9
    assert data["hook"]["block_cap_reached"]["cap"] == 9  # marked for 'status --watch'
    assert "ends a turn after 9 Stop-hook blocks" in data["hook"]["note"]
    status = ralph.run("status")
    status.stdout.fnmatch_lines(["*driven by claude's Stop hook*note: Claude Code ends a turn "
                                 "after 9 Stop-hook blocks*send any message to go on*"])


def test_the_guard_refuses_a_force_push_in_a_real_run(
        ralph: Ralph, claude_cli: AgentCLI, agent_home: Path, model_server: ModelServer) -> None:
    make_project(ralph)
    model_server.script(claude_bash("git push --force origin main"),
                        text("The push was refused, so I stopped."))
    finish(claude(claude_cli, agent_home, model_server, ralph.path, "Publish the work."))
    requests = model_server.model_requests()
    assert len(requests) == 2
    assert "ralph-verify guard refused this Bash call (rule force-push)" in requests[1].text
    refusals = (ralph.path / ".ralph" / "guard.jsonl").read_text().splitlines()
    assert [json.loads(line)["rule"] for line in refusals] == ["force-push"]


PLUGIN = Path(__file__).resolve().parents[2] / "claude-plugin"


def test_the_plugin_folder_and_its_slash_command(
        ralph: Ralph, claude_cli: AgentCLI, agent_home: Path, model_server: ModelServer) -> None:
    """``--plugin-dir claude-plugin``: its hooks register; ``/ralph-verify:ralph-verify start``
    starts a loop bound to this session, with the user's words intact (no shell parses them)."""
    ralph.makepyfile(calc="def add(a, b):\n    raise NotImplementedError\n",
                     **{"tests/test_calc": "from calc import add\n\n\n"
                                           "def test_add():\n    assert add(2, 3) == 5\n"})
    ralph.git_init()
    task = "make add() right, so that 2 + 3 > 4 (see <tests/test_calc.py>); don't \"cheat\""
    model_server.script(claude_write("calc.py", WRONG), text("Implemented add()."),
                        claude_write("calc.py", RIGHT), text("Fixed the sign."))
    result = finish(claude(claude_cli, agent_home, model_server, ralph.path,
                           f"/ralph-verify:ralph-verify start --until tests --max-iterations 4 "
                           f"{task}", "--plugin-dir", str(PLUGIN)))
    requests = model_server.model_requests()
    assert len(requests) == 4
    first = requests[0].last_user_text()
    assert "ralph-verify loop started" in first and "NotImplementedError" in first
    assert FAILURE in feedback_in(requests[2])
    data = state(ralph)
    assert data["task"] == task
    assert data["hook"]["session_id"] == result["session_id"]
    assert data["hook"]["bound_by"] == "start"
    assert data["verdict"]["verdict"] == "complete"

    with ModelServer(cwd=ralph.path) as second:
        second.script(text("The loop is complete."))
        finish(claude(claude_cli, agent_home, second, ralph.path,
                      "/ralph-verify:ralph-verify status", "--plugin-dir", str(PLUGIN)))
        shown = second.model_requests()[0].last_user_text()
        assert "verdict: complete" in shown and "agent claude (Stop hook)" in shown


def test_run_gives_claude_the_guard(ralph: Ralph, claude_cli: AgentCLI, agent_home: Path,
                                    model_server: ModelServer) -> None:
    """``ralph-verify run --agent claude``: the adapter passes the guard with --settings."""
    ralph.makepyfile(calc="def add(a, b):\n    raise NotImplementedError\n",
                     **{"tests/test_calc": "from calc import add\n\n\n"
                                           "def test_add():\n    assert add(2, 3) == 5\n"})
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()
    model_server.script(claude_bash("git push --force origin main"), claude_write("calc.py", RIGHT),
                        text("Fixed add()."))
    env = claude_cli.env(agent_home, model_server.url)
    proc = subprocess.run(
        [sys.executable, "-m", "ralph_verify", "run", "--agent", "claude", "--yolo", "--until",
         "tests", "--max-iterations", "2", "--agent-timeout", "120", "Fix add()."],
        cwd=ralph.path, env=env, capture_output=True, text=True, timeout=240,
        stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    requests = model_server.model_requests()
    assert len(requests) == 3
    assert "ralph-verify guard refused this Bash call (rule force-push)" in requests[1].text
    refusals = (ralph.path / ".ralph" / "guard.jsonl").read_text().splitlines()
    assert [json.loads(line)["rule"] for line in refusals] == ["force-push"]
    assert "guard: 1 tool calls refused (force-push 1)" in ralph.run("status").out


def test_run_puts_claude_in_the_sandbox_by_default(claude_cli: AgentCLI, ralph: Ralph,
                                                   model_server: ModelServer,
                                                   bwrap: str) -> None:  # noqa: F811
    """``run --agent claude`` with no flag and the guard off: Claude Code works from a home
    folder that is read-only but for its own state, a deletion outside the project fails,
    and the loop completes."""
    import os
    import shutil
    import tempfile

    # In the home folder, which the sandbox shows read-only (/tmp and /var/tmp are private).
    outside = Path(tempfile.mkdtemp(prefix=".ralph-claude-", dir=Path.home()))
    try:
        home, precious = outside / "home", outside / "precious"
        precious.mkdir()
        (precious / "keep.txt").write_text("keep\n")
        ralph.makepyfile(calc="def add(a, b):\n    raise NotImplementedError\n",
                         **{"tests/test_calc": "from calc import add\n\n\n"
                                               "def test_add():\n    assert add(2, 3) == 5\n"})
        ralph.makefile(".gitignore", ".ralph/\n")
        ralph.makepyproject("[tool.ralph-verify.guard]\nenabled = false\n")
        ralph.git_init()
        model_server.script(claude_bash(f"rm -rf {precious} && echo gone"),
                            claude_write("calc.py", RIGHT), text("Fixed add()."))
        env = claude_cli.env(home, model_server.url)
        env["PATH"] = f"{Path(bwrap).parent}{os.pathsep}{env['PATH']}"
        proc = subprocess.run(
            [sys.executable, "-m", "ralph_verify", "run", "--agent", "claude", "--yolo",
             "--until", "tests", "--max-iterations", "2", "--agent-timeout", "120",
             "Fix add()."],
            cwd=ralph.path, env=env, capture_output=True, text=True, timeout=240,
            stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert "without a sandbox" not in proc.stderr
        assert (precious / "keep.txt").read_text() == "keep\n"
        second = model_server.model_requests()[1].text
        assert "Read-only file system" in second, second[-2000:]
        assert (ralph.path / "calc.py").read_text() == RIGHT
    finally:
        shutil.rmtree(outside, ignore_errors=True)
