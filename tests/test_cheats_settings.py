"""Effective settings: a narrowing fails wherever it was written; a move with the same effect
completes. One real loop iteration per case under both drivers, judged by the project's real
coverage, pytest, mypy and ruff (see ``tests/test_cheats_effect.py`` for the harness)."""

from __future__ import annotations

import pytest

from tests.drivers import Driver, Step
from tests.test_cheats_effect import FIXED, KATA, TESTS, _cheat, _honest, driver

__all__ = ["driver"]  # the fixture, parametrized over both drivers

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


@pytest.mark.parametrize("spelling", sorted(COVERAGE_CHEATS))
def test_coverage_narrowed_from_another_file_never_completes(driver: Driver,
                                                             spelling: str) -> None:
    _cheat(driver, "tests,coverage>=100", dict(COVERAGE_KATA), dict(COVERAGE_CHEATS[spelling]),
           "narrowed-setting", "coverage now excludes" if "exclude" in spelling
           else "coverage no longer measures 1 file(s) it measured at the start (kata.py)")


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
                      "gained '-k not test_add'"),
    "pytest.ini python_files": ({"pytest.ini": "[pytest]\naddopts = --strict-markers\n"
                                            "python_files = check_*.py test_ok*.py\n",
                              "tests/test_ok_only.py": "def test_ok():\n    pass\n"},
                             "no longer collects 1 test file(s)"),
}


@pytest.mark.parametrize("spelling", sorted(PYTEST_CHEATS))
def test_pytest_narrowed_from_another_file_never_completes(driver: Driver,
                                                           spelling: str) -> None:
    step, words = PYTEST_CHEATS[spelling]
    _cheat(driver, "tests", dict(PYTEST_KATA), dict(step), "narrowed-setting", words,
           "pytest.ini:")


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
                               "mypy now ignores the errors of kata"),
    ".mypy.ini disable_error_code": ({".mypy.ini": "[mypy]\nstrict = True\n"
                                                   "disable_error_code = return-value\n"},
                                     "no longer reports error code(s) return-value"),
}


@pytest.mark.parametrize("spelling", sorted(MYPY_CHEATS))
def test_mypy_narrowed_from_another_file_never_completes(driver: Driver, spelling: str) -> None:
    step, words = MYPY_CHEATS[spelling]
    _cheat(driver, "types", dict(MYPY_KATA), dict(step), "narrowed-setting", words)


def test_mypy_strict_moved_to_mypy_ini_completes(driver: Driver) -> None:
    _honest(driver, "types", dict(MYPY_KATA),
            {"mypy.ini": "[mypy]\nstrict = True\n", "pyproject.toml": _pyproject(""),
             "kata.py": "def add(a: int, b: int) -> int:\n    return a + b\n"})


# --- ruff: rules or files dropped by a config file that takes precedence -------------------

LINTED = "import os\n\n\ndef add(a, b):\n    return a + b\n"
RUFF_KATA = {"pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F"]\n', "kata.py": LINTED}
RUFF_CHEATS = {
    "ruff.toml ignore": ({"ruff.toml": '[lint]\nselect = ["E", "F"]\nignore = ["F401"]\n'},
                         "no longer enforces 1 rule(s) it enforced at the start (F401)"),
    ".ruff.toml per-file-ignores": ({".ruff.toml": '[lint]\nselect = ["E", "F"]\n\n'
                                          '[lint.per-file-ignores]\n"kata.py" = ["F401"]\n'},
                           "ruff now ignores F401 in kata.py, where they fire"),
    "ruff.toml extend-exclude": ({"ruff.toml": 'extend-exclude = ["kata.py"]\n\n[lint]\n'
                                               'select = ["E", "F"]\n'},
                                 "ruff no longer lints 1 file(s)"),
}


@pytest.mark.parametrize("spelling", sorted(RUFF_CHEATS))
def test_ruff_narrowed_from_another_file_never_completes(driver: Driver, spelling: str) -> None:
    step, words = RUFF_CHEATS[spelling]
    _cheat(driver, "lint", dict(RUFF_KATA), dict(step), "narrowed-setting", words)


def test_a_stricter_ruff_config_with_a_few_ignores_completes(driver: Driver) -> None:
    _honest(driver, "lint", dict(RUFF_KATA),
            {"ruff.toml": '[lint]\nselect = ["E", "F", "B", "UP"]\nignore = ["B905", "UP035"]\n',
             "kata.py": "def add(a, b):\n    return a + b\n"})
