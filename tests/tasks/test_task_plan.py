"""``tasks plan SPEC.md -o tasks.toml --agent ...``: the agent is run until ``tasks check``
passes on the file it wrote -- valid, no cycle, every task with checks of its own, and every
task's checks failing on today's tree. A ``cmd:`` agent gets it wrong twice first."""

from __future__ import annotations

from ralph_verify.testing import Ralph
from tests.loop_helpers import agent

CYCLE = """\
[[task]]
id = "A"
until = "files:feature-a.txt"
depends-on = ["B"]

[[task]]
id = "B"
until = "files:feature-b.txt"
depends-on = ["A"]
"""

ALREADY = """\
[[task]]
id = "A"
title = "the spec exists"
until = "files:SPEC.md"
"""

GOOD = """\
[[task]]
id = "A"
title = "feature a"
prompt = "write feature-a.txt"
until = "files:feature-a.txt"

[[task]]
id = "B"
title = "feature b"
until = "files:feature-b.txt"
"""


def test_plan_runs_the_agent_until_tasks_check_passes(ralph: Ralph) -> None:
    ralph.makefile("SPEC.md", "# Features\n\nThe project writes feature-a.txt, then b.\n")
    ralph.git_init()
    script = agent(ralph, f"""\
        prompt = sys.stdin.read()
        assert "feature-a.txt, then b" in prompt and "plan/tasks.toml" in prompt
        pathlib.Path("plan").mkdir(exist_ok=True)
        pathlib.Path("plan/tasks.toml").write_text([{CYCLE!r}, {ALREADY!r}, {GOOD!r}][N - 1])
        """)
    result = ralph.run("tasks", "plan", "SPEC.md", "-o", "plan/tasks.toml", "--agent", script,
                       "--max-iterations", "4")
    assert result.ret == 0, result
    assert "plan/tasks.toml passes 'tasks check'" in result.out
    second = (ralph.path / ".ralph/iterations/002/prompt.md").read_text()
    assert "in a cycle: A -> B -> A" in second
    third = (ralph.path / ".ralph/iterations/003/prompt.md").read_text()
    assert "these tasks' checks pass already" in third and ": A" in third
    assert not (ralph.path / ".ralph/iterations/004").exists()
    checked = ralph.run("tasks", "check", "plan/tasks.toml")
    assert checked.ret == 0, checked


def test_plan_usage_errors_run_no_agent(ralph: Ralph) -> None:
    ralph.git_init()
    no_out = ralph.run("tasks", "plan", "SPEC.md", "--agent", "cmd:true")
    assert no_out.ret == 2 and "tasks plan needs the spec and the file to write" in no_out.err
    missing = ralph.run("tasks", "plan", "NOPE.md", "-o", "t.toml", "--agent", "cmd:true")
    assert missing.ret == 2 and "the spec" in missing.err and "NOPE.md" in missing.err
    no_agent = ralph.run("tasks", "plan", "NOPE.md", "-o", "t.toml")
    assert no_agent.ret == 2 and "tasks plan needs an agent" in no_agent.err
