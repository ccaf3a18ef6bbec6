"""``tests`` and ``coverage`` through the front door: real pytest and coverage in temp projects."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.plugins.pytest_run import line_ranges, rerun_args
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent, prompt, state

CALC = """
def add(a, b):
    return a + b


def sub(a, b):
    if a > 100:
        return 0
    return a - b
"""

PASSING = """
from calc import add, sub


def test_add():
    assert add(1, 2) == 3


def test_sub():
    assert sub(3, 1) == 2


def test_add_negative():
    assert add(-1, -2) == -3
"""

#: Counts the pytest sessions started in the project (not xdist workers).
COUNTING_CONFTEST = """
from pathlib import Path


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):
        with (Path(__file__).parent / "sessions.txt").open("a") as handle:
            handle.write("session\\n")
"""


def project(ralph: Ralph, tests: str = PASSING, **files: str) -> None:
    ralph.makepyfile(calc=CALC, **{"tests/test_calc": tests}, **files)


def check_of(result: Any, name: str) -> dict[str, Any]:
    checks: list[dict[str, Any]] = result.json()["checks"]
    return next(c for c in checks if c["name"] == name)


def coverage_report_total(ralph: Ralph) -> float:
    """Run ``coverage run -m pytest`` and ``coverage report`` by hand; the TOTAL percent."""
    def run(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "coverage", *args], cwd=ralph.path,
                              capture_output=True, text=True, check=False)
        return proc.stdout

    run("run", "-m", "pytest", "-q", "-p", "no:cacheprovider")
    run("combine")  # no-op message unless parallel = true
    total = next(line for line in run("report").splitlines() if line.startswith("TOTAL"))
    return float(total.split()[-1].rstrip("%"))


def test_tests_and_coverage_share_one_pytest_run(ralph: Ralph) -> None:
    project(ralph, conftest=COUNTING_CONFTEST)
    result = ralph.run("check", "--until", "pytest,cov>=50", "--json")
    assert result.ret == 0, result
    tests, coverage = check_of(result, "tests"), check_of(result, "coverage")
    assert (tests["status"], tests["summary"], tests["metric"]) == ("passed", "3 passed", 3)
    assert tests["counts"]["passed"] == 3
    assert coverage["status"] == "passed" and coverage["summary"].endswith("% >= 50%")
    assert (ralph.path / "sessions.txt").read_text() == "session\n"  # once, not twice


def test_a_failing_test_names_its_id_and_message_and_coverage_is_still_measured(
        ralph: Ralph) -> None:
    project(ralph, PASSING + "\n\ndef test_sub_big():\n    assert sub(200, 1) == 199\n",
            conftest=COUNTING_CONFTEST)
    result = ralph.run("check", "--until", "tests,coverage", "--json")
    assert result.ret == 1, result
    tests = check_of(result, "tests")
    assert tests["summary"] == "1 failed, 3 passed"
    [failure] = tests["failures"]
    assert failure["location"] == "tests/test_calc.py::test_sub_big"
    assert failure["message"].startswith("assert 0 == 199")
    assert (failure["code"], failure["path"], failure["line"]) == (
        "AssertionError", "tests/test_calc.py", 17)
    assert "E       assert 0 == 199" in failure["detail"]
    # The failed test was re-run once (a second session) and failed again: not flaky.
    assert tests["flaky"] == []
    assert (ralph.path / "sessions.txt").read_text() == "session\nsession\n"
    coverage = check_of(result, "coverage")
    assert coverage["status"] == "passed" and coverage["metric"] == 100.0
    # The terminal summary (on stderr with --json) and its feedback show both.
    assert "tests/test_calc.py::test_sub_big" in result.err
    assert "assert 0 == 199" in result.err


FLAKY = """
from pathlib import Path


def test_flaky():
    marker = Path(__file__).parent / "flaky-marker"
    if not marker.exists():
        marker.write_text("failed once")
        assert False, "fails the first time only"


