"""The promise of issue one, on a fresh virtual environment: `pip install .`, then
`ralph-verify check --until tests,lint,types,coverage>=80` gives the right verdict, and its
--json counts agree with what pytest (JUnit XML), `coverage report`, `ruff check` and mypy
say when run by hand on the same project."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = Path(__file__).parents[1] / "example_projects" / "mixed"
BIN = "Scripts" if os.name == "nt" else "bin"

pytestmark = pytest.mark.slow


def _copy_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout without virtualenvs, caches and git: what a user's clone holds."""
    source = tmp_path_factory.mktemp("src") / "ralph-verify"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".venv*", ".git", "*.egg-info", "__pycache__", ".mypy_cache", ".ruff_cache",
        ".pytest_cache", "benchmarks", "node_modules", ".ralph", "dist", "build"))
    return source


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with ralph-verify installed from this checkout (not editable)."""
    env_dir = tmp_path_factory.mktemp("fresh") / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    source = _copy_checkout(tmp_path_factory)
    subprocess.run([str(env_dir / BIN / "python"), "-m", "pip", "install", "-q", str(source)],
                   check=True, env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    return env_dir


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, check=False)


def test_fresh_install_gives_the_tools_own_counts(fresh_venv: Path, tmp_path: Path) -> None:
    project = tmp_path / "mixed"
    shutil.copytree(EXAMPLE, project)
    bindir = fresh_venv / BIN
    python = str(bindir / "python")

    result = _run([str(bindir / "ralph-verify"), "check", "--until",
                   "tests,lint,types,coverage>=80", "--json"], project)
    assert result.returncode == 1, result.stderr
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert {name: c["status"] for name, c in checks.items()} == {
        "tests": "failed", "lint": "failed", "types": "failed", "coverage": "failed"}

    # pytest, by hand: JUnit XML counts.
    junit = tmp_path / "junit.xml"
    _run([python, "-m", "pytest", "-q", f"--junitxml={junit}"], project)
    suite = re.search(r'<testsuite [^>]*tests="(\d+)"[^>]*', junit.read_text())
    assert suite is not None
    failures = int(re.search(r'failures="(\d+)"', suite.group()).group(1))  # type: ignore[union-attr]  # the attribute is always written by pytest
    total = int(suite.group(1))
    assert len(checks["tests"]["failures"]) == failures == 1
    assert checks["tests"]["metric"] == total - failures == 4
    assert "tests/test_calc.py::test_sub" in checks["tests"]["failures"][0]["location"]

    # coverage, by hand: the TOTAL line of `coverage report`.
    _run([python, "-m", "coverage", "run", "-m", "pytest", "-q"], project)
    report = _run([python, "-m", "coverage", "report"], project).stdout
    total_line = next(line for line in report.splitlines() if line.startswith("TOTAL"))
    assert checks["coverage"]["metric"] == float(total_line.split()[-1].rstrip("%"))

    # ruff, by hand: the number of violations in its JSON.
    ruff = _run([str(bindir / "ruff"), "check", "--output-format", "json"], project)
    assert len(checks["lint"]["failures"]) == len(json.loads(ruff.stdout)) == 1
    assert checks["lint"]["failures"][0]["location"].startswith("src/mixed/calc.py:1:")

    # mypy, by hand: its error lines.
    mypy = _run([python, "-m", "mypy"], project)
    errors = [line for line in mypy.stdout.splitlines() if ": error:" in line]
    assert len(checks["types"]["failures"]) == len(errors) == 1
    assert "src/mixed/calc.py:23" in checks["types"]["failures"][0]["location"]


def test_fresh_install_passes_a_clean_project(fresh_venv: Path, tmp_path: Path) -> None:
    project = tmp_path / "clean"
    shutil.copytree(EXAMPLE, project)
    calc = project / "src" / "mixed" / "calc.py"
    text = calc.read_text().replace("import os\n\n\n", "")
    text = text.replace("return a + b\n\n\ndef mul", "return a - b\n\n\ndef mul")
    text = text.replace("    return n\n", "    return str(n)\n")
    calc.write_text(text)
    (project / "tests" / "test_more.py").write_text(
        "from mixed.calc import div, label, unused_branch\n\nimport pytest\n\n\n"
        "def test_rest() -> None:\n"
        "    assert label(3) == '3'\n"
        "    assert unused_branch(True) == 'yes' and unused_branch(False) == 'no'\n"
        "    with pytest.raises(ZeroDivisionError):\n"
        "        div(1, 0)\n")
    bindir = fresh_venv / BIN
    result = _run([str(bindir / "ralph-verify"), "check", "--until",
                   "tests,lint,types,coverage>=80"], project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASSED: all 4 checks passed" in result.stdout
    assert sys.executable  # the suite's own interpreter is not what ran the checks


def test_readme_main_command_runs_the_example_to_complete(fresh_venv: Path,
                                                          tmp_path: Path) -> None:
    """The README's first set-up command, after `pip install .`: the bundled example,
    offline and with no API key, ends `complete`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert ".venv/bin/pip install . && .venv/bin/python examples/run.py" in readme
    env = {k: v for k, v in os.environ.items()
           if k != "VIRTUAL_ENV" and not k.startswith(("ANTHROPIC", "OPENAI"))}
    proc = subprocess.run([str(fresh_venv / BIN / "python"), str(ROOT / "examples" / "run.py"),
                           "--dest", str(tmp_path / "kata")], capture_output=True, text=True,
                          env=env, stdin=subprocess.DEVNULL, check=False, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verdict: complete" in proc.stdout
    assert (tmp_path / "kata" / ".ralph" / "report.html").is_file()


def test_the_built_wheel_installs_into_a_fresh_venv_and_checks(
        tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    """The README's Install: `python3 -m build` makes an sdist and a wheel (there is no PyPI
    release); the wheel alone, in a fresh virtual environment, gives a working `check`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in ("python3 -m pip install build && python3 -m build",
                 "pipx install dist/ralph_verify-*.whl", "uv tool install dist/ralph_verify-*.whl",
                 "not on PyPI"):
        assert line in readme, line
    source = _copy_checkout(tmp_path_factory)
    build = subprocess.run([sys.executable, "-m", "build", str(source)], capture_output=True,
                           text=True, check=False, timeout=900,
                           env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    wheels = sorted((source / "dist").glob("ralph_verify-*-py3-none-any.whl"))
    sdists = sorted((source / "dist").glob("ralph_verify-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, list((source / "dist").iterdir())
    with tarfile.open(sdists[0]) as sdist:
        names = sdist.getnames()
    assert any(name.endswith("/ralph_verify/config/until.py") for name in names)
    assert not any("/.venv" in name for name in names)

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bindir = env_dir / BIN
    install = subprocess.run([str(bindir / "python"), "-m", "pip", "install", "-q",
                              str(wheels[0])], capture_output=True, text=True, check=False,
                             env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert install.returncode == 0, install.stderr[-3000:]

    project = tmp_path / "tiny"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "tiny"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (project / "tiny.py").write_text("def double(x: int) -> int:\n    return 2 * x\n")
    (project / "tests" / "test_tiny.py").write_text(
        "from tiny import double\n\n\ndef test_double() -> None:\n"
        "    assert double(2) == 4\n")
    result = _run([str(bindir / "ralph-verify"), "check", "--until",
                   "tests,lint,coverage.min=100"], project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASSED: all 3 checks passed" in result.stdout
    (project / "tiny.py").write_text("import os\n\n\ndef double(x: int) -> int:\n"
                                     "    return 2 * x\n")
    result = _run([str(bindir / "ralph-verify"), "check", "--until", "tests,lint"], project)
    assert result.returncode == 1, result.stdout + result.stderr
