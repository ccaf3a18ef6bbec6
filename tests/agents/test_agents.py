"""The ``cmd:`` and ``replay:`` agents, the shared runner, and the promise scan."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ralph_verify.agents import AgentOptions, AgentRequest
from ralph_verify.agents.cmd import CommandAgent
from ralph_verify.agents.replay import ReplayAgent
from ralph_verify.errors import UsageError
from ralph_verify.loop.promises import blocked_reason, find_promises
from ralph_verify.testing import Ralph
from tests.loop_helpers import history, state


def _request(ralph: Ralph, number: int = 1, prompt: str = "the prompt\n",
             timeout: float = 30) -> AgentRequest:
    folder = ralph.path / ".ralph" / "iterations" / f"{number:03d}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "prompt.md").write_text(prompt)
    return AgentRequest(prompt=prompt, prompt_file=folder / "prompt.md", iteration=number,
                        root=ralph.path, session_dir=ralph.path / ".ralph",
                        log_path=folder / "agent.log", timeout=timeout)


def test_cmd_agent_gets_prompt_and_environment(ralph: Ralph,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_TOKEN", "s3cr3t-value-123")
    script = ("import json, os, sys; print(json.dumps({'stdin': sys.stdin.read(), "
              "'file': os.environ['RALPH_PROMPT_FILE'], 'n': os.environ['RALPH_ITERATION'], "
              "'dir': os.environ['RALPH_SESSION_DIR'], 'cwd': os.getcwd(), 'argv': sys.argv[1:]}))"
              "; print('token', os.environ['SERVICE_TOKEN'], file=sys.stderr)")
    (ralph.path.parent / "show.py").write_text(script)
    command = f"{sys.executable} {ralph.path.parent / 'show.py'}"
    request = _request(ralph, number=3)
    result = CommandAgent(command, AgentOptions(extra_args=("--flag", "a b"))).run(request)
    assert result.exit_code == 0 and result.error is None and not result.timed_out
    seen = json.loads(result.text.splitlines()[0])
    assert seen == {"stdin": "the prompt\n", "file": str(request.prompt_file), "n": "3",
                    "dir": str(ralph.path / ".ralph"), "cwd": str(ralph.path),
                    "argv": ["--flag", "a b"]}
    log = request.log_path.read_text()
    assert "token [redacted:SERVICE_TOKEN]" in log and "s3cr3t" not in log


def test_cmd_agent_missing_program(ralph: Ralph) -> None:
    result = CommandAgent("surely-not-installed-agent --x", AgentOptions()).run(_request(ralph))
    assert result.error == ("agent command not found: 'surely-not-installed-agent' is not on "
                            "PATH (from --agent cmd:surely-not-installed-agent --x)")
    # A shell construct hides the program from the pre-check: the shell's 127 tells instead.
    shell = CommandAgent("cd . && surely-not-installed-agent", AgentOptions()).run(
        _request(ralph))
    assert shell.exit_code == 127 and shell.error is not None
    assert "not found" in shell.error


@pytest.mark.parametrize(("given", "runs"), [
    ("'printf' '%s' 'x'", "'printf' '%s' 'x'"),  # quoted words: not one quoted command
    ("\"printf\" x", "\"printf\" x"),
    ("'printf x'", "printf x"),  # one quoted command (from a config file): its quotes go
    ("\"printf '%s' x\"", "printf '%s' x"),
])
def test_cmd_agent_quotes_are_the_shells(ralph: Ralph, given: str, runs: str) -> None:
    agent = CommandAgent(given, AgentOptions())
    assert agent.command == runs
    assert agent.preflight() is None
    result = agent.run(_request(ralph))
    assert result.exit_code == 0 and result.error is None and result.text == "x", result


@pytest.mark.parametrize("command", ["cat>/dev/null;touch done.txt",
                                     "(cd . && touch done.txt)",
                                     "cat|tee done.txt"])
def test_cmd_agent_accepts_any_valid_shell_command(ralph: Ralph, command: str) -> None:
    result = ralph.run("run", "--agent", f"cmd:{command}", "--until", "files:done.txt",
                       "--max-iterations", "1", "make done.txt")
    assert result.ret == 0, result
    assert state(ralph)["verdict"]["verdict"] == "complete"


def test_cmd_agent_that_is_not_valid_shell_gets_the_shells_own_message(ralph: Ralph) -> None:
    result = ralph.run("run", "--agent", "cmd:echo (", "--until", "files:done.txt",
                       "--max-iterations", "1", "make done.txt")
    # Refused before the baseline: nothing spent, nothing of .ralph/ written.
    assert result.ret == 14, result
    assert "the agent command is not valid shell: " in result.err, result.err
    assert "syntax error" in result.err.lower() and "found before the baseline" in result.err
    assert not (ralph.path / ".ralph" / "state.json").exists()
    assert not (ralph.path / ".ralph" / "iterations" / "001" / "agent.log").exists()


def test_cancel_kills_the_running_agent(ralph: Ralph) -> None:
    request = _request(ralph)
    agent = CommandAgent(f"{sys.executable} -c 'import time; time.sleep(30)'", AgentOptions())
    timer = threading.Timer(0.3, request.cancel.set)
    timer.start()
    started = time.monotonic()
    result = agent.run(request)
    timer.join()
    assert result.cancelled and time.monotonic() - started < 5


def test_replay_agent_applies_runs_and_prints(ralph: Ralph, tmp_path: Path) -> None:
    ralph.makefile("app.py", "value = 1\n")
    ralph.git_init()
    steps = tmp_path / "steps"
    steps.mkdir()
    (steps / "001.patch").write_text(
        "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-value = 1\n+value = 2\n")
    (steps / "001.py").write_text("import pathlib\npathlib.Path('new.txt').write_text('n')\n"
                                  "print('script ran')\n")
    (steps / "001.txt").write_text("I changed app.py.\n<promise>COMPLETE</promise>\n")
    (steps / "003.txt").write_text("third\n")
    agent = ReplayAgent(str(steps), AgentOptions())
    first = agent.run(_request(ralph, 1))
    assert first.exit_code == 0
    assert (ralph.path / "app.py").read_text() == "value = 2\n"
    assert (ralph.path / "new.txt").read_text() == "n"
    assert first.text == "script ran\nI changed app.py.\n<promise>COMPLETE</promise>\n"
    nothing = agent.run(_request(ralph, 2))
    assert nothing.exit_code == 0 and nothing.text == ""
    assert agent.run(_request(ralph, 3)).text == "third\n"
    # A patch that does not apply is a failed turn (git's message in the log), not a crash.
    (steps / "004.patch").write_text((steps / "001.patch").read_text())
    failed = agent.run(_request(ralph, 4))
    assert failed.exit_code != 0 and "patch does not apply" in failed.text
    with pytest.raises(UsageError, match="no such folder"):
        ReplayAgent(str(tmp_path / "missing"), AgentOptions())


def test_replay_agent_in_a_run(ralph: Ralph, tmp_path: Path) -> None:
    steps = tmp_path / "steps"
    steps.mkdir()
    (steps / "002.py").write_text("open('done.txt', 'w').close()\n")
    result = ralph.run("run", "--agent", f"replay:{steps}", "--until", "files:done.txt",
                       "-p", "no:breaker", "make done.txt")
    assert result.ret == 0, result
    assert [line["files_changed"] for line in history(ralph)] == [[], ["done.txt"]]


@pytest.mark.parametrize(("output", "found"), [
    ("<promise>COMPLETE</promise>\n", ["COMPLETE"]),
    ("done. <promise>COMPLETE</promise>\n", ["COMPLETE"]),
    ("<promise>complete</promise>\n<PROMISE>COMPLETE</PROMISE>\n", ["complete"]),
    ("<promise>BLOCKED: no DB</promise>\n", ["BLOCKED: no DB"]),
    ("< promise>COMPLETE</promise>\n<promise>COMPLETE\n</promise>\n", []),
    # Lines that stand verbatim in the prompt are an echo, not the agent's own words.
    ("end with the tag <promise>COMPLETE</promise> on a line of its own\n", []),
    ("like <promise>BLOCKED: what you need</promise>\n", []),
    ("<promise>BLOCKED: what you need</promise>\n", []),
])
def test_find_promises(output: str, found: list[str]) -> None:
    prompt = ("When done, end with the tag <promise>COMPLETE</promise> on a line of its own\n"
              "If stuck, end with a line like <promise>BLOCKED: what you need</promise>\n")
    assert find_promises(output, prompt) == found


def test_blocked_reason() -> None:
    assert blocked_reason(["COMPLETE", "BLOCKED:  need a key "]) == "need a key"
    assert blocked_reason(["BLOCKED:"]) == "no reason given"
    assert blocked_reason(["COMPLETE"]) is None


def _max_rss_kb(ralph: Ralph, megabytes: int) -> int:
    """Peak RSS of a whole `run` whose agent prints ``megabytes`` MB (ralph-verify's own
    process and the agent, the largest of them: the agent writes in 64 KB blocks)."""
    script = ralph.path.parent / "flood.py"
    script.write_text("import sys\nblock = (b'x' * 1023 + b'\\n') * 64\n"
                      f"for _ in range({megabytes} * 16):\n    sys.stdout.buffer.write(block)\n"
                      "print('<promise>COMPLETE</promise>')\n")
    proc = subprocess.Popen([sys.executable, "-m", "ralph_verify", "run", "--agent",
                             f"cmd:{sys.executable} {script}", "--no-sandbox", "--until",
                             "files:done.txt",
                             "--max-iterations", "1", "x"], cwd=ralph.path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 10
    return usage.ru_maxrss


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KB on Linux")
def test_huge_agent_output_keeps_memory_bounded(ralph: Ralph) -> None:
    small = _max_rss_kb(ralph, 1)
    big = _max_rss_kb(ralph, 50)
    log = ralph.path / ".ralph" / "iterations" / "001" / "agent.log"
    assert log.stat().st_size > 50 * 1024 * 1024
    assert history(ralph)[0]["promises"] == ["COMPLETE"]  # read from the bounded tail
    # 50 times the output, (almost) the same peak memory: it does not scale with output.
    assert big - small < 16 * 1024, (small, big)
    assert state(ralph)["verdict"]["verdict"] == "max-iterations"
