"""``action.yml``: the composite GitHub Action's steps, run as a runner would run them.

A small runner stands in for GitHub's: it reads the action's inputs and steps, substitutes
``${{ inputs.* }}`` and ``${{ github.action_path }}`` into each step's ``env`` and
``working-directory``, runs each ``run:`` with ``bash --noprofile --norc -eo pipefail``, and
carries ``$GITHUB_ENV`` and ``$GITHUB_PATH`` from step to step. The install step really
pip-installs this checkout into a fresh virtual environment.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ralph_verify.testing import Ralph

ROOT = Path(__file__).resolve().parents[2]
_EXPR = re.compile(r"\$\{\{\s*([a-z]+)\.([A-Za-z_-]+)\s*\}\}")


def _action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())
    return data


def run_action(workspace: Path, temp: Path, inputs: dict[str, str]
               ) -> tuple[int, str, Path]:
    """Run every step; the exit code of the first failing step (or 0), stdout, summary."""
    action = _action()
    values = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    values.update(inputs)
    github = {"action_path": str(ROOT), "workspace": str(workspace)}

    def expand(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            scope, name = match.groups()
            table = values if scope == "inputs" else github if scope == "github" else {}
            return table[name]
        return _EXPR.sub(one, str(text))

    files = {name: temp / name.lower() for name in
             ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT")}
    for path in files.values():
        path.write_text("")
    # A runner's environment: the python of actions/setup-python on PATH, no virtualenv.
    base = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    base.update({name: str(path) for name, path in files.items()},
                RUNNER_TEMP=str(temp), GITHUB_ACTIONS="true", CI="true",
                PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    output = []
    for step in action["runs"]["steps"]:
        assert "${{" not in step["run"], "expressions go through env:, never into a script"
        env = dict(base)
        for line in files["GITHUB_ENV"].read_text().splitlines():
            key, _, value = line.partition("=")
            env[key] = value
        added = files["GITHUB_PATH"].read_text().split()
        env["PATH"] = os.pathsep.join([*reversed(added), env["PATH"]])
        env.update({key: expand(value) for key, value in (step.get("env") or {}).items()})
        cwd = workspace / expand(step.get("working-directory", "."))
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                               step["run"]], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=900)
        output.append(done.stdout + done.stderr)
        if done.returncode != 0:
            return done.returncode, "\n".join(output), files["GITHUB_STEP_SUMMARY"]
    return 0, "\n".join(output), files["GITHUB_STEP_SUMMARY"]


def test_the_action_declares_what_the_readme_says() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == {"until", "baseline", "args", "working-directory", "python",
                                     "install"}


@pytest.mark.slow
def test_the_action_annotates_and_summarises_a_failing_project(
        ralph: Ralph, tmp_path_factory: pytest.TempPathFactory) -> None:
    ralph.makefile("src/app.py", "import os\n")
    ralph.makefile("src/ok.py", "x = 1\n")
    temp = tmp_path_factory.mktemp("runner-temp")
    code, output, summary = run_action(ralph.path.parent, temp, {
        "until": "lint,files:src/*.py>=2", "working-directory": ralph.path.name,
        "args": "--timeout 120 --junitxml 'ralph report.xml'"})
    assert code == 1, output
    assert "::error file=src/app.py,line=1" in output
    assert "F401" in summary.read_text()
    assert (ralph.path / "ralph report.xml").is_file()
    # The project's python was found before ralph-verify's own went on PATH.
    assert f"RALPH_VERIFY_PROJECT_PYTHON={Path(sys.executable).parent}" in \
        (temp / "github_env").read_text()

    (ralph.path / "src/app.py").write_text("import os\n\nprint(os.sep)\n")
    temp2 = tmp_path_factory.mktemp("runner-temp")
    code, output, summary = run_action(ralph.path.parent, temp2, {
        "until": "lint", "working-directory": ralph.path.name})
    assert code == 0, output
    assert "lint" in summary.read_text()


@pytest.mark.slow
def test_the_action_checks_integrity_against_a_baseline_ref(
        ralph: Ralph, tmp_path_factory: pytest.TempPathFactory) -> None:
    ralph.makepyfile(kata="def add(a, b):\n    return a - b\n",
                     test_kata="from kata import add\n\n\ndef test_add():\n"
                               "    assert add(2, 3) == 5\n")
    ralph.git_init()
    ralph.git("branch", "-M", "main")
    ralph.git("checkout", "-q", "-b", "agent")
    (ralph.path / "kata.py").write_text("def add(a, b):\n    return {(2, 3): 5}[(a, b)]\n")
    ralph.git("commit", "-qam", "special-case the test")
    code, output, summary = run_action(ralph.path.parent, tmp_path_factory.mktemp("runner"), {
        "until": "tests", "baseline": "main", "working-directory": ralph.path.name})
    assert code == 1, output
    assert "::error file=kata.py,line=2" in output, output
    assert "special-case" in summary.read_text()
