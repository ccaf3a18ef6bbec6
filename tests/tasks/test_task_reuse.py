"""One run of the suite per task switch: a task's gate, verified on the tree the last
task's verification just saw, is answered by that verification's results (the final check
too) -- real pytest through the CLI, its sessions counted by a conftest, against the same
edits made in one plain run."""

from __future__ import annotations

import json

from ralph_verify.testing import Ralph
from tests.drivers import Driver
from tests.loop_helpers import agent
from tests.task_drivers import run_list
from tests.tasks.test_task_cadence import rows

TASKS = 8


def project(ralph: Ralph) -> str:
    """A project with one passing test whose conftest counts pytest's sessions; the
    counter's path."""
    runs = ralph.path.parent / "pytest-runs"
    ralph.makefile("pyproject.toml", '[project]\nname = "p"\nversion = "0"\n'
                   "[tool.ralph-verify.checks.tests]\nrerun = 0\n")
    ralph.makefile("conftest.py", "def pytest_sessionstart(session):\n"
                   f"    with open({str(runs)!r}, 'a') as f:\n        f.write('x')\n")
    ralph.makefile("tests/test_base.py", "def test_base():\n    assert True\n")
    ralph.git_init()
    return str(runs)


def cached(ralph: Ralph, iteration: int) -> dict[str, bool]:
    """Which checks of the last session's verification ``iteration`` were answered without
    a run (0: its baseline)."""
    data = json.loads((ralph.path / f".ralph/iterations/{iteration:03d}/verification.json")
                      .read_text(encoding="utf-8"))
    return {check["spec"]: check["cached"] for check in data["checks"]}


def count(runs: str) -> int:
    with open(runs, encoding="utf-8") as f:
        found = len(f.read())
    with open(runs, "w", encoding="utf-8"):
        pass
    return found


def test_a_list_runs_the_suite_as_often_as_a_plain_run_of_the_same_edits(ralph: Ralph) -> None:
    runs = project(ralph)
    modules = [f"m{n}.py" for n in range(1, TASKS + 1)]
    start = ralph.git("rev-parse", "HEAD").strip()
    # One plain run: the same eight edits, one an iteration.
    plain = agent(ralph, "pathlib.Path(f'm{N}.py').write_text('x = 1\\n')", "plain.py")
    until = ",".join(["tests", *(f"files:{m}" for m in modules)])
    result = ralph.run("run", "--until", until, "--agent", plain, "--max-iterations",
                       str(TASKS), "--no-cache", "--no-branch", "write the modules")
    assert result.ret == 0, result
    alone = count(runs)
    assert alone == TASKS + 1  # the baseline and one verification an iteration
    ralph.git("reset", "-q", "--hard", start)
    ralph.git("clean", "-qfdx", "-e", ".ralph")
    # The list: a task an edit, each gate holding the suite.
    ralph.makefile("tasks.toml", '[defaults]\nkeep = "tests"\n' + "".join(
        f'\n[[task]]\nid = "T{n}"\nuntil = "files:m{n}.py"\n' for n in range(1, TASKS + 1)))
    ralph.git("add", "tasks.toml")
    ralph.git("commit", "-qm", "tasks")
    worker = agent(ralph, "T = os.environ['RALPH_TASK_ID']\n"
                   "pathlib.Path(f'm{T[1:]}.py').write_text('x = 1\\n')\n", "worker.py")
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", worker, "--no-cache")
    assert result.ret == 0, result
    assert {row["status"] for row in rows(ralph).values()} == {"done"}
    assert count(runs) <= alone + 1, result.err
    assert cached(ralph, 0)["tests"] and not cached(ralph, 1)["tests"]


def test_a_result_judged_against_a_task_start_answers_no_other_task(ralph: Ralph) -> None:
    """T1's agent adds a test: its verification judged the suite with T1's start's tests
    (the frozen oracle), so T2's baseline, whose start is now, runs the suite again."""
    runs = project(ralph)
    ralph.makefile("tasks.toml", '[defaults]\nkeep = "tests"\n\n'
                   '[[task]]\nid = "T1"\nuntil = "files:a.py"\n\n'
                   '[[task]]\nid = "T2"\nuntil = "files:b.py"\n')
    ralph.git("add", "tasks.toml")
    ralph.git("commit", "-qm", "tasks")
    worker = agent(ralph, """\
        T = os.environ['RALPH_TASK_ID']
        pathlib.Path('a.py' if T == 'T1' else 'b.py').write_text('x = 1\\n')
        if T == 'T1':
            pathlib.Path('tests/test_a.py').write_text(
                'import a\\n\\ndef test_a():\\n    assert a.x == 1\\n')
        """, "worker.py")
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", worker, "--no-cache")
    assert result.ret == 0, result
    assert not any(cached(ralph, 0).values()) and not any(cached(ralph, 1).values())
    assert count(runs) >= 5, result.err  # T1: 1 + 2 (the frozen tests, the agent's); T2: 2


def test_a_verification_after_an_agent_turn_is_a_real_run(ralph: Ralph) -> None:
    """The agent's first turn leaves the tree as it was (it may have changed what the tree
    does not show): that verification runs the suite, not the baseline's results."""
    runs = project(ralph)
    ralph.makefile("tasks.toml", '[defaults]\nkeep = "tests"\n\n'
                   '[[task]]\nid = "T1"\nuntil = "files:a.py"\n')
    ralph.git("add", "tasks.toml")
    ralph.git("commit", "-qm", "tasks")
    worker = agent(ralph, "if N == 2:\n    pathlib.Path('a.py').write_text('x = 1\\n')\n",
                   "worker.py")
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent", worker, "--no-cache")
    assert result.ret == 0, result
    assert not any(cached(ralph, n)["tests"] for n in (0, 1, 2))
    assert count(runs) == 3, result.err  # the final check: iteration 2's results


def test_both_drivers_run_the_suite_once_per_task(driver: Driver) -> None:
    """The Stop hook switches tasks as ``run --tasks`` does: start's baseline, then one
    verification an agent turn; each next gate and the final check answered by the last."""
    ralph = driver.ralph
    runs = project(ralph)
    ralph.makefile("tasks.toml", '[defaults]\nkeep = "tests"\n' + "".join(
        f'\n[[task]]\nid = "T{n}"\nuntil = "files:m{n}.py"\n' for n in range(1, 5)))
    ralph.git("add", "tasks.toml")
    ralph.git("commit", "-qm", "tasks")
    outcome = run_list(driver, {f"T{n}": [{f"m{n}.py": "x = 1\n"}] for n in range(1, 5)},
                       "--no-cache")
    assert {row["status"] for row in outcome.rows().values()} == {"done"}
    assert outcome.turns == ["T1", "T2", "T3", "T4"]
    assert count(runs) == 1 + 4  # the first baseline, then one run an agent turn
