"""Effective settings: a narrowing fails wherever it was written; a move with the same effect
completes. One real loop iteration per case under both drivers, judged by the project's real
coverage, pytest, mypy and ruff (see ``tests/integrity/test_cheats_effect.py`` for the harness)."""

from __future__ import annotations

import pytest

from tests.drivers import Driver, Step
from tests.integrity.test_cheats_effect import FIXED, KATA, TESTS, _cheat, _honest

# --- coverage: a file or lines taken out of measurement from another file ----------------

COVERED = FIXED + "\n\ndef extra(x):\n    if x:\n        return 1\n    return 2\n"
COVERAGE_KATA = {"pyproject.toml": "[tool.coverage.run]\nbranch = true\n",
                 "kata.py": COVERED, "tests/test_kata.py": TESTS}
COVERAGE_CHEATS: dict[str, Step] = {
    ".coveragerc omit": {".coveragerc": "[run]\nomit = kata.py\n"},
    "setup.cfg exclude_lines": {"setup.cfg": "[coverage:report]\nexclude_lines =\n"
                                             "    def extra\n"},
    "tox.ini omit": {"tox.ini": "[coverage:run]\nomit =\n    kata.py\n"},
}
#: Words of each finding; the per-file rule reports a new file's settings at the same line
#: (one finding per line), so either rule may name it.
BOTH = "narrowed-setting"


def test_a_coveragerc_that_shadows_branch_coverage_never_completes(driver: Driver) -> None:
    """Nothing in the new file is a watched setting: only the effect shows that coverage
    stopped measuring branches (the partial branch of ``extra`` is what failed)."""
    tests = TESTS + "\n\ndef test_extra():\n    from kata import extra\n    assert extra(1) == 1\n"
    files = {**COVERAGE_KATA, "tests/test_kata.py": tests}
    _cheat(driver, "tests,coverage>=100", files,
           {".coveragerc": "[report]\nshow_missing = True\n"}, "narrowed-setting",
           "coverage no longer measures branches", ".coveragerc:")


@pytest.mark.parametrize("spelling", sorted(COVERAGE_CHEATS))
def test_coverage_narrowed_from_another_file_never_completes(driver: Driver,
                                                             spelling: str) -> None:
    _cheat(driver, "tests,coverage>=100", dict(COVERAGE_KATA), dict(COVERAGE_CHEATS[spelling]),
           BOTH, spelling.split()[0] + ":")


def test_coverage_settings_moved_to_coveragerc_complete(driver: Driver) -> None:
    tests = TESTS + ("\n\ndef test_extra():\n    from kata import extra\n"
                     "    assert extra(1) == 1\n    assert extra(0) == 2\n")
    _honest(driver, "tests,coverage>=100", dict(COVERAGE_KATA),
            {".coveragerc": "[run]\nbranch = True\n", "tests/test_kata.py": tests,
             "pyproject.toml": _pyproject("")})


def _pyproject(extra: str) -> str:
    from ralph_verify.testing import DEFAULT_PYPROJECT

    return DEFAULT_PYPROJECT + extra


# --- pytest: tests taken out of the run by a file that shadows the configuration ----------

PYTEST_KATA = {"pyproject.toml": '[tool.pytest.ini_options]\naddopts = "--strict-markers"\n',
               "kata.py": KATA, "tests/test_kata.py": TESTS + "\n\ndef test_ok():\n    pass\n"}
PYTEST_CHEATS = {
    "pytest.ini -k": ({"pytest.ini": '[pytest]\naddopts = --strict-markers -k "not test_add"\n'},
                      "-k not test_add"),
    "pytest.ini python_files": ({"pytest.ini": "[pytest]\naddopts = --strict-markers\n"
                                            "python_files = check_*.py test_ok*.py\n",
                              "tests/test_ok_only.py": "def test_ok():\n    pass\n"},
                             "pytest.ini:"),
}


@pytest.mark.parametrize("spelling", sorted(PYTEST_CHEATS))
def test_pytest_narrowed_from_another_file_never_completes(driver: Driver,
                                                           spelling: str) -> None:
    step, words = PYTEST_CHEATS[spelling]
    _cheat(driver, "tests", dict(PYTEST_KATA), dict(step), BOTH, words, "pytest.ini:")


def test_a_pytest_ini_that_shadows_warnings_as_errors_never_completes(driver: Driver) -> None:
    warns = "import warnings\n\n\ndef add(a, b):\n    warnings.warn('old', DeprecationWarning)\n" \
            "    return a + b\n"
    files = {"pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-W error"\n',
             "kata.py": warns, "tests/test_kata.py": TESTS}
    _cheat(driver, "tests", files, {"pytest.ini": "[pytest]\nminversion = 7\n"},
           "narrowed-setting", "pytest's effective options lost '-W error'", "pytest.ini:")


def test_pytest_settings_moved_to_pytest_ini_complete(driver: Driver) -> None:
    _honest(driver, "tests", dict(PYTEST_KATA),
            {"pytest.ini": "[pytest]\naddopts = --strict-markers\n", "kata.py": FIXED,
             "pyproject.toml": _pyproject("")})


# --- mypy: a module silenced or a check switched off from another file ---------------------

