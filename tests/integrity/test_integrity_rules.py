"""Integrity's rules one by one, on source text and small real projects: each
spelling of a cheat is found, each honest look-alike is not (the loops that play them are in
``tests/integrity/test_cheats_effect.py`` and ``tests/integrity/test_cheats_settings.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ralph_verify.integrity import effective
from ralph_verify.integrity.judge import compare
from ralph_verify.integrity.picture import take
from ralph_verify.integrity.rules import special_cases, standins, weakened
from ralph_verify.integrity.rules.assertions import IN_OLD_TESTS
from ralph_verify.records.integrity import Gate


def _rules(source: str, *, new_test: bool = True) -> list[str]:
    """The rules found in a test; in a new test (``new_test``), not those that count only
    where a test of the session's start had a real check."""
    return [str(item[0]) for body in weakened.summarise(source).values() for item in body.found
            if not (new_test and item[0] == IN_OLD_TESTS)]


@pytest.mark.parametrize(("body", "rule"), [
    ("assert add(2, 3) == 5 or True", "or-constant"),
    ("assert add(2, 3) == 5 or 'fallback'", "or-constant"),
    ("assert (add(2, 3), 'message')", "constant-true"),
    ("assert 'text'", "constant-true"),
    ("assert 2 == 2", "constant-true"),
    ("assert not None", "constant-true"),
    ("x = add(2, 3)\n    assert x is x", "self-compare"),
    ("n = 5\n    assert n == n", "self-compare"),
    ("n = [1]\n    self.assertEqual(n, n)", "self-compare"),
    ("try:\n        assert add(2, 3) == 5\n    except AssertionError:\n        pass",
     "swallowed-assert"),
    ("try:\n        assert add(2, 3) == 5\n    except Exception:\n        print('no')",
     "swallowed-assert"),
    ("with contextlib.suppress(AssertionError):\n        assert add(2, 3) == 5",
     "swallowed-assert"),
])
def test_an_assertion_that_cannot_fail_is_found(body: str, rule: str) -> None:
    assert rule in _rules(f"def test_x(self=None):\n    {body}\n")


@pytest.mark.parametrize("body", [
    "s = Version('1.0')\n    assert s >= s",
    "s = make()\n    assert s == s",
    "x = add(2, 3)\n    assert x is not None",
    "assert add(2, 3) == 5 or add(3, 2) == 5",
    "assert hash(v) == hash(v)",
    "try:\n        assert f() == 1\n    except ValueError:\n        pass",
    "with pytest.raises(AssertionError):\n        assert 1 == 2",
])
def test_an_honest_assertion_is_not(body: str) -> None:
    assert _rules(f"def test_x():\n    {body}\n") == []


@pytest.mark.parametrize(("body", "found"), [
    ("s = make()\n    assert s == s", True),
    ("def test_x(net):\n    assert net == net", True),
    ("s = Money(1)\n    assert s == s", False),
    ("assert s.total == s.total", False),
])
def test_a_name_compared_with_itself_counts_in_a_test_of_the_start(body: str,
                                                                  found: bool) -> None:
    """``x == x`` is the NaN check in a new test; where a test of the start had a real
    check, it is a ``self-compare``."""
    source = body if body.startswith("def ") else f"def test_x():\n    {body}"
    assert (IN_OLD_TESTS in _rules(source + "\n", new_test=False)) is found


CONFTEST = """\
import kata, requests, time
from kata import core
from unittest import mock
import pytest


@pytest.fixture(autouse=True)
def fake(monkeypatch, mocker, request):
    monkeypatch.setattr(kata, "add", lambda a, b: a + b)
    monkeypatch.setattr("kata.mul", None)
    monkeypatch.setattr(requests, "get", None)
    monkeypatch.setattr(time, "time", lambda: 0)
    monkeypatch.setattr(request.module, "add", None)
    mocker.patch("kata.core.thing")
    mock.patch.object(core, "x").start()
    setattr(kata, "div", None)
    monkeypatch.setitem(__import__("sys").modules, "requests", None)
"""


