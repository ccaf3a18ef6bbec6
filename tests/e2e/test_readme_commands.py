"""Every ``ralph-verify`` command the README shows is run by a test, as written.

A line is run here, in a temporary project made for it (or by the test named in
:data:`ELSEWHERE`): the ones for Claude Code with the real CLI against the scripted model
server, in a loopback-only network namespace. Only a line that cannot run in a test is
parsed as ralph-verify parses it (every option, the files it names), with the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.testing.server import ModelServer, RecordedRequest, Reply, claude_write, text
from tests.agents_setup import AgentCLI
from tests.e2e.test_readme import calc_project
from tests.fleet.kata import make_monorepo
from tests.offline_net import OfflineNet

ROOT = Path(__file__).resolve().parents[2]

#: Run by another test, as written.
ELSEWHERE = {
    "ralph-verify init --yes --commit": "tests/e2e/test_quickstart.py",
    'ralph-verify run --agent replay:../replay --until tests "make test_add.py pass"':
        "tests/e2e/test_quickstart.py",
    "ralph-verify check --until 'tests,lint,coverage>=80'":
        "tests/e2e/test_readme.py::test_the_readme_check_example_is_what_check_prints",
    "ralph-verify run --agent replay:examples/tdd-kata/replay --until tests,coverage.min=90":
        "tests/e2e/test_examples_run.py (the tdd-kata example through run)",
}
#: Parsed only, each with the reason it is not run.
PARSED = {
    ".venv-test/bin/ralph-verify check --until tests,lint,types":
        "our own whole suite, minutes long (run by .ci/run and by hand)",
}
#: Run here with the real Claude Code CLI, each in a project of its own (``--matrix``: a
#: monorepo): where its result is written.
WITH_CLAUDE = {
    "ralph-verify run --agent claude --until tests,lint,coverage.min=80 -P PROMPT.md": ".ralph",
    "ralph-verify run --agent claude --tasks tasks.toml": ".ralph",
    "ralph-verify fleet fleet.toml -j 4": "fleet",
    "ralph-verify fleet --matrix 'packages/*' --agent claude --until 'tests,coverage>=80' "
    "-P PROMPT.md": "fleet",
    'ralph-verify fleet fleet.toml --shard 2/8 --out fleet-2/ --id "$RUN_ID"': "fleet-2",
    # A real Dask scheduler and worker, the name 'scheduler' mapped to them in /etc/hosts.
    "ralph-verify fleet fleet.toml --executor dask --address tcp://scheduler:8786": "fleet",
}
#: Run here, in this order, in one project, each with the exit code it must give.
RUN = {
    "ralph-verify check --until tests,lint,types,coverage.min=80": 1,
    "ralph-verify check --until 'tests,tset>=3'": 2,  # the README's did-you-mean example
    "ralph-verify check --until tests,lint,types --junitxml ralph.xml --github --json "
    "result.json": 1,
    "ralph-verify init --dry-run": 0,
    "ralph-verify init": 0,
    "ralph-verify init claude": 0,
    "ralph-verify start --agent-name claude --until tests 'make the tests pass'": 0,
    "ralph-verify status": 0,
    "ralph-verify cancel": 0,
    'ralph-verify run --agent cmd:"python fix.py" --until tests,lint --max-iterations 10 '
    "-P PROMPT.md": 0,
}


def readme_commands() -> list[str]:
    """The README's command lines in its code blocks, comments and ``$ `` prompts dropped."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        lines = block.splitlines()
        if any(line.startswith("$ ") for line in lines):  # the rest is what they print
            lines = [line[2:] for line in lines if line.startswith("$ ")]
        for line in lines:
            if re.match(r"(\S*/)?ralph-verify ", line):
                found.append(re.sub(r"\s+#.*$", "", line).strip())
    return found


def test_every_readme_command_has_its_test() -> None:
    shown = readme_commands()
    assert len(shown) > 15, shown
    known = {*ELSEWHERE, *PARSED, *RUN, *WITH_CLAUDE}
    untested = [line for line in shown if line not in known]
    assert untested == [], "a README command no test runs: add it to RUN, WITH_CLAUDE, " \
                           "ELSEWHERE or (with the reason) PARSED"
    assert [line for line in known if line not in shown] == []
    assert all(PARSED.values()), "every line only parsed says why"