TYPED = "def add(a: int, b: int) -> int:\n    return str(a + b)\n"
MYPY_KATA = {"pyproject.toml": "[tool.mypy]\nstrict = true\n", "kata.py": TYPED}
MYPY_CHEATS = {
    "mypy.ini ignore_errors": ({"mypy.ini": "[mypy]\nstrict = True\n\n[mypy-kata]\n"
                                            "ignore_errors = True\n"},
                               "kata"),
    ".mypy.ini disable_error_code": ({".mypy.ini": "[mypy]\nstrict = True\n"
                                                   "disable_error_code = return-value\n"},
                                     "return-value"),
}


@pytest.mark.parametrize("spelling", sorted(MYPY_CHEATS))
def test_mypy_narrowed_from_another_file_never_completes(driver: Driver, spelling: str) -> None:
    step, words = MYPY_CHEATS[spelling]
    _cheat(driver, "types", dict(MYPY_KATA), dict(step), BOTH, words)


def test_a_mypy_ini_that_shadows_strict_never_completes(driver: Driver) -> None:
    files = {"pyproject.toml": "[tool.mypy]\nstrict = true\n",
             "kata.py": "def add(a, b):\n    return a + b\n"}
    _cheat(driver, "types", files, {"mypy.ini": "[mypy]\nwarn_unused_configs = True\n"},
           "narrowed-setting", "mypy checks less than at the start", "check_untyped_defs off",
           "mypy.ini:")


def test_mypy_strict_moved_to_mypy_ini_completes(driver: Driver) -> None:
    _honest(driver, "types", dict(MYPY_KATA),
            {"mypy.ini": "[mypy]\nstrict = True\n", "pyproject.toml": _pyproject(""),
             "kata.py": "def add(a: int, b: int) -> int:\n    return a + b\n"})


# --- ruff: rules or files dropped by a config file that takes precedence -------------------

LINTED = "import os\n\n\ndef add(a, b):\n    return a + b\n"
RUFF_KATA = {"pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F"]\n', "kata.py": LINTED}
RUFF_CHEATS = {
    "ruff.toml ignore": ({"ruff.toml": '[lint]\nselect = ["E", "F"]\nignore = ["F401"]\n'},
                         "F401"),
    ".ruff.toml per-file-ignores": ({".ruff.toml": '[lint]\nselect = ["E", "F"]\n\n'
                                          '[lint.per-file-ignores]\n"kata.py" = ["F401"]\n'},
                           "F401"),
    "ruff.toml extend-exclude": ({"ruff.toml": 'extend-exclude = ["kata.py"]\n\n[lint]\n'
                                               'select = ["E", "F"]\n'},
                                 "kata.py"),
}


@pytest.mark.parametrize("spelling", sorted(RUFF_CHEATS))
def test_ruff_narrowed_from_another_file_never_completes(driver: Driver, spelling: str) -> None:
    step, words = RUFF_CHEATS[spelling]
    _cheat(driver, "lint", dict(RUFF_KATA), dict(step), BOTH, words)


def test_a_ruff_toml_that_shadows_the_rule_selection_never_completes(driver: Driver) -> None:
    files = {"pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F"]\n',
             "kata.py": "def add(a, b):\n    if a == None:\n        return b\n"
                        "    return a + b\n"}
    _cheat(driver, "lint", files, {"ruff.toml": "line-length = 100\n"}, "narrowed-setting",
           "ruff no longer enforces", "E711", "ruff.toml:")


def test_a_stricter_ruff_config_with_a_few_ignores_completes(driver: Driver) -> None:
    _honest(driver, "lint", dict(RUFF_KATA),
            {"ruff.toml": '[lint]\nselect = ["E", "F", "B", "UP"]\nignore = ["B905", "UP035"]\n',
             "kata.py": "def add(a, b):\n    return a + b\n"})


# --- the set of files a tool checks may grow, never shrink --------------------------------

SUB_KATA = {"pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F"]\n\n'
                              '[tool.mypy]\nstrict = true\n',
            "pkg/__init__.py": "", "pkg/kata.py": LINTED, "pkg/typed.py": TYPED}
SHRINKING = {
    "lint: .gitignore": ("lint", {".gitignore": "pkg/kata.py\n"}, "pkg/kata.py"),
    "lint: sub-folder ruff.toml ignore": (
        "lint", {"pkg/ruff.toml": '[lint]\nselect = ["E"]\n'}, "pkg/ruff.toml"),
    "lint: sub-folder ruff.toml exclude": (
        "lint", {"pkg/ruff.toml": 'exclude = ["kata.py"]\n[lint]\nselect = ["E", "F"]\n'},
        "pkg/kata.py"),
    "types: .pyi stub beside the module": (
        "types", {"pkg/typed.pyi": "from typing import Any\n\n\ndef add(a: Any, b: Any) -> Any: "
                                   "...\n"}, "pkg/typed.pyi"),
    "types: exclude": ("types", {"pyproject.toml": _pyproject(
        '[tool.ruff.lint]\nselect = ["E", "F"]\n\n[tool.mypy]\nstrict = true\n'
        'exclude = ["typed"]\n')}, "typed"),
}


@pytest.mark.parametrize("spelling", sorted(SHRINKING))
def test_a_tool_that_checks_fewer_files_never_completes(driver: Driver, spelling: str) -> None:
    until, step, words = SHRINKING[spelling]
    _cheat(driver, until, dict(SUB_KATA), dict(step), f"{BOTH}|fewer-files", words)