def test_stand_ins_for_the_project_are_found_and_third_party_patches_are_not() -> None:
    found = standins.scan(CONFTEST, {"kata"}, whole=True)
    assert [t for t, *_ in found] == ["kata.add", "kata.mul", "?.add", "kata.core.thing",
                                      "kata.core.x", "kata.div"]
    assert standins.resolve("?.add", {"add": "kata.add"}) == "kata.add"
    assert standins.resolve("?.get", {"add": "kata.add"}) is None


def test_in_a_test_module_only_fixtures_and_set_up_count() -> None:
    text = ("import kata, pytest\n\n\ndef test_branch(monkeypatch):\n"
            "    monkeypatch.setattr(kata, 'now', lambda: 0)\n\n\n@pytest.fixture\n"
            "def clock(monkeypatch):\n    monkeypatch.setattr(kata, 'now', lambda: 0)\n")
    assert [(t, line) for t, line, *_ in standins.scan(text, {"kata"}, whole=False)] == \
        [("kata.now", 10)]
    assert standins.project_names(["src/pkg/a.py", "kata.py", "tests/test_a.py", "setup.py",
                                   "docs/conf.py"]) == {"pkg", "kata"}


TESTS = """\
import pytest

def test_add():
    assert add(2, 3) == 5
    assert fact(5) == 120
    assert numeral(5) == "V"

@pytest.mark.parametrize("a,b,expected", [(4, 5, 9), (10, 20, 30)])
def test_p(a, b, expected):
    assert add(a, b) == expected
"""
IMPL = """\
ROMAN = {1: "I", 4: "IV", 5: "V", 9: "IX", 10: "X"}

def add(a, b):
    if (a, b) == (4, 5):
        return 9
    if a == 10:
        if b == 20:
            return 30
    match (a, b):
        case (2, 3):
            return 5
    return {(2, 3): 5}.get((a, b), a - b)

def fact(n):
    if n == 0:
        return 1
    if n == 5:
        return 120
    return n
"""


def test_special_cases_reproduce_the_tests_pairs_and_base_cases_do_not() -> None:
    pairs = {p for node in ast.walk(ast.parse(TESTS)) if isinstance(node, ast.FunctionDef)
             for p in special_cases.function_pairs(node)}
    assert ("add", ("4", "5"), "9") in pairs and ("fact", ("5",), "120") in pairs
    hits = {(kind, line) for kind, _, _, _, line, _ in
            (c for c in special_cases.candidates(ast.parse(IMPL), IMPL.splitlines())
             if special_cases.matches(c, pairs))}
    assert hits == {("branch", 4), ("branch", 7), ("branch", 10), ("table", 12),
                    ("branch", 17), ("table", 1)}  # the roman table is judged by its share
    assert not special_cases.trivial(["5", "120"]) and special_cases.trivial(["0", "1"])


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_coverage_is_resolved_by_its_own_precedence(tmp_path: Path) -> None:
    root = _project(tmp_path, {"pyproject.toml": "[tool.coverage.run]\nomit = ['x.py']\n",
                               "kata.py": "", "x.py": ""})
    old = effective.coverage_config(root)
    assert old["file"] == "pyproject.toml" and old["omit"] == ["x.py"]
    (root / "setup.cfg").write_text("[coverage:run]\nomit = kata.py\n")
    new = effective.coverage_config(root)
    assert new["file"] == "setup.cfg"
    found = effective.compare_coverage(root, old, new, ["kata.py", "x.py"])
    assert [(f, line) for _, f, line, _ in found] == [("setup.cfg", 2)]
    assert "no longer measures 1 file(s) it measured at the start (kata.py)" in found[0][3]


