"""Which Python runs the tests: said in the headers of ``check`` and ``run``; the project's
own virtualenv wins over ralph-verify's; a missing module gets a hint naming the others.

Real virtualenvs, made fast: ``venv --without-pip`` plus a ``.pth`` giving them our pytest.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

from ralph_verify.testing import Ralph

VERSION = ".".join(str(part) for part in sys.version_info[:3])


def make_venv(path: Path, *extra_sites: Path) -> Path:
    """A virtualenv that sees our packages (pytest) and ``extra_sites``; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / ("Scripts" if sys.platform == "win32" else "bin") / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_path('purelib'))"], check=True,
                               capture_output=True, text=True).stdout.strip())
    ours = sysconfig.get_path("purelib")
    (site / "dev.pth").write_text("\n".join([ours, *map(str, extra_sites)]) + "\n")
    return python


def test_check_says_which_python_runs_the_tests(ralph: Ralph, tmp_path: Path) -> None:
    # The test records which interpreter ran it: the header must name that one.
    ralph.makepyfile(test_ok="import sys\n\n\ndef test_ok():\n"
                             "    open('ran-in.txt', 'w').write(sys.prefix)\n")

    def ran_in() -> str:
        return Path((ralph.path / "ran-in.txt").read_text()).name

    ours = ralph.run("check", "--until", "tests")
    ours.stdout.fnmatch_lines(["ralph-verify check · *",
                               f"python: {sys.executable} ({VERSION}, ralph-verify's own)"])
    assert ran_in() == Path(sys.prefix).name

    make_venv(ralph.path / ".venv")
    project = ralph.run("check", "--until", "tests")
    assert project.ret == 0, project
    project.stdout.fnmatch_lines([f"python: .venv/bin/python ({VERSION}, project .venv)",
                                  "PASSED*tests*1 passed*"])

    # ralph-verify's own virtualenv activated (to run ralph-verify): the project's wins.
    ralph.env["VIRTUAL_ENV"] = sys.prefix
    assert sys.prefix != sys.base_prefix, "the tests run from a virtualenv (.venv-test)"
    ralph.run("check", "--until", "tests").stdout.fnmatch_lines(
        ["python: .venv/bin/python (*, project .venv)"])
    assert ran_in() == ".venv"

    # Another activated virtualenv: the user chose it, it wins.
    other = make_venv(tmp_path / "elsewhere")
    ralph.env["VIRTUAL_ENV"] = str(other.parent.parent)
    ralph.run("check", "--until", "tests").stdout.fnmatch_lines(
        [f"python: {other} (*, activated $VIRTUAL_ENV)"])
    assert ran_in() == "elsewhere"
    # --python wins over everything.
    ralph.run("check", "--until", "tests", "--python", ".venv/bin/python").stdout.fnmatch_lines(
        ["python: .venv/bin/python (*, --python / python setting)"])


def test_run_header_says_which_python(ralph: Ralph) -> None:
    make_venv(ralph.path / "venv")
    ralph.makepyfile(test_done="import os\n\n\ndef test_done():\n"
                               "    assert os.path.exists('done.txt')\n")
    result = ralph.run("run", "--agent", "cmd:true", "--until", "tests",
                       "--max-iterations", "1", "x")
    assert result.ret != 0, result
    assert f"python: venv/bin/python ({VERSION}, project venv)" in result.out + result.err


def test_no_python_line_where_no_check_runs_python(ralph: Ralph) -> None:
    """``files:`` and ``lint`` run no Python of the project's: naming one would mislead."""
    make_venv(ralph.path / "venv")
    ralph.makepyfile(app="x = 1\n")
    run = ralph.run("run", "--agent", "cmd:true", "--until", "files:done.txt",
                    "--max-iterations", "1", "x")
    assert run.ret != 0, run
    assert "ralph-verify run · " in run.out
    check = ralph.run("check", "--until", "lint,files:app.py")
    assert check.ret == 0, check
    for result in (run, check):
        assert "python:" not in result.out + result.err, result
    typed = ralph.run("check", "--until", "lint,types")
    typed.stdout.fnmatch_lines(["ralph-verify check · *", "python: venv/bin/python*"])


