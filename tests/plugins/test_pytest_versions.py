"""ralph-verify's recorder runs inside the project's own pytest, whatever its version.

A project pins its own pytest; the tests check must read it as it reads the newest one.
pytest 7.0 to 9.0 hand out a plain function for the hooks that take a path
(``config.hook.pytest_collect_file``), where 9.1 and later hand out the hook itself:
asking the first for its implementations stopped every run with an internal error. Each
version here gets a virtual environment of its own, installed from PyPI (pip's cache makes
a re-run quick).
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from typing import Any

import pytest

from ralph_verify.testing import Ralph
from tests.plugins.test_pytest_recorder import TAMPERING_CONFTEST

#: pytest 6.2 (the oldest the recorder keeps working with), the last 7 and 8, and 9.0, the
#: last with the path-aware hook proxy. The newest is the one this suite runs on.
VERSIONS = ("6.2.5", "7.4.4", "8.4.2", "9.0.3")
BIN = "Scripts" if os.name == "nt" else "bin"

APP = "def double(x):\n    return x * 3\n"
TESTS = """\
import pytest
from app import double


def test_pass():
    assert double(0) == 0


def test_fail():
    assert double(2) == 4


@pytest.mark.skip(reason="later")
def test_skip():
    pass


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def test_fixture_error(broken):
    pass


@pytest.mark.parametrize("n", [1, 2, 3])
def test_param(n):
    assert n > 0
"""
@pytest.fixture(scope="module", params=VERSIONS)
def project_python(request: pytest.FixtureRequest,
                   tmp_path_factory: pytest.TempPathFactory) -> str:
    """An interpreter whose pytest is ``request.param``."""
    folder = tmp_path_factory.mktemp(f"pytest-{request.param}") / "venv"
    venv.EnvBuilder(with_pip=False).create(folder)
    python = folder / BIN / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    f"pytest=={request.param}"], check=True, timeout=600,
                   env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    return str(python)


def check_tests(ralph: Ralph, python: str) -> tuple[int, dict[str, Any]]:
    result = ralph.run("check", "--until", "tests", "--python", python, "--no-cache", "--json")
    checks: list[dict[str, Any]] = result.json()["checks"]
    return result.ret, checks[0]


def test_every_outcome_is_counted_as_that_pytest_counts_it(ralph: Ralph,
                                                           project_python: str) -> None:
    ralph.makepyfile(app=APP, test_app=TESTS)
    code, tests = check_tests(ralph, project_python)
    assert code == 1
    assert tests["status"] == "failed", tests
    assert tests["summary"] == "1 failed, 4 passed, 1 skipped, 1 xfailed, 1 error"
    failures = {f["location"]: f for f in tests["failures"]}
    assert set(failures) == {"test_app.py::test_fail", "test_app.py::test_fixture_error"}
    assert "assert 6 == 4" in failures["test_app.py::test_fail"]["message"]
    assert "fixture broke" in failures["test_app.py::test_fixture_error"]["message"]


def test_a_report_rewritten_to_passed_is_caught(ralph: Ralph, project_python: str) -> None:
    ralph.makepyfile(app=APP, conftest=TAMPERING_CONFTEST, test_app=(
        "from app import double\n\n\ndef test_fail():\n    assert double(2) == 4\n"))
    code, tests = check_tests(ralph, project_python)
    assert code == 1, tests
    [failure] = tests["failures"]
    assert failure["code"] == "tampering", failure
    assert failure["location"] == "test_app.py::test_fail"