@pytest.mark.parametrize(("then", "now", "expected"), [
    ('[tool.pytest.ini_options]\naddopts = "--cov-fail-under=90"\n',
     '[tool.pytest.ini_options]\naddopts = "--cov-fail-under 80"\n',
     ["pytest's effective --cov-fail-under went from 90 to 80"]),
    ('[tool.pytest.ini_options]\naddopts = "--cov-fail-under=90"\n', "",
     ["pytest's effective --cov-fail-under went from 90 to nothing"]),
    ('[tool.pytest.ini_options]\naddopts = "--cov-fail-under=90"\n',
     "[pytest]\naddopts = --cov-fail-under=95\n", []),
    ("[tool.pytest]\nstrict = true\n", "[pytest]\nxfail_strict = false\n",
     ["pytest's xfail_strict was turned off: an xfail that passes no longer fails the run",
      "pytest's effective options lost '--strict-markers'",
      "pytest's effective options lost '--strict-config'"]),
    ("", "[pytest]\npython_classes = Check\npython_functions = test_a*\n",
     ["pytest no longer collects 2 test(s) it collected at the start (tests/test_a.py::"
      "TestA.test_a, tests/test_a.py::test_b): keep them in the run"]),
    ("", "[pytest]\npython_functions = test_* check_*\ntestpaths = tests\n", []),
])
def test_pytest_by_effect(tmp_path: Path, then: str, now: str, expected: list[str]) -> None:
    """``then`` in pyproject.toml, ``now`` in a pytest.ini that takes over (or nothing)."""
    root = _project(tmp_path, {"pyproject.toml": then, "tests/test_a.py": ""})
    files = ["tests/test_a.py"]
    tests = {"tests/test_a.py": {"test_a": 1, "TestA.test_a": 2, "test_b": 3}}
    old = effective.pytest_config(root, {})
    if now.startswith("[pytest]"):
        (root / "pytest.ini").write_text(now)
    else:
        (root / "pyproject.toml").write_text(now)
    found = effective.compare_pytest(root, old, effective.pytest_config(root, {}), files,
                                     tests=tests)
    assert [message for _, _, _, message in found] == expected


@pytest.mark.parametrize(("then", "now", "expected"), [
    ("[mypy]\n", "[mypy]\n[mypy-pkg]\nignore_errors = True\n",
     ["mypy checks less than at the start for pkg: ignore_errors on"]),
    ("[mypy]\ndisallow_untyped_defs = True\n",
     "[mypy]\ndisallow-untyped-defs = True\n[mypy-pkg.a]\ndisallow_untyped_defs = False\n"
     "disable_error_code = return-value\n",
     ["mypy checks less than at the start for pkg.a: error code return-value disabled, "
      "disallow_untyped_defs off"]),
    ("[mypy]\nstrict = True\n", "[mypy]\nstrict = True\nignore_missing_imports = True\n",
     ["mypy checks less than at the start: ignore_missing_imports on"]),
    ("[mypy]\nenable_error_code = ignore-without-code\n", "[mypy]\n",
     ["mypy checks less than at the start: error code ignore-without-code no longer enabled"]),
    ("[mypy]\n[mypy-pkg.*]\nfollow_imports = skip\n",
     "[mypy]\n[mypy-pkg.a]\nfollow_imports = normal\n[mypy-pkg.*]\nfollow_imports = skip\n"
     "warn_return_any = True\n", []),
])
def test_mypy_by_effect_per_module(tmp_path: Path, then: str, now: str,
                                   expected: list[str]) -> None:
    files = ["kata.py", "pkg/__init__.py", "pkg/a.py"]
    root = _project(tmp_path, {"mypy.ini": then, **dict.fromkeys(files, "")})
    old = effective.mypy_config(root, files)
    (root / "mypy.ini").write_text(now)
    found = effective.compare_mypy(root, old, effective.mypy_config(root, files), files)
    assert [message for _, _, _, message in found] == expected


def test_pytest_and_mypy_settings_moved_keep_their_effect(tmp_path: Path) -> None:
    root = _project(tmp_path, {
        "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "--strict-markers"\n'
                          '[tool.mypy]\nstrict = true\n', "kata.py": "",
        "tests/test_a.py": ""})
    files = ["kata.py", "tests/test_a.py"]
    old_pytest = effective.pytest_config(root, {})
    old_mypy = effective.mypy_config(root, files)
    (root / "pytest.ini").write_text("[pytest]\naddopts = --strict-markers\n")
    (root / "mypy.ini").write_text("[mypy]\nstrict = True\n")
    assert effective.compare_pytest(root, old_pytest, effective.pytest_config(root, {}),
                                    files) == []
    assert effective.compare_mypy(root, old_mypy, effective.mypy_config(root, files),
                                        files) == []
    (root / "mypy.ini").write_text("[mypy]\nstrict = True\n[mypy-kata]\nignore_errors = True\n")
    found = effective.compare_mypy(root, old_mypy, effective.mypy_config(root, files),
                                         files)
    assert [(f, line) for _, f, line, _ in found] == [("mypy.ini", 4)]


