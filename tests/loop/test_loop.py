"""``ralph-verify run`` end to end: real checks, ``cmd:`` agents, the verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_verify import Loop, Verdict
from ralph_verify.agents import AgentRequest, AgentResult
from ralph_verify.loop.session import Iteration
from ralph_verify.testing import Ralph
from tests.loop_helpers import CALC, CALC_TESTS, agent, history, prompt, state

FIX_ONE_PER_TURN = """\
src = pathlib.Path("calc.py").read_text()
if N == 1:
    src = src.replace("return a - b", "return a + b")
if N == 2:
    src = src.replace("return a + b\\n\\n\\ndef mul", "return a + b\\n\\n\\ndef mul")
    src = src.replace("def mul(a, b):\\n    return a + b", "def mul(a, b):\\n    return a * b")
pathlib.Path("calc.py").write_text(src)
print(f"turn {N} done")
"""


def test_completes_when_the_checks_pass_and_feeds_back_failing_test_ids(ralph: Ralph) -> None:
    ralph.makepyfile(calc=CALC, **{"tests/test_calc": CALC_TESTS})
    result = ralph.run("run", "--agent", agent(ralph, FIX_ONE_PER_TURN), "--until", "tests",
                       "make the tests pass")
    assert result.ret == 0, result
    # integrity is on by default in `run` (skipped at baseline: its own baseline comes next;
    # a skipped check is said as skipped, never counted as passed).
    result.stdout.fnmatch_lines(["checks: tests from --until, plus integrity, added by run "
                                 "(integrity is on by default)",
                                 "baseline: 0/2 checks passed, 1 failed, 1 skipped*",
                                 "iteration 1: agent exit 0*",
                                 "iteration 2: 2/2 checks passed*",
                                 "verdict: complete — every check passes*",
                                 "logs: .ralph/ (state.json, history.jsonl, progress.md*"])
    # The first prompt names both failing tests of the baseline...
    first = prompt(ralph, 1)
    assert "make the tests pass" in first
    assert "tests/test_calc.py::test_add" in first and "tests/test_calc.py::test_mul" in first
    assert "This is iteration 1 of at most 20" in first
    # ...the second names what iteration 1 left failing, marked as there from the start.
    second = prompt(ralph, 2)
    assert "tests/test_calc.py::test_mul" in second
    assert "tests/test_calc.py::test_add" not in second
    assert "(failing since the start: part of the task)" in second
    assert "iteration 1: changed 1 file (calc.py)" in second
    data = state(ralph)
    assert data["verdict"] == {"verdict": "complete", "source": "completion",
                               "reason": "every check passes (2 of 2)"}
    assert data["status"] == "finished" and data["iteration"] == 2
    lines = history(ralph)
    assert [line["iteration"] for line in lines] == [1, 2]
    assert lines[0]["files_changed"] == ["calc.py"]
    assert lines[0]["checks"][0]["status"] == "failed"
    assert lines[0]["checks"][0]["counts"]["failed"] == 1
    assert lines[0]["agent"]["exit_code"] == 0
    assert lines[0]["prompt"] == ".ralph/iterations/001/prompt.md"
    assert "breaker" in lines[0]["plugin_state"]
    log = (ralph.path / ".ralph/iterations/002/agent.log").read_text()
    assert log == "turn 2 done\n"
    assert "## Iteration 2" in (ralph.path / ".ralph/progress.md").read_text()


def test_the_promise_alone_never_completes(ralph: Ralph) -> None:
    ralph.makepyfile(calc=CALC, **{"tests/test_calc": CALC_TESTS})
    claims = agent(ralph, 'print("all fixed!")\nprint("<promise>COMPLETE</promise>")\n')
    result = ralph.run("run", "--agent", claims, "--until", "tests", "--max-iterations", "2",
                       "-p", "no:breaker", "fix it")
    assert result.ret == 10, result
    assert state(ralph)["verdict"]["verdict"] == "max-iterations"
    assert [line["promises"] for line in history(ralph)] == [["COMPLETE"], ["COMPLETE"]]
    assert "Your last turn claimed COMPLETE, but these checks still do not pass: tests" \
        in prompt(ralph, 2)


def test_a_promise_echoed_from_the_prompt_does_not_count(ralph: Ralph) -> None:
    # Turn 1 does the work and echoes its prompt (which explains the tags); only turn 2's
    # own tag satisfies `promise`.
    body = """\
    pathlib.Path("done.txt").write_text("x")
    if N == 1:
        sys.stdout.write(sys.stdin.read())
    else:
        print("<promise>COMPLETE</promise>")
    """
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "files:done.txt,promise",
                       "--max-iterations", "3", "-p", "no:breaker", "write done.txt")
    assert result.ret == 0, result
    lines = history(ralph)
    assert [line["promises"] for line in lines] == [[], ["COMPLETE"]]
    assert "<promise>COMPLETE</promise>" in (ralph.path / ".ralph/iterations/001/agent.log"
                                             ).read_text()
    assert {c["spec"]: c["status"] for c in lines[0]["checks"]} == {
        "files:done.txt": "passed", "promise": "failed", "integrity": "passed"}
    assert "did not print <promise>COMPLETE</promise>" in prompt(ralph, 2)


def test_blocked(ralph: Ralph) -> None:
    blocked = agent(ralph, 'print("<promise>BLOCKED: I need the staging password</promise>")\n')
    result = ralph.run("run", "--agent", blocked, "--until", "files:done.txt", "do it")
    assert result.ret == 12, result
    result.stdout.fnmatch_lines(["verdict: blocked — the agent is blocked: I need the staging "
                                 "password"])


def test_max_time(ralph: Ralph) -> None:
    slow = agent(ralph, "time.sleep(0.7)\n")
    result = ralph.run("run", "--agent", slow, "--until", "files:done.txt", "--max-time", "1",
                       "-p", "no:breaker", "do it")
    assert result.ret == 13, result
    assert state(ralph)["verdict"]["verdict"] == "budget"
    assert "(--max-time)" in state(ralph)["verdict"]["reason"]
    assert len(history(ralph)) in (1, 2)


def test_passing_baseline_completes_without_calling_the_agent(ralph: Ralph) -> None:
    marker = ralph.path.parent / "agent-ran"
    result = ralph.run("run", "--agent", agent(ralph, f"open({str(marker)!r}, 'w')\n"),
                       "--until", "files:pyproject.toml", "do it")
    assert result.ret == 0, result
    assert not marker.exists()
    assert state(ralph)["verdict"]["reason"] == ("every check passes already; the agent was "
                                                 "not called")
    assert not (ralph.path / ".ralph/iterations/001").exists()


def test_a_check_erroring_at_baseline_stops_before_the_agent(ralph: Ralph) -> None:
    marker = ralph.path.parent / "agent-ran"
    result = ralph.run("run", "--agent", agent(ralph, f"open({str(marker)!r}, 'w')\n"),
                       "--until", 'cmd:"sleep 5"', "--timeout", "0.3", "do it")
    assert result.ret == 3, result
    assert "the baseline verification could not decide" in result.err
    assert "cmd:" in result.err and "timed out" in result.err
    assert not marker.exists()
    assert state(ralph)["error"] == "a check could not decide at baseline"


def test_agent_not_found(ralph: Ralph) -> None:
    result = ralph.run("run", "--agent", "cmd:no-such-agent-program --go", "--until",
                       "files:done.txt", "do it")
    assert result.ret == 14, result
    # Found before the baseline: nothing is run or spent (the README's promise).
    assert result.err.startswith("ERROR: agent command not found: 'no-such-agent-program'")
    assert "found before the baseline; nothing was run" in result.err
    assert "baseline" not in result.out


def test_agent_failing_repeatedly(ralph: Ralph) -> None:
    result = ralph.run("run", "--agent", agent(ralph, "sys.exit(2)\n"), "--until",
                       "files:done.txt", "--max-agent-failures", "2", "-p", "no:breaker", "x")
    assert result.ret == 14, result
    assert "failed 2 times in a row (last: exited 2" in state(ralph)["verdict"]["reason"]


def test_agent_timeout_kills_the_whole_group(ralph: Ralph) -> None:
    body = """\
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    pathlib.Path(os.environ["RALPH_SESSION_DIR"], "grandchild").write_text(str(child.pid))
    time.sleep(60)
    """
    result = ralph.run("run", "--agent", agent(ralph, body), "--until", "files:done.txt",
                       "--agent-timeout", "1", "--max-agent-failures", "1", "x")
    assert result.ret == 14, result
    assert result.duration < 15
    record = history(ralph)[0]["agent"]
    assert record["timed_out"] is True
    assert "timed out" in state(ralph)["verdict"]["reason"]
    # The grandchild is gone too (the autouse fixture would also fail the test).
    from tests.loop_helpers import pid_alive

    assert not pid_alive(int((ralph.path / ".ralph/grandchild").read_text()))


def test_template_and_notes(ralph: Ralph) -> None:
    ralph.makefile("tmpl.md", "DO: {{task}} ({{iteration}}/{{max_iterations}})\n"
                              "{{feedback}}\n---\n{{progress}}\n")
    result = ralph.run("run", "--agent", agent(ralph, 'print("<promise>COMPLETE</promise>")\n'),
                       "--until", "files:done.txt", "--template", "tmpl.md",
                       "--max-iterations", "2", "-p", "no:breaker", "write done.txt")
    assert result.ret == 10, result
    text = prompt(ralph, 2)
    assert text.startswith("DO: write done.txt (2/2)\n# Verification: 1 of 2")
    assert "# Notes from the loop\n\nYour last turn claimed COMPLETE" in text

    ralph.makefile("bad.md", "{{task}} {{nope}}")
    bad = ralph.run("run", "--agent", "cmd:true", "--until", "files:x", "--template", "bad.md",
                    "x")
    assert bad.ret == 2
    assert "unknown placeholder(s) {{nope}}" in bad.err


def test_usage_errors(ralph: Ralph) -> None:
    no_agent = ralph.run("run", "--until", "files:x", "task")
    assert no_agent.ret == 2 and "no agent: pass --agent" in no_agent.err
    unknown = ralph.run("run", "--agent", "robot", "--until", "files:x", "task")
    assert unknown.ret == 2 and "unknown agent 'robot'; known agents:" in unknown.err
    assert "cmd" in unknown.err and "replay" in unknown.err
    no_task = ralph.run("run", "--agent", "cmd:true", "--until", "files:x")
    assert no_task.ret == 2 and "no task: pass -P PROMPT.md" in no_task.err


def test_prompt_file_and_python_api(ralph: Ralph, tmp_path: Path) -> None:
    ralph.makefile("TASK.md", "Create done.txt please.\n")
    seen: list[Iteration] = []
    body = 'if N == 2:\n    pathlib.Path("done.txt").write_text("x")\n'
    loop = Loop(agent=agent(ralph, body), until=["files:done.txt"], max_iterations=5,
                prompt_file=ralph.path / "TASK.md", root=ralph.path, quiet=True,
                on_iteration_end=seen.append)
    result = loop.run()
    assert result.verdict is Verdict.COMPLETE and result.exit_code == 0
    assert [it.number for it in result.iterations] == [1, 2]
    assert [it.number for it in seen] == [1, 2]
    assert seen[1].files_changed == ["done.txt"]
    assert result.verification is not None and result.verification.passed
    assert "Create done.txt please." in prompt(ralph, 1)
    assert result.to_json()["verdict"] == "complete"


@pytest.mark.parametrize("json_flag", [True])
def test_status_after_a_run(ralph: Ralph, json_flag: bool) -> None:
    assert ralph.run("status").ret == 2  # no session yet: an ERROR (exit 2)
    ralph.run("run", "--agent", "cmd:true", "--until", "files:done.txt", "--max-iterations",
              "1", "x")
    result = ralph.run("status")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["session * · finished", "iteration 1/1 · elapsed * · agent "
                                 "cmd:true", "checks: 1/2 passed",
                                 "  FAILED  files:done.txt*",
                                 "breaker: closed (*",
                                 "verdict: max-iterations — reached the limit of 1*",
                                 "logs: .ralph/iterations/001"])
    assert ralph.run("status", "--json").json()["verdict"]["verdict"] == "max-iterations"


class _PricedAgent:
    """An agent object (the Python API accepts any ``Agent``) that reports its cost."""

    name = "priced"

    def run(self, request: AgentRequest) -> AgentResult:
        request.log_path.write_text("spent some money\n")
        return AgentResult(exit_code=0, duration_s=0.01, text="spent some money\n",
                           cost_usd=0.75, input_tokens=1000, output_tokens=50)


def test_max_cost_with_an_agent_that_reports_cost(ralph: Ralph) -> None:
    result = Loop(agent=_PricedAgent(), until="files:done.txt", task="x", root=ralph.path,
                  quiet=True, args=["--max-cost", "2", "-p", "no:breaker"]).run()
    assert result.verdict is Verdict.BUDGET and result.exit_code == 13
    assert len(result.iterations) == 3  # 0.75, 1.50, 2.25 >= 2
    assert result.reason == "the agent reported $2.25, the limit is $2.00 (--max-cost)"
    line = history(ralph)[0]
    assert line["agent"]["cost_usd"] == 0.75 and line["agent"]["input_tokens"] == 1000


def test_each_agent_run_gets_what_is_left_of_max_cost(ralph: Ralph) -> None:
    class Spender:
        """An agent that reports a cost, as the CLI adapters do, and records its budget."""

        name = "spender"

        def __init__(self) -> None:
            self.budgets: list[float | None] = []

        def run(self, request: AgentRequest) -> AgentResult:
            self.budgets.append(request.budget_usd)
            return AgentResult(exit_code=0, duration_s=0.0, text="spent", cost_usd=1.5)

    spender = Spender()
    result = Loop(agent=spender, until=["files:done.txt"], max_iterations=3, task="t",
                  root=ralph.path, args=["--max-cost", "4", "-p", "no:breaker"]).run()
    assert result.verdict is Verdict.BUDGET
    assert spender.budgets == [4.0, 2.5, 1.0]
    unlimited = Spender()
    Loop(agent=unlimited, until=["files:done.txt"], max_iterations=1, task="t",
         root=ralph.path, args=["--max-cost", "0", "-p", "no:breaker"]).run()
    assert unlimited.budgets == [None]