def _project(tmp_path: Path) -> Path:
    project = calc_project(tmp_path, '\n[[tool.mypy.overrides]]\nmodule = "mixed.*"\n'
                                     'ignore_errors = true\n')
    (project / "PROMPT.md").write_text("Make test_sub pass: sub subtracts.\n")
    (project / "fix.py").write_text(
        "import pathlib\n\npath = pathlib.Path('src/mixed/calc.py')\n"
        "path.write_text(path.read_text().replace('def sub(a, b):\\n    return a + b',\n"
        "                                         'def sub(a, b):\\n    return a - b'))\n")
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "calc"]):
        subprocess.run(["git", *argv], cwd=project, check=True, capture_output=True)
    return project


@pytest.mark.slow
def test_the_readme_commands_run_as_written(tmp_path: Path) -> None:
    project = _project(tmp_path)
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"], "NO_COLOR": "1",
           "RALPH_VERIFY_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("VIRTUAL_ENV", None)
    for line, code in RUN.items():
        if line.startswith("ralph-verify run "):  # init, start and cancel left their files
            subprocess.run(["git", "add", "-A"], cwd=project, check=True)
            subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit",
                            "-qm", "set up"], cwd=project, check=True)
        done = subprocess.run(["bash", "-c", line], cwd=project, capture_output=True,
                              text=True, timeout=600, stdin=subprocess.DEVNULL, env=env)
        assert done.returncode == code, (line, done.stdout, done.stderr)
        assert "Traceback" not in done.stdout + done.stderr, line


def test_the_readme_lines_not_run_parse(tmp_path: Path) -> None:
    """Each line of PARSED as ralph-verify parses it: its options and the files it names."""
    from ralph_verify.startup import get_config

    project = _project(tmp_path)
    cwd = Path.cwd()
    os.chdir(project)
    try:
        for line in sorted(PARSED):
            argv = shlex.split(line)[1:]
            config = get_config(argv)  # a bad option or file raises a UsageError here
            try:
                assert config.command.name == argv[0] or argv[0].startswith("-"), line
            finally:
                config.hook.ralph_unconfigure(config=config)
    finally:
        os.chdir(cwd)


WRONG = "def add(a, b):\n    return a * b\n"
RIGHT = "def add(a, b):\n    return a + b\n"


class TwoIterationFix:
    """The model, for loops that may run side by side: in each working folder its first turn
    writes a wrong ``calc.py``, its next one the right one; after a tool's result it is done."""

    def __init__(self) -> None:
        self.writes: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> Reply:
        # The last user message (Claude Code puts system messages after it, as a hook's).
        content = next(message["content"] for message in reversed(request.body["messages"])
                       if message["role"] == "user")
        if isinstance(content, list) and any(block.get("type") == "tool_result"
                                             for block in content):
            return text("Done.")
        with self.lock:
            count = self.writes[str(request.cwd)]
            self.writes[str(request.cwd)] += 1
        return claude_write("calc.py", WRONG if count == 0 else RIGHT)