def test_missing_test_dependency_names_the_interpreter_and_the_one_that_has_it(
        ralph: Ralph, tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "hypothesis_stand_in").mkdir(parents=True)
    (site / "hypothesis_stand_in" / "__init__.py").write_text("")
    make_venv(ralph.path / ".venv")  # without it
    make_venv(ralph.path / ".tox" / "py", site)  # with it
    ralph.makepyfile(**{"tests/test_props": "import hypothesis_stand_in\n\n\n"
                                            "def test_ok():\n    assert True\n"})
    result = ralph.run("check", "--until", "tests")
    assert result.ret == 1, result
    result.stdout.fnmatch_lines([
        "*No module named 'hypothesis_stand_in'*",
        "*hint: 'hypothesis_stand_in' is not installed in .venv/bin/python (*, project .venv);"
        " .tox/py/bin/python (*, project .tox/py) has it: run with "
        "--python .tox/py/bin/python*",
    ])
    fixed = ralph.run("check", "--until", "tests", "--python", ".tox/py/bin/python")
    assert fixed.ret == 0, fixed

    # Nobody has it: the hint lists what was looked at.
    ralph.makepyfile(**{"tests/test_props": "import not_anywhere_zz\n"})
    nowhere = ralph.run("check", "--until", "tests", "--python", ".tox/py/bin/python")
    nowhere.stdout.fnmatch_lines([
        "*hint: 'not_anywhere_zz' is not installed in .tox/py/bin/python (*), nor in the "
        "others found (.venv/bin/python (*, project .venv), *ralph-verify's own)), and the "
        "project has no not_anywhere_zz.py: if it is the project's own code, it is not "
        "written yet; if it is a dependency, declare it and install it*"])
    assert "pip install not_anywhere_zz" not in nowhere.out  # a test-first module: never

    # The project has it, but not where the tests' Python looks (a src layout, not installed).
    ralph.makepyfile(**{"src/not_anywhere_zz/__init__": "VALUE = 1\n"})
    uninstalled = ralph.run("check", "--until", "tests", "--python", ".tox/py/bin/python")
    uninstalled.stdout.fnmatch_lines([
        "*hint: 'not_anywhere_zz' is not installed in *; the project has "
        "src/not_anywhere_zz: install the project in that interpreter (pip install -e .)*"])


def test_the_mypy_probe_is_asked_once_per_environment_until_it_changes(ralph: Ralph) -> None:
    # Whether the project's Python has mypy is asked by starting it: once per environment,
    # kept until a package is installed or removed there (its site-packages folder changes).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ralph.path / ".venv")],
                   check=True)
    log = ralph.path / "started.log"
    logged = ralph.path / ".venv" / "bin" / "python-logged"
    logged.write_text(f'#!/bin/bash\necho "$*" >> {log}\n'
                      'exec -a "$(dirname "$0")/python" "$(dirname "$0")/python" "$@"\n')
    logged.chmod(0o755)
    ralph.makepyfile(app="def double(x: int) -> int:\n    return 2 * x\n")

    def probes() -> int:
        lines = log.read_text().splitlines() if log.exists() else []
        return sum("find_spec('mypy')" in line for line in lines)

    for expected in (1, 1):
        result = ralph.run("check", "--until", "types", "--python", str(logged))
        assert result.ret == 0, result
        result.stdout.fnmatch_lines(["PASSED*types*"])
        assert probes() == expected
    site = next((ralph.path / ".venv").glob("lib/python*/site-packages"))
    (site / "installed.pth").write_text("")
    assert ralph.run("check", "--until", "types", "--python", str(logged)).ret == 0
    assert probes() == 2
