"""``ralph-verify fleet`` on the local executor: kata loops in worktrees, one report, cancel and
resume, tasks that fail alone, usage errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.testing import Ralph
from tests.fleet.kata import agent, git, make_monorepo

FLEET_FILE = """\
[fleet]
until = "tests"
max-iterations = 3
prompt = "Make the tests pass."

[[task]]
folder = "packages/a"

[[task]]
folder = "packages/b"

[[task]]
name = "c-own-prompt"
folder = "packages/c"
prompt-file = "prompts/c.md"

[[task]]
name = "nowhere"
folder = "packages/missing"

[[task]]
name = "bad-until"
folder = "packages/d"
until = "tests,nosuchcheck"
"""


def _fleet_json(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "fleet.json").read_text())
    return data


@pytest.fixture(scope="module")
def fleet_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Ralph, Any, str]:
    """One fleet of five tasks (three katas, a missing folder, a bad setting), run once."""
    root = tmp_path_factory.mktemp("fleet") / "project"
    ralph = Ralph(root)
    make_monorepo(root, ["a", "b", "c", "d"])
    (root / "prompts").mkdir()
    (root / "prompts" / "c.md").write_text("Fix calc.add in package c.\n")
    (root / "fleet.toml").write_text(FLEET_FILE)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fleet file")
    head = git(root, "rev-parse", "HEAD")
    result = ralph.run("fleet", "fleet.toml", "--agent", agent(root.parent), "-j", "2",
                       "--id", "t1")
    return ralph, result, head


def test_every_loop_runs_in_its_own_worktree_and_branch(fleet_run: tuple[Ralph, Any, str]
                                                         ) -> None:
    ralph, result, head = fleet_run
    assert result.ret == 1, result  # two tasks failed alone
    document = _fleet_json(ralph.path / "fleet")
    loops = {loop["name"]: loop for loop in document["loops"]}
    assert sorted(loops) == ["bad-until", "c-own-prompt", "nowhere", "packages-a", "packages-b"]
    for name in ("packages-a", "packages-b", "c-own-prompt"):
        loop = loops[name]
        assert loop["verdict"] == "complete", loop
        assert loop["iterations"] == 1 and loop["commits"] == 1
        assert loop["branch"] == f"ralph/fleet-t1/{name}"
        # Its own worktree, beside the repository: nothing in the user's tree, nothing
        # under .git (where agents refuse to edit).
        assert loop["workdir"] == str(ralph.path.parent / ".project.ralph-fleet" / "t1" / name)
        fixed = git(ralph.path, "show", f"{loop['branch']}:{loop['folder']}/calc.py")
        assert "a + b" in fixed
        changed = git(ralph.path, "diff", "--name-only", f"{head.strip()}..{loop['branch']}")
        assert changed.split() == [f"{loop['folder']}/calc.py"]  # no .ralph/, no caches
    prompt = (Path(loops["c-own-prompt"]["workdir"]) / "packages/c/.ralph/iterations/001"
              / "prompt.md").read_text()
    assert "Fix calc.add in package c." in prompt
    # The user's checkout and branch are untouched.
    assert git(ralph.path, "rev-parse", "HEAD") == head
    assert git(ralph.path, "branch", "--show-current").strip() == "main"
    assert git(ralph.path, "status", "--porcelain", "--untracked-files=no") == ""
    assert "a - b" in (ralph.path / "packages/a/calc.py").read_text()


def test_a_bad_task_fails_alone_with_a_clear_reason(fleet_run: tuple[Ralph, Any, str]) -> None:
    ralph, result, _ = fleet_run
    loops = {loop["name"]: loop for loop in _fleet_json(ralph.path / "fleet")["loops"]}
    assert loops["nowhere"]["verdict"] == "error"
    assert "folder 'packages/missing' does not exist" in loops["nowhere"]["reason"]
    assert loops["bad-until"]["verdict"] == "error"
    assert loops["bad-until"]["reason"].startswith("ERROR:")
    assert "nosuchcheck" in loops["bad-until"]["reason"]
    result.stdout.fnmatch_lines(["*finished nowhere: error*", "*3/5 loops complete*"])


def test_one_report_json_junit_and_totals(fleet_run: tuple[Ralph, Any, str]) -> None:
    ralph, _, _ = fleet_run
    out = ralph.path / "fleet"
    document = _fleet_json(out)
    assert document["totals"]["verdicts"] == {"complete": 3, "error": 2}
    assert document["totals"]["loops"] == 5
    for loop in document["loops"]:
        assert {"verdict", "iterations", "cost_usd", "duration_s", "branch", "reason",
                "where"} <= set(loop)
    assert (out / "loops/packages-a/report.html").is_file()
    from junitparser import Error, JUnitXml

    suites = list(JUnitXml.fromfile(str(out / "fleet-junit.xml")))
    cases = {case.name: case for suite in suites for case in suite}
    assert sorted(cases) == sorted(loop["name"] for loop in document["loops"])
    assert cases["packages-a"].is_passed
    assert isinstance(cases["nowhere"].result[0], Error)


def test_status_prints_one_line_per_loop(fleet_run: tuple[Ralph, Any, str]) -> None:
    ralph, _, _ = fleet_run
    result = ralph.run("fleet", "status")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["fleet t1 · 5 loops · 0 running · 3 complete, 2 error",
                                 "bad-until *error*ralph/fleet-t1/bad-until",
                                 "*packages-a *complete*it   1*"])
    watched = ralph.run_subprocess("fleet", "status", "--watch", timeout=60)
    assert watched.ret == 0  # not a terminal: plain lines, and it ends with the fleet
    assert "\x1b[" not in watched.out
    assert len(watched.out.splitlines()) == 6


def test_usage_errors_run_nothing(ralph: Ralph) -> None:
    make_monorepo(ralph.path, ["a"])
    ralph.makefile("bad.toml", '[fleet]\nagnet = "claude"\n[[task]]\nfolder = "packages/a"\n')
    result = ralph.run("fleet", "bad.toml")
    assert result.ret == 2
    assert "[fleet]: unknown key 'agnet'; did you mean 'agent'?" in result.err
    assert result.err.startswith("ERROR:")
    ralph.makefile("twice.toml", '[[task]]\nfolder="a"\nprompt="x"\n'
                                 '[[task]]\nfolder="a"\nprompt="y"\n')
    result = ralph.run("fleet", "twice.toml")
    assert result.ret == 2 and "two tasks have the id 'a'" in result.err
    result = ralph.run("fleet", "--matrix", "nothing/*", "-P", "pyproject.toml")
    assert result.ret == 2 and "no folder" in result.err
    assert not (ralph.path / "fleet").exists()
    assert git(ralph.path, "branch", "--list", "ralph/*") == ""


def _wait_for(path: Path, count: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while len(list(path.glob("started-*"))) < count:
        assert time.monotonic() < deadline, f"the loops did not start: {list(path.iterdir())}"
        time.sleep(0.2)


def test_cancel_keeps_every_loop_and_resume_runs_only_the_rest(ralph: Ralph,
                                                               tmp_path: Path) -> None:
    make_monorepo(ralph.path, ["a", "b", "c"])
    marks = tmp_path / "marks"
    marks.mkdir()
    fix = agent(tmp_path)
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    env = {**os.environ, **ralph.env, "FLEET_AGENT_MARKS": str(marks), "FLEET_AGENT_SLEEP": "600"}
    argv = [sys.executable, "-m", "ralph_verify", "fleet", "--matrix", "packages/*",
            "--agent", fix, "--until", "tests", "-p", str(prompt), "-j", "2", "--id", "c1"]
    proc = subprocess.Popen(argv, cwd=ralph.path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        _wait_for(marks, 2)
        proc.send_signal(signal.SIGTERM)  # what 'fleet cancel' sends
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, out
    loops = {loop["name"]: loop for loop in _fleet_json(ralph.path / "fleet")["loops"]}
    assert loops["packages-a"]["verdict"] == "cancelled"
    assert loops["packages-b"]["verdict"] == "cancelled"
    assert loops["packages-c"]["verdict"] == "not-run"
    # The cancelled loops kept their state: resume continues them, and runs c.
    state = Path(loops["packages-a"]["workdir"]) / "packages/a/.ralph/state.json"
    assert json.loads(state.read_text())["verdict"]["verdict"] == "cancelled"
    ralph.env |= {"FLEET_AGENT_SLEEP": "0"}
    result = ralph.run("fleet", "--matrix", "packages/*", "--agent", fix, "--until", "tests",
                       "-p", str(prompt), "--resume")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["*resuming fleet c1: 0 loop(s) kept, 3 to run*"])
    loops = {loop["name"]: loop for loop in _fleet_json(ralph.path / "fleet")["loops"]}
    assert {loop["verdict"] for loop in loops.values()} == {"complete"}
    assert "a + b" in git(ralph.path, "show", "ralph/fleet-c1/packages-a:packages/a/calc.py")
    again = ralph.run("fleet", "--matrix", "packages/*", "--agent", fix, "--until", "tests",
                      "-p", str(prompt), "--resume")
    assert again.ret == 0
    again.stdout.fnmatch_lines(["*resuming fleet c1: 3 loop(s) kept, 0 to run*"])


def test_the_fleet_report_in_headless_chromium(fleet_run: tuple[Ralph, Any, str],
                                               tmp_path: Path) -> None:
    """report.html: totals and rows match fleet.json, each row links to its loop's report, the
    chart has one point per loop that ran, and its own script finds chart and table agree."""
    import re

    from tests.reports.browser import render

    ralph, _, _ = fleet_run
    out = ralph.path / "fleet"
    document = _fleet_json(out)
    rendered = render(out / "report.html", tmp_path)
    assert rendered.console == [], rendered.console
    dom = rendered.dom
    assert 'id="report-status" data-state="ok"' in dom, dom[-2000:]
    assert f'data-loops="{len(document["loops"])}"' in dom
    for loop in document["loops"]:
        row = re.search(rf'<tr data-loop="{loop["name"]}" data-verdict="([^"]+)"', dom)
        assert row is not None and row[1] == loop["verdict"]
        if loop.get("report"):
            assert f'href="{loop["report"]}"' in dom
            assert (out / loop["report"]).is_file()
    points = re.findall(r'<circle [^>]*data-loop="([^"]+)"', dom)
    assert sorted(points) == sorted(loop["name"] for loop in document["loops"])
    assert rendered.screenshot.stat().st_size > 0


def test_total_time_stops_every_loop_of_the_fleet(ralph: Ralph, tmp_path: Path) -> None:
    make_monorepo(ralph.path, ["a", "b"])
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    ralph.env |= {"FLEET_AGENT_SLEEP": "600"}
    started = time.monotonic()
    result = ralph.run("fleet", "--matrix", "packages/*", "--agent", agent(tmp_path),
                       "--until", "tests", "-p", str(prompt), "-j", "1", "--total-time", "4s")
    assert time.monotonic() - started < 120
    assert result.ret == 1, result
    document = _fleet_json(ralph.path / "fleet")
    assert document["cancelled"] == "the fleet's total time (4s) is used up"
    verdicts = {loop["name"]: loop["verdict"] for loop in document["loops"]}
    assert verdicts == {"packages-a": "cancelled", "packages-b": "not-run"}


def test_github_job_summary(fleet_run: tuple[Ralph, Any, str], tmp_path: Path) -> None:
    ralph, _, _ = fleet_run
    summary = tmp_path / "summary.md"
    ralph.env |= {"GITHUB_STEP_SUMMARY": str(summary)}
    result = ralph.run("fleet", "merge", "fleet", "--out", str(tmp_path / "merged"), "--github")
    ralph.env |= {}
    assert result.ret == 1  # two loops failed alone
    text = summary.read_text()
    assert "## ralph-verify fleet t1" in text
    assert "5 loops: 3 complete, 2 error" in text
    assert "| packages-a | **complete** every check passes (2 of 2) | 1 |" in text


def test_bad_options_are_one_line_errors_and_run_nothing(ralph: Ralph, tmp_path: Path) -> None:
    outside = Ralph(tmp_path / "not-a-repo")
    outside.path.mkdir()
    result = outside.run("fleet", "--matrix", "*", "-P", "PROMPT.md")
    assert result.ret == 2 and "is not in a git repository" in result.err, result
    make_monorepo(ralph.path, ["a"])
    common = ["--matrix", "packages/*", "--agent", "cmd:true", "-P", "PROMPT.md"]
    ralph.makefile("PROMPT.md", "Make the tests pass.")
    for args, message in (
            (["--shard", "3/2"], "--shard '3/2': expected I/N with 1 <= I <= N"),
            (["--retries", "-1"], "--retries -1: must be 0 or more"),
            (["--total-time", "soon"], "--total-time 'soon': expected a duration"),
            (["--executor", "nowhere"], "--executor 'nowhere': no such executor"),
            (["-P", "missing.md"], "-P missing.md: cannot be read")):
        result = ralph.run("fleet", *common, *args)
        assert result.ret == 2, (args, result)
        assert result.err.startswith("ERROR: ") and message in result.err, (args, result.err)
        assert len(result.err.strip().splitlines()) == 1, result.err
    assert not (ralph.path / "fleet").exists()
    assert git(ralph.path, "branch", "--list", "ralph/*") == ""
    result = ralph.run("fleet", "status")
    assert result.ret == 1 and "no fleet in" in result.out