def test_a_test_whose_checks_were_all_removed_is_found(tmp_path: Path) -> None:
    test = tmp_path / "tests/test_a.py"
    _project(tmp_path, {"tests/test_a.py": "def test_a():\n    assert f() == 1\n", "a.py": ""})
    before = take(tmp_path, protected=[], keep=[])
    test.write_text("def test_a():\n    f()\n")
    after = take(tmp_path, protected=[], keep=[], previous=before)
    found = compare(before, after, tmp_path, {"tests"})
    assert [(f.code, f.location) for f in found] == [("weakened-test", "tests/test_a.py:1")]
    assert "makes fewer checks" in found[0].message
    before.allow = ["weakened-test"]  # the assertions rule names it too
    found = compare(before, after, tmp_path, {"tests"})
    assert [(f.code, f.location) for f in found] == [("checks-removed", "tests/test_a.py:1")]
    before.allow = ["weakened-test", "tests/test_a.py:test_a"]
    assert compare(before, after, tmp_path, {"tests"}) == []


@pytest.mark.parametrize(("text", "found"), [
    ("[coverage:report]\nFail_Under = 70\n", [("coverage.report.fail_under", 70.0)]),
    ("[coverage:report]  # ours\nfail_under: 70\n", [("coverage.report.fail_under", 70.0)]),
    ("[coverage:run]\nomit =\n    a.py\n# b.py\n    c.py\n",
     [("coverage.run.omit", ["a.py", "c.py"])]),
    ("[coverage:report]\nfail_under = 80\nfail_under = 10\n", []),
])
def test_ini_settings_are_read_as_coverage_and_mypy_read_them(tmp_path: Path, text: str,
                                                              found: list[object]) -> None:
    """configparser's reading: keys in any case, a comment after a header; a file with a
    key twice does not parse (the tool refuses it too)."""
    from ralph_verify.integrity.settings import read_all

    (tmp_path / "setup.cfg").write_text(text)
    assert [(s.key, s.value) for s in read_all(tmp_path, ["setup.cfg"])] == found


@pytest.mark.parametrize(("checks", "found"), [
    ({"tests"}, []), ({"tests", "lint"}, ["narrowed-setting"]),
    ({"integrity"}, ["narrowed-setting"])])
def test_a_tools_settings_count_when_its_check_decides_or_no_tool_check_runs(
        tmp_path: Path, checks: set[str], found: list[str]) -> None:
    """One test of the gate for the settings as written and by effect: a ruff ``ignore``
    hides nothing from ``--until tests``; with no tool check at all (``--until integrity``)
    every tool's settings are judged."""
    root = _project(tmp_path, {"pyproject.toml": "", "src/x.py": "X = 1\n"})
    before = take(root, protected=[], keep=[])
    before.gate = Gate(sorted(checks))  # a session's, as its baseline verification ran
    _project(root, {"pyproject.toml": "[tool.ruff.lint]\nignore = ['F']\n"})
    after = take(root, protected=[], keep=[], previous=before)
    assert [f.code for f in compare(before, after, root, checks)] == found


def test_weakened_setting_is_still_accepted_in_allow_as_narrowed_setting() -> None:
    """The settings as written (``weakened-setting``) merged into their effect: an ``allow``
    entry naming the old code lets the merged finding pass."""
    from ralph_verify.checks.api import Failure
    from ralph_verify.integrity.rule import allowed, let_pass

    assert allowed("pyproject.toml", "narrowed-setting", "ruff", ["weakened-setting"])
    assert allowed("pyproject.toml", "narrowed-setting", "ruff",
                   ["pyproject.toml:weakened-setting"])
    found = Failure(message="m", code="narrowed-setting", path="pyproject.toml")
    assert let_pass(found, ["weakened-setting:pyproject.toml"])
    assert not let_pass(found, ["weakened-test"])
