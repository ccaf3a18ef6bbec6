"""Every ``ralph-verify`` command the README shows is run by a test, as written.

A line that runs offline is run here, in a temporary project made for it (or by the test
named in :data:`ELSEWHERE`); a line that needs a real agent CLI or a Dask scheduler is
parsed as ralph-verify parses it (every option, the files it names), never run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_readme import calc_project

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
#: Parsed only: a real agent CLI, a Dask scheduler, or our own whole suite.
PARSED = {
    "ralph-verify run --agent claude --until tests,lint,coverage.min=80 -P PROMPT.md",
    "ralph-verify run --agent claude --tasks tasks.toml",
    "ralph-verify fleet fleet.toml -j 4",
    "ralph-verify fleet --matrix 'packages/*' --agent claude --until 'tests,coverage>=80' "
    "-P PROMPT.md",
    "ralph-verify fleet fleet.toml --executor dask --address tcp://scheduler:8786",
    'ralph-verify fleet fleet.toml --shard 2/8 --out fleet-2/ --id "$RUN_ID"',
    ".venv-test/bin/ralph-verify check --until tests,lint,types",
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
    untested = [line for line in shown if line not in {*ELSEWHERE, *PARSED, *RUN}]
    assert untested == [], "a README command no test runs: add it to RUN, PARSED or ELSEWHERE"
    assert [line for line in [*ELSEWHERE, *PARSED, *RUN] if line not in shown] == []


def _project(tmp_path: Path) -> Path:
    project = calc_project(tmp_path, '\n[[tool.mypy.overrides]]\nmodule = "mixed.*"\n'
                                     'ignore_errors = true\n')
    (project / "PROMPT.md").write_text("Make test_sub pass: sub subtracts.\n")
    (project / "fix.py").write_text(
        "import pathlib\n\npath = pathlib.Path('src/mixed/calc.py')\n"
        "path.write_text(path.read_text().replace('def sub(a, b):\\n    return a + b',\n"
        "                                         'def sub(a, b):\\n    return a - b'))\n")
    (project / "tasks.toml").write_text('[[task]]\nid = "T1"\ntitle = "sub"\nuntil = "tests"\n')
    (project / "fleet.toml").write_text(
        '[defaults]\nagent = "claude"\nuntil = "tests"\n\n[[task]]\nid = "one"\n'
        'prompt = "Make test_sub pass."\n')
    (project / "packages" / "a").mkdir(parents=True)
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


def test_the_readme_commands_that_need_an_agent_cli_parse(tmp_path: Path) -> None:
    from ralph_verify.startup import get_config

    project = _project(tmp_path)
    cwd = Path.cwd()
    os.chdir(project)
    try:
        for line in sorted(PARSED):
            argv = shlex.split(line.replace('"$RUN_ID"', "run-7"))[1:]
            config = get_config(argv)  # a bad option or file raises a UsageError here
            try:
                assert config.command.name == argv[0] or argv[0].startswith("-"), line
            finally:
                config.hook.ralph_unconfigure(config=config)
    finally:
        os.chdir(cwd)