def test_real_failure():
    assert 1 == 2


def test_ok():
    pass
"""


def test_a_test_passing_on_rerun_is_flaky_apart_from_real_failures(ralph: Ralph) -> None:
    project(ralph, FLAKY)
    result = ralph.run("check", "--until", "tests", "--json")
    assert result.ret == 1, result
    tests = check_of(result, "tests")
    assert tests["summary"] == "1 failed, 2 passed (1 flaky)"
    assert tests["flaky"] == ["tests/test_calc.py::test_flaky"]
    assert [(f["location"], f["code"]) for f in tests["failures"]] == [
        ("tests/test_calc.py::test_real_failure", "AssertionError"),
        ("tests/test_calc.py::test_flaky", "flaky")]
    assert "flaky (failed, then passed on re-run): tests/test_calc.py::test_flaky" in result.err


def test_flaky_is_not_green_unless_allowed_and_rerun_zero_disables_reruns(ralph: Ralph) -> None:
    project(ralph, FLAKY.replace("assert 1 == 2", "pass"))
    result = ralph.run("check", "--until", "tests")
    # It failed in this verification: the feedback says it was flaky and why that blocks.
    assert result.ret == 1, result
    result.stdout.fnmatch_lines(["FAILED*tests*3 passed (1 flaky)*",
                                 "*flaky (failed, then passed on re-run): *test_flaky"])
    assert "flaky: failed in this verification, then passed on a re-run" in result.out
    assert "tests/test_calc.py::test_flaky" in result.out
    (ralph.path / "tests" / "flaky-marker").unlink()
    ralph.makepyproject('[tool.ralph-verify.checks.tests]\nflaky = "allow"\n')
    result = ralph.run("check", "--until", "tests")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["PASSED*tests*3 passed (1 flaky)*"])
    (ralph.path / "tests" / "flaky-marker").unlink()
    ralph.makepyproject("[tool.ralph-verify.checks.tests]\nrerun = 0\n")
    result = ralph.run("check", "--until", "tests")
    assert result.ret == 1, result
    result.stdout.fnmatch_lines(["FAILED*tests*1 failed, 2 passed*"])


def test_a_collection_error_is_a_failure(ralph: Ralph) -> None:
    project(ralph, **{"tests/test_broken": "import no_such_module\n"})
    result = ralph.run("check", "--until", "tests", "--json")
    assert result.ret == 1, result
    tests = check_of(result, "tests")
    assert tests["status"] == "failed"
    [failure] = tests["failures"]
    assert failure["location"] == "tests/test_broken.py"
    assert failure["message"] == ("collection error: ModuleNotFoundError: "
                                  "No module named 'no_such_module'")
    assert failure["code"] == "ModuleNotFoundError"


def test_no_tests_collected_is_a_failure(ralph: Ralph) -> None:
    ralph.makepyfile(calc=CALC, **{"tests/helpers": "X = 1\n"})
    result = ralph.run("check", "--until", "tests,coverage")
    assert result.ret == 3, result  # coverage cannot decide: an error outranks a failure
    # the two checks' lines in either order (each comes as it is decided), then the feedback
    result.stdout.fnmatch_lines(["FAILED*tests*no tests collected*"])
    result.stdout.fnmatch_lines([
        "ERROR*coverage*coverage has no data to report: pytest collected no tests*"])
    result.stdout.fnmatch_lines([
        "*no tests collected from the default test paths (pytest exit 5)*"])


def test_pytest_exiting_1_without_a_failed_test_is_a_failure(ralph: Ralph) -> None:
    project(ralph, conftest="def pytest_sessionfinish(session):\n    session.exitstatus = 1\n")
    result = ralph.run("check", "--until", "tests")
    assert result.ret == 1, result
    result.stdout.fnmatch_lines([
        "FAILED*tests*3 passed; but pytest exited 1*",
        "*pytest exited 1 although no test failed*",
    ])


def test_threshold_is_the_number_of_passing_tests(ralph: Ralph) -> None:
    project(ralph)
    assert ralph.run("check", "--until", "tests>=3").ret == 0
    result = ralph.run("check", "--until", "tests>=4")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "FAILED*tests>=4*3 passed; wanted >=4 passing*",
        "*3 tests passed, wanted >=4 passing tests (were tests deleted, skipped*",
    ])


def test_xdist_args_from_config_with_coverage_of_the_workers(ralph: Ralph) -> None:
    worker_test = ("\n\ndef test_records_worker():\n    import os\n"
                   "    Path('worker.txt').write_text(os.environ.get('PYTEST_XDIST_WORKER', ''))\n")
    project(ralph, "from pathlib import Path\n" + PASSING + worker_test)
    ralph.makepyproject('[tool.ralph-verify.checks.tests]\nargs = ["-n", "auto"]\n')
    result = ralph.run("check", "--until", "tests,coverage", "--json")
    assert result.ret == 0, result
    assert check_of(result, "tests")["summary"] == "4 passed"
    assert (ralph.path / "worker.txt").read_text().startswith("gw")
    # Workers are measured (plain 'coverage run' would see no data) and our helper is not.
    assert check_of(result, "coverage")["metric"] == coverage_report_total(ralph)


COVERAGE_CONFIG = """
[tool.coverage.run]
branch = true
parallel = true
source = ["calc"]