def _claude_project(tmp_path: Path, line: str) -> Path:
    """A project for ``line``: a monorepo of two packages for ``--matrix``, else one package
    with the PROMPT.md, tasks.toml and fleet.toml (two tasks) the line names."""
    project = tmp_path / "project"
    if "--matrix" in line:
        make_monorepo(project, ["a", "b"])
        (project / "PROMPT.md").write_text("Make the tests pass.\n")
    else:
        make_monorepo(project, [])
        (project / "calc.py").write_text("def add(a, b):\n    raise NotImplementedError\n")
        (project / "tests").mkdir()
        (project / "tests" / "test_calc.py").write_text(
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
        (project / "PROMPT.md").write_text("Implement add() in calc.py.\n")
        (project / "tasks.toml").write_text(
            '[[task]]\nid = "T1"\ntitle = "add"\nprompt = "Implement add() in calc.py."\n'
            'until = "tests"\n')
        (project / "fleet.toml").write_text(
            '[defaults]\nagent = "claude"\nuntil = "tests"\n'
            + "".join(f'\n[[task]]\nid = "{name}"\nprompt = "Implement add() in calc.py."\n'
                      for name in ("one", "two")))
    (project / ".gitignore").write_text("fleet*/\n__pycache__/\n.ralph/\n")
    for argv in (["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm",
                                 "project"]):
        subprocess.run(["git", *argv], cwd=project, check=True, capture_output=True)
    return project


def _verdicts(project: Path, line: str) -> list[tuple[Any, Any]]:
    """(verdict, iterations) of the session, or of each loop of the fleet."""
    out = project / WITH_CLAUDE[line]
    if out.name == ".ralph":
        state = json.loads((out / "state.json").read_text())
        return [(state["verdict"]["verdict"], state["iteration"])]
    return [(loop["verdict"], loop["iterations"])
            for loop in json.loads((out / "fleet.json").read_text())["loops"]]


@contextlib.contextmanager
def _scheduler_host(net: OfflineNet, env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    """A Dask scheduler on 127.0.0.1:8786 and a worker, in the namespace; yields the shell
    line that makes the name ``scheduler`` point at them (an /etc/hosts of the test's own,
    bound in the command's own mount namespace)."""
    dask = str(Path(sys.executable).with_name("dask"))
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost scheduler\n")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for args in (["scheduler", "--host", "127.0.0.1", "--port", "8786"],
                     ["worker", "tcp://127.0.0.1:8786", "--host", "127.0.0.1", "--nthreads",
                      "2", "--no-nanny"]):
            with (tmp_path / f"dask-{args[0]}.log").open("wb") as log:
                procs.append(subprocess.Popen(
                    [*net.prefix(), dask, *args, "--no-dashboard"], env=env, stdout=log,
                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=tmp_path,
                    pass_fds=(net.fd,)))
        # The README's user starts the fleet against a running cluster: wait for the worker
        # to register (on a loaded machine Dask's start takes seconds).
        worker_log = tmp_path / "dask-worker.log"
        deadline = time.monotonic() + 120
        while b"Registered to:" not in worker_log.read_bytes():
            assert time.monotonic() < deadline, worker_log.read_text(errors="replace")
            assert all(proc.poll() is None for proc in procs), "a Dask process ended"
            time.sleep(0.2)
        yield f"mount --bind {hosts} /etc/hosts"
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.mark.agents_e2e
@pytest.mark.parametrize("line", sorted(WITH_CLAUDE))
def test_the_readme_claude_lines_run_as_written(
        line: str, tmp_path: Path, claude_cli: AgentCLI, agent_home: Path,
        offline_net: OfflineNet, offline_server: ModelServer) -> None:
    """Each line, as typed, with Claude Code set up as its user would (endpoint and key):
    every loop is a two-iteration fix, and nothing but the model server is called."""
    project = _claude_project(tmp_path, line)
    offline_server.script(*[TwoIterationFix()] * 16)
    env = {**claude_cli.env(agent_home, offline_server.url, quiet=False), "RUN_ID": "ci-7"}
    with contextlib.ExitStack() as stack:
        argv = [*offline_net.prefix(), "bash", "-e", "-c", line]
        if "--executor dask" in line:
            mount = stack.enter_context(_scheduler_host(offline_net, env, tmp_path))
            argv = [*offline_net.prefix(), "unshare", "--mount", "--propagation", "private",
                    "bash", "-e", "-c", f"{mount}\n{line}"]
        done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True,
                              timeout=600, stdin=subprocess.DEVNULL, pass_fds=(offline_net.fd,))
    output = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, output
    loops = 1 if line.startswith("ralph-verify run ") or "--shard" in line else 2
    assert _verdicts(project, line) == [("complete", 2)] * loops, output
    assert not offline_server.errors, [r.error for r in offline_server.errors]
    assert offline_net.outbound_attempts() == 0, offline_net.counters()