[tool.coverage.report]
precision = 2
fail_under = 99
"""


def test_coverage_equals_coverage_report_total_under_the_projects_config(
        ralph: Ralph) -> None:
    project(ralph)
    ralph.makepyproject(COVERAGE_CONFIG)
    result = ralph.run("check", "--until", "coverage>=50", "--json")
    # The project's fail_under (99) makes 'coverage json' exit 2; our threshold decides.
    assert result.ret == 0, result
    coverage = check_of(result, "coverage")
    total = coverage_report_total(ralph)
    assert total < 99
    assert coverage["metric"] == total
    assert coverage["summary"] == f"{total:.2f}% >= 50%"
    # Without a threshold the project's own fail_under is the bar.
    result = ralph.run("check", "--until", "coverage", "--json")
    assert result.ret == 1, result
    coverage = check_of(result, "coverage")
    assert coverage["summary"] == f"{total:.2f}% is below the project's fail_under"
    [failure] = coverage["failures"]
    assert failure["message"] == f"calc.py: {total:.2f}% — missing 7"
    assert (failure["path"], failure["line"]) == ("calc.py", 7)


def test_missing_pytest_or_coverage_or_python_names_the_fix(ralph: Ralph,
                                                            tmp_path: Path) -> None:
    project(ralph)
    venv = tmp_path / "bare-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / ("Scripts" if sys.platform == "win32" else "bin") / "python")
    result = ralph.run("check", "--until", "tests", "--python", python)
    assert result.ret == 3, result
    result.stdout.fnmatch_lines([f"ERROR*pytest is not installed in {python}: install it "
                                 "there with 'pip install pytest'*"])
    result = ralph.run("check", "--until", "coverage", "--python", python)
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*coverage is not installed in*'pip install coverage'*"])
    # With coverage there (linked in) but no pytest, coverage's own message is understood.
    import coverage

    site = next((venv / "lib").glob("python3*")) / "site-packages"
    (site / "coverage").symlink_to(Path(coverage.__file__).parent)
    result = ralph.run("check", "--until", "tests,coverage", "--python", python)
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*pytest is not installed in*'pip install pytest'*"] * 2)
    # A --python that names nothing is the user's mistake: a usage error before anything runs.
    result = ralph.run("check", "--until", "tests", "--python", str(tmp_path / "nope"))
    assert result.ret == 2, result
    assert f"ERROR: --python {tmp_path / 'nope'}: no such file" in result.err
    assert "Traceback" not in result.out + result.err


def test_pytest_usage_error_is_an_error_with_its_output(ralph: Ralph) -> None:
    project(ralph)
    ralph.makepyproject('[tool.ralph-verify.checks.tests]\nargs = ["--no-such-flag"]\n')
    result = ralph.run("check", "--until", "tests")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*pytest stopped with a usage error (exit 4)*",
                                 "*unrecognized arguments: --no-such-flag*"])


def test_junit_is_only_the_fallback_and_a_truncated_file_is_an_error(ralph: Ralph) -> None:
    truncating = """
        from pathlib import Path


        def pytest_unconfigure(config):
            Path("asked-for-junit").write_text(str(bool(config.option.xmlpath)))
            if config.option.xmlpath:
                path = Path(config.option.xmlpath)
                path.write_bytes(path.read_bytes()[:120])
    """
    project(ralph, conftest=truncating)
    # Our pytest plugin's record decides: pytest is not even asked to write the JUnit file
    # (it would cost as much as a trivial test, for every test).
    result = ralph.run("check", "--until", "tests")
    assert result.ret == 0, result
    result.stdout.fnmatch_lines(["PASSED*tests*3 passed*"])
    assert (ralph.path / "asked-for-junit").read_text() == "False"
    # Without our plugin, JUnit XML is the fallback (and the summary says so).
    ralph.makepyproject('[tool.ralph-verify.checks.tests]\n'
                        'args = ["-p", "no:ralph_verify_recorder"]\n')
    result = ralph.run("check", "--until", "tests")
    assert (ralph.path / "asked-for-junit").read_text() == "True"
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*pytest's JUnit XML is unreadable: *truncated XML*"])
    assert "Traceback" not in result.out + result.err


def test_a_run_whose_session_never_finished_gives_no_verdict(ralph: Ralph) -> None:
    # The JUnit file used to say that pytest's session finished; our recorder says it now. A
    # suite that ends its own process early, exit status 0, is not a pass.
    project(ralph, conftest="import os\n\n\ndef pytest_runtestloop(session):\n    os._exit(0)\n")
    result = ralph.run("check", "--until", "tests")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*pytest exited 0 before its session finished*"])


@pytest.mark.parametrize(("args", "kept"), [
    (("-q", "tests/unit", "-n", "auto"), ["-q"]),
    (("-n4", "--dist=loadfile", "-x", "tests/unit::test_one"), ["-x"]),
    (("--rootdir", "tests", "-k", "calc", "-p", "no:randomly", "--lf"),
     ["--rootdir", "tests", "-k", "calc", "-p", "no:randomly"]),
])
def test_rerun_args_drop_paths_and_xdist(tmp_path: Path, args: tuple[str, ...],
                                         kept: list[str]) -> None:
    (tmp_path / "tests" / "unit").mkdir(parents=True)
    assert rerun_args(args, tmp_path) == kept


def test_line_ranges_like_coverage_report() -> None:
    statements = [1, 2, 3, 5, 6, 9, 12, 13, 20]
    assert line_ranges(statements, [2, 3, 5, 12, 20]) == "2-5, 12, 20"
    assert line_ranges(list(range(1, 400, 2)), list(range(1, 400, 4)),
                       max_chars=20) == "1, 5, 9, 13, 17, 21, ... (94 more)"


def _rewrite_keeping_size_and_mtime(path: Path, text: str) -> None:
    """What a fast agent does: a new body of the same size within the same second."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_rewrite_within_the_same_second_is_tested_not_stale_bytecode(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> None:
    # As on most machines: Python writes .pyc files (this one may be set up not to).
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    ralph.makepyfile(calc="def add(a, b):\n    return a - b\n",
                     **{"tests/test_calc": "from calc import add\n\n\n"
                                           "def test_add():\n    assert add(2, 3) == 5\n"})
    ralph.makepyproject('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    assert ralph.run("check", "--until", "tests").ret == 1
    _rewrite_keeping_size_and_mtime(ralph.path / "calc.py", "def add(a, b):\n    return a + b\n")
    result = ralph.run("check", "--until", "tests")
    assert result.ret == 0, result
    # Our runs leave no bytecode in the project either.
    assert not list(ralph.path.rglob("__pycache__"))


#: An agent that "fixes" add with a flaky implementation: every full run fails, every
#: re-run passes (a marker outside the project flips each call).
FLAKY_FIX = '''
pathlib.Path("calc.py").write_text(
    "import pathlib\\n\\n\\n"
    "def add(a, b):\\n"
    "    marker = pathlib.Path(__file__).resolve().parent.parent / 'flip'\\n"
    "    if marker.exists():\\n"
    "        marker.unlink()\\n"
    "        return a + b\\n"
    "    marker.write_text('x')\\n"
    "    return 0\\n\\n\\n"
    "def sub(a, b):\\n"
    "    return a - b\\n")
'''


def test_a_loop_never_completes_on_a_flaky_test_unless_allowed(ralph: Ralph) -> None:
    project(ralph, "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    (ralph.path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    result = ralph.run("run", "--agent", agent(ralph, FLAKY_FIX), "--until", "tests",
                       "--max-iterations", "2", "fix add")
    assert result.ret != 0, result
    assert state(ralph)["verdict"]["verdict"] == "max-iterations"
    # The agent is told the test was flaky, and why that still blocks.
    second = prompt(ralph, 2)
    assert "tests/test_calc.py::test_add" in second
    assert "flaky: failed in this verification, then passed on a re-run" in second
    ralph.makepyproject('[tool.ralph-verify.checks.tests]\nflaky = "allow"\n')
    result = ralph.run("run", "--agent", agent(ralph, FLAKY_FIX), "--until", "tests",
                       "--max-iterations", "2", "--allow-dirty", "fix add")
    assert result.ret == 0, result
    assert state(ralph)["verdict"]["verdict"] == "complete"


def test_bytecode_stays_warm_and_only_changed_sources_are_compiled_again(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The bytecode prefix persists: an unchanged module is not compiled again, a module
    whose content changed is (even at the same size and second), a removed one's is gone."""
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    cache = tmp_path_factory.mktemp("cache")
    ralph.env["RALPH_VERIFY_CACHE_DIR"] = str(cache)
    ralph.makepyfile(calc="def add(a, b):\n    return a + b\n",
                     util="def one():\n    return 1\n",
                     gone="X = 1\n",
                     **{"tests/test_calc": "import gone\nfrom calc import add\n"
                                           "from util import one\n\n\ndef test_add():\n"
                                           "    assert add(one(), 2) == 3\n"})
    ralph.makepyproject('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    assert ralph.run("check", "--until", "tests").ret == 0

    def bytecode(stem: str) -> list[Path]:
        root = ralph.path.resolve()
        return sorted((cache / "pycache" / root.relative_to(root.anchor)).glob(f"{stem}.*.pyc"))

    [util_pyc], [calc_pyc], [gone_pyc] = bytecode("util"), bytecode("calc"), bytecode("gone")
    warm = util_pyc.stat().st_mtime_ns, util_pyc.stat().st_ino
    os.utime(util_pyc, ns=(1, 1))  # a recompile would write a new file
    calc_before = calc_pyc.read_bytes()
    _rewrite_keeping_size_and_mtime(ralph.path / "calc.py", "def add(a, b):\n    return a * b\n")
    (ralph.path / "gone.py").unlink()
    (ralph.path / "tests" / "test_calc.py").write_text(
        "from calc import add\nfrom util import one\n\n\ndef test_add():\n"
        "    assert add(one(), 2) == 2\n")
    result = ralph.run("check", "--until", "tests")
    assert result.ret == 0, result
    assert util_pyc.stat().st_mtime_ns == 1 and util_pyc.stat().st_ino == warm[1]
    assert calc_pyc.read_bytes() != calc_before
    assert not gone_pyc.exists()
